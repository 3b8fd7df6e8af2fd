/**
 * OpenAI-compatible HTTP test server that plays scripted replies — the one stand-in allowed in
 * this project's tests, for the paid API. Plain node:http, bound to 127.0.0.1 on a free port.
 *
 *   POST /v1/chat/completions  reply from the queue (`enqueue`), else from the script function
 *   POST /v1/embeddings        deterministic pseudo-embeddings from a SHA-256 of each input text
 *
 * Every request is recorded (body, Authorization header). Error replies use OpenAI's error JSON.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server recorded of one request (in arrival order, including retries). */
export interface RecordedRequest {
  method: string;
  /** Path without query string, e.g. '/v1/chat/completions'. */
  path: string;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined if the body was not JSON). */
  body: RecordedBody;
}

export interface RecordedBody {
  model?: string;
  messages?: Array<{ role: string; content: string }>;
  temperature?: number;
  input?: string | string[];
  [key: string]: unknown;
}

/** A successful assistant message. */
export interface ContentReply {
  content: string | null;
  finishReason?: string;
  /** Wait this long before answering (to trigger client timeouts). */
  delayMs?: number;
}

/** An HTTP error in OpenAI's format: `{ error: { message, type, param, code } }` unless `body` is given. */
export interface ErrorReply {
  status: number;
  message?: string;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** A string is shorthand for `{ content: string }`. */
export type ScriptedReply = string | ContentReply | ErrorReply;
export type ScriptHandler = (body: RecordedBody, request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface OpenAiTestServerOptions {
  /** Dimension of /v1/embeddings vectors (a request's `dimensions` field overrides). Default 16. */
  embeddingDimension?: number;
  /** When set, any other bearer token gets 401 invalid_api_key. */
  requireApiKey?: string;
  /**
   * `retry-after-ms` sent with 408/409/429/5xx replies so the client's retries don't sleep for
   * its default backoff (0.5 s, 1 s, …). Default 5; null sends no header. Per-reply headers win.
   */
  retryAfterMs?: number | null;
}

export interface OpenAiTestServer {
  /** Base URL including `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Chat completion requests only. */
  chatRequests(): RecordedRequest[];
  /** Embedding requests only. */
  embeddingRequests(): RecordedRequest[];
  /** Sets the handler used when the reply queue is empty. */
  script(handler: ScriptHandler): void;
  /** Queues replies for the next chat completion requests (used before the script handler). */
  enqueue(...replies: ScriptedReply[]): void;
  /** Forgets recorded requests, queued replies and the script handler. */
  reset(): void;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'server_error', code: null },
};

/**
 * Deterministic pseudo-embedding: SHA-256 in counter mode over the text, each 4 bytes mapped to
 * [-2, 2). Deliberately not unit-norm, so callers' normalisation is observable.
 */
export function pseudoEmbedding(text: string, dimension: number): number[] {
  const out: number[] = [];
  for (let block = 0; out.length < dimension; block++) {
    const digest = createHash('sha256').update(`${block}\u0000${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && out.length < dimension; i += 4) {
      out.push((digest.readUInt32BE(i) / 2 ** 32) * 4 - 2);
    }
  }
  return out;
}

export async function startOpenAiTestServer(opts: OpenAiTestServerOptions = {}): Promise<OpenAiTestServer> {
  const embeddingDimension = opts.embeddingDimension ?? 16;
  const retryAfterMs = opts.retryAfterMs === undefined ? 5 : opts.retryAfterMs;
  const requests: RecordedRequest[] = [];
  let queue: ScriptedReply[] = [];
  let handler: ScriptHandler | undefined;
  let completionCounter = 0;
  const timers = new Set<NodeJS.Timeout>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    // The client may have given up (timeout) while we were delaying.
    if (res.destroyed || res.writableEnded) return;
    const payload = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(payload),
      'x-request-id': `req_test_${requests.length}`,
      ...headers,
    });
    res.end(payload);
  };

  const sendError = (res: ServerResponse, reply: ErrorReply) => {
    const kind = ERROR_TYPES[reply.status] ?? { type: reply.status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
    const body = reply.body ?? {
      error: { message: reply.message ?? `Scripted error ${reply.status}`, type: kind.type, param: null, code: kind.code },
    };
    const retryable = reply.status === 408 || reply.status === 409 || reply.status === 429 || reply.status >= 500;
    const headers: Record<string, string> = retryable && retryAfterMs !== null ? { 'retry-after-ms': String(retryAfterMs) } : {};
    send(res, reply.status, body, { ...headers, ...reply.headers });
  };

  const chatCompletion = async (recorded: RecordedRequest, res: ServerResponse) => {
    const body = recorded.body;
    if (body.stream) return sendError(res, { status: 400, message: 'The test server does not stream.' });
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return sendError(res, { status: 400, message: "'model' and 'messages' are required." });
    }
    let reply: ScriptedReply | undefined = queue.shift();
    if (reply === undefined && handler) reply = await handler(body, recorded);
    // 418 is not retried by the client, so a missing script fails the test at once.
    if (reply === undefined) return sendError(res, { status: 418, message: 'openai-test-server: no scripted reply left' });
    if (typeof reply === 'string') reply = { content: reply };
    if (reply.delayMs) await sleep(reply.delayMs);
    if ('status' in reply) return sendError(res, reply);

    const promptText = body.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const promptTokens = roughTokens(promptText);
    const completionTokens = roughTokens(reply.content ?? '');
    completionCounter += 1;
    send(res, 200, {
      id: `chatcmpl-test-${completionCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.content, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: reply.finishReason ?? 'stop',
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      service_tier: 'default',
      system_fingerprint: null,
    });
  };

  const embeddings = (recorded: RecordedRequest, res: ServerResponse) => {
    const body = recorded.body;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (typeof body.model !== 'string' || !Array.isArray(inputs) || inputs.length === 0 || !inputs.every((s) => typeof s === 'string')) {
      return sendError(res, { status: 400, message: "'model' and a string or non-empty string array 'input' are required." });
    }
    const dimension = typeof body.dimensions === 'number' ? body.dimensions : embeddingDimension;
    const base64 = body.encoding_format === 'base64';
    const data = inputs.map((text, index) => {
      const vector = pseudoEmbedding(text, dimension);
      const embedding = base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    const tokens = inputs.reduce((sum, text) => sum + roughTokens(text), 0);
    send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: RecordedBody = {};
      try {
        body = raw ? (JSON.parse(raw) as RecordedBody) : {};
      } catch {
        body = {};
      }
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        authorization: req.headers.authorization,
        headers: req.headers,
        body,
      };
      requests.push(recorded);

      if (opts.requireApiKey !== undefined && recorded.authorization !== `Bearer ${opts.requireApiKey}`) {
        return sendError(res, { status: 401, message: 'Incorrect API key provided.' });
      }
      const route = `${recorded.method} ${recorded.path}`;
      const handle =
        route === 'POST /v1/chat/completions' ? chatCompletion(recorded, res)
        : route === 'POST /v1/embeddings' ? embeddings(recorded, res)
        : sendError(res, { status: 404, message: `Unknown route ${route}` });
      Promise.resolve(handle).catch((error: unknown) =>
        sendError(res, { status: 500, message: `openai-test-server script threw: ${error instanceof Error ? error.message : String(error)}` }),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === '/v1/chat/completions'),
    embeddingRequests: () => requests.filter((r) => r.path === '/v1/embeddings'),
    script(next) {
      handler = next;
    },
    enqueue(...replies) {
      queue.push(...replies);
    },
    reset() {
      requests.length = 0;
      queue = [];
      handler = undefined;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

// About four characters per token; only used to fill the `usage` fields plausibly.
function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
