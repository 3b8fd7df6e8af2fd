import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatEngine, ChatMessage } from './llama-chat-engine';
import type { LocalLlmParams } from './local-llm.params';

/**
 * The OpenAI chat-completions subset the service's OpenAI judge and generator use (non-streaming, one choice,
 * `model`, `messages`, `temperature`, `max_tokens` / `max_completion_tokens`), over one loaded model, on loopback.
 * Requests run one at a time in arrival order (one model, one KV cache: on a few cores a second parallel sequence
 * only splits the same cores); the worker's JUDGE_CONCURRENCY calls wait in the queue.
 *
 * Errors carry OpenAI's body (`{ error: { message, type, code } }`) and statuses that the adapters' classifier
 * (../openai/openai-client.ts) maps the way it maps a hosted endpoint's: 400/404/413 permanent; 429 (queue full,
 * with retry-after), 504 (the request's budget, queue wait included, ran out) and 500 (the engine failed) transient.
 */
export interface ChatCompletionsServer {
  readonly url: string;
  readonly port: number;
  /** Requests waiting or running. */
  readonly inFlight: number;
  close(): Promise<void>;
}

type Settings = Pick<LocalLlmParams, 'requestTimeoutMs' | 'defaultMaxTokens' | 'maxQueue'>;

const MAX_BODY_BYTES = 4 << 20;

class HttpFailure extends Error {
  constructor(readonly status: number, message: string, readonly type: string, readonly code: string | null = null, readonly param: string | null = null) {
    super(message);
  }
}

interface CompletionRequest {
  messages: ChatMessage[];
  maxTokens: number;
  temperature: number;
}

/** The request body, checked; what the subset does not offer is refused (400), never silently ignored. */
export function parseCompletionRequest(body: unknown, model: string, defaultMaxTokens: number): CompletionRequest {
  const bad = (message: string, param: string | null = null) => new HttpFailure(400, message, 'invalid_request_error', null, param);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string') throw bad('model is required', 'model');
  if (b.model !== model) throw new HttpFailure(404, `The model '${b.model}' does not exist; this endpoint serves '${model}'`, 'invalid_request_error', 'model_not_found', 'model');
  if (b.stream === true) throw bad('stream is not supported by this endpoint', 'stream');
  if (b.n !== undefined && b.n !== null && b.n !== 1) throw bad('n must be 1', 'n');
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw bad('messages must be a non-empty array', 'messages');
  const messages = b.messages.map((m: unknown, i): ChatMessage => {
    const msg = (m ?? {}) as Record<string, unknown>;
    const role = msg.role === 'developer' ? 'system' : msg.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant') throw bad(`messages[${i}].role must be system, developer, user or assistant`, `messages[${i}].role`);
    // A string, or the parts form with text parts only.
    const content = typeof msg.content === 'string' ? msg.content
      : Array.isArray(msg.content) && msg.content.every((p) => p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string')
        ? msg.content.map((p) => (p as { text: string }).text).join('')
        : null;
    if (content === null) throw bad(`messages[${i}].content must be a string or text parts`, `messages[${i}].content`);
    return { role, content };
  });
  const max = b.max_completion_tokens ?? b.max_tokens;
  if (max !== undefined && max !== null && (!Number.isInteger(max) || (max as number) < 1)) throw bad('max_tokens must be a positive integer', 'max_tokens');
  const temperature = b.temperature ?? 1;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2)) throw bad('temperature must be a number in [0, 2]', 'temperature');
  return { messages, maxTokens: (max as number | undefined | null) ?? defaultMaxTokens, temperature };
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) { reject(new HttpFailure(413, `the body exceeds ${MAX_BODY_BYTES} bytes`, 'invalid_request_error')); req.resume(); return; }
      chunks.push(c);
    });
    req.on('end', () => {
      try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch { reject(new HttpFailure(400, 'the body is not valid JSON', 'invalid_request_error')); }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendFailure(res: ServerResponse, f: HttpFailure): void {
  send(res, f.status, { error: { message: f.message, type: f.type, param: f.param, code: f.code } }, f.status === 429 ? { 'retry-after': '1' } : {});
}

export async function startChatCompletionsServer(engine: ChatEngine, settings: Settings, opts: { port?: number; host?: string } = {}): Promise<ChatCompletionsServer> {
  let tail: Promise<unknown> = Promise.resolve();
  let inFlight = 0;
  const created = Math.floor(Date.now() / 1000);

  /** Runs `job` after every earlier request; its budget counts from now. */
  function enqueue<T>(deadline: AbortSignal, job: () => Promise<T>): Promise<T> {
    if (inFlight > settings.maxQueue) {
      return Promise.reject(new HttpFailure(429, `the local model is busy (${inFlight} requests queued): retry`, 'rate_limit_error', 'queue_full'));
    }
    inFlight++;
    const run = tail.then(() => {
      if (deadline.aborted) throw deadline.reason;
      return job();
    });
    tail = run.catch(() => undefined);
    return run.finally(() => { inFlight--; });
  }

  async function completions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new HttpFailure(504, `the request exceeded the local model's budget of ${settings.requestTimeoutMs} ms (queue wait included)`, 'timeout', 'timeout')), settings.requestTimeoutMs);
    // The client gave up (its own timeout): stop generating for it.
    res.on('close', () => { if (!res.writableFinished) abort.abort(new HttpFailure(499, 'client closed the request', 'aborted')); });
    try {
      const request = parseCompletionRequest(await readBody(req), engine.model, settings.defaultMaxTokens);
      const result = await enqueue(abort.signal, () => engine.complete(request.messages, { maxTokens: request.maxTokens, temperature: request.temperature, signal: abort.signal }));
      if (abort.signal.aborted) throw abort.signal.reason;
      send(res, 200, {
        id: `chatcmpl-${randomBytes(12).toString('hex')}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: engine.model,
        choices: [{ index: 0, message: { role: 'assistant', content: result.text, refusal: null }, finish_reason: result.finishReason, logprobs: null }],
        usage: { prompt_tokens: result.promptTokens, completion_tokens: result.completionTokens, total_tokens: result.promptTokens + result.completionTokens },
      });
    } catch (e) {
      // An abort surfaces from the engine as its signal's reason or as its own error: the signal says which.
      const failure = e instanceof HttpFailure ? e : abort.signal.aborted && abort.signal.reason instanceof HttpFailure ? abort.signal.reason
        : new HttpFailure(500, `the local model failed: ${e instanceof Error ? e.message : String(e)}`, 'server_error');
      sendFailure(res, failure);
    } finally {
      clearTimeout(timer);
    }
  }

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'POST' && path === '/v1/chat/completions') { void completions(req, res); return; }
    if (req.method === 'GET' && path === '/v1/models') { send(res, 200, { object: 'list', data: [{ id: engine.model, object: 'model', created, owned_by: 'local' }] }); return; }
    if (req.method === 'GET' && path === '/health') { send(res, 200, { status: 'ok', model: engine.model, inFlight }); return; }
    sendFailure(res, new HttpFailure(404, `no route ${req.method} ${path}`, 'invalid_request_error', 'unknown_url'));
  });
  server.keepAliveTimeout = 60_000;
  // A long generation is not cut by node's own request timeout: the budget above is the one that applies.
  server.requestTimeout = 0;
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(opts.port ?? 0, host, () => resolve()); });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    get inFlight() { return inFlight; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
