import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Logger } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { ForensicsMetrics } from '@forensics/infra';
import { assertPermitted, missingCredentials, setTokenRouteCors } from './api-key.guard';
import { headerOf, type Authenticator, type CredentialRequest } from './authenticator';
import type { FeedbackIntake } from './feedback-intake';
import { bodyErrorOf, httpErrorOf } from './http-errors';
import { exceedsJsonDepth, TOO_DEEP_TYPE, tooDeepMessage } from './json-depth';
import type { RateLimits, RateLimitSubject } from './rate-limit';

/**
 * The intake's fast path (issue 15, item 1): `POST /v1/feedback` answered by a lean handler on the
 * node HTTP server, in front of express + Nest, which serve every other request (and the requests
 * this path declines, untouched).
 *
 * Why: intake is the one route that arrives in bursts of thousands per second. Profiled under
 * `bench:intake`, express + Nest (router, body-parser, helmet, the middleware chain, guards,
 * parameter decorators, response helpers) cost ~0.2 ms of CPU per request on this machine before
 * any of the route's own work — measured on a no-op route with the same middleware: 0.23 ms per
 * request against 0.02 ms for a bare node handler — about as much as the route's own work.
 *
 * What it keeps — each step calls the same code as the Nest route, in the same order:
 * security headers (the same helmet middleware, run once at start-up to record its headers: they do
 * not depend on the request), the token route's CORS headers, the JSON body under BODY_LIMIT,
 * checked for nesting depth (JSON_MAX_DEPTH), Authenticator (API key, feedback token, console session with its CSRF check), the `feedback`
 * permission (ApiKeyGuard's `assertPermitted`), RateLimits (429, Retry-After, the audit entry),
 * FeedbackIntake (validation, trust, the use case, the 202's body), errors through `httpErrorOf`
 * (the errors filter's mapping), the HTTP metrics with the route's label, and in JSON-log mode the
 * request line and request id through the same pino-http options, with Nest's logger bound to the
 * request as nestjs-pino does. `test/fast-intake.test.ts` sends the same requests down both paths
 * and compares status, body and headers.
 *
 * What it declines (express + Nest answer, nothing read yet): anything but `POST /v1/feedback`
 * exactly; a body that is not `application/json` (utf-8), is compressed, is chunked or has no
 * Content-Length, or is over the limit; an express app that trusts a proxy (`req.ip` would differ).
 * INTAKE_FAST_PATH=false turns it off.
 */
export interface FastIntakeDeps {
  authenticator: Authenticator;
  rateLimits: RateLimits;
  intake: FeedbackIntake;
  metrics: ForensicsMetrics;
  /** BODY_LIMIT in bytes. */
  bodyLimit: number;
  /** JSON_MAX_DEPTH: a body nested deeper is refused (400) before it is parsed, as on the Nest routes. */
  jsonMaxDepth: number;
  /** The API's security-headers middleware (helmet); its headers for this route are recorded at start-up. */
  securityHeaders: RequestHandler;
  /** Whether the express app trusts a proxy for the client address (then the path declines: express's `req.ip` rules apply). */
  trustsProxy: () => boolean;
  /** JSON logs: pino-http's middleware with the API's options, and nestjs-pino's binding of the request's logger. */
  requestLogging?: { log: (req: IncomingMessage, res: ServerResponse) => void; bind: (req: IncomingMessage, run: () => void) => void };
  log: Pick<Logger, 'warn' | 'error'>;
}

const FAST_INTAKE_PATH = '/v1/feedback';
const JSON_TYPE = /^application\/json\s*(?:;(.*))?$/i;
const CHARSET = /(?:^|;)\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * Puts the fast path in front of the server's request listener (express). Returns false, leaving
 * the server as it was, when the security headers cannot be recorded (a middleware that is not
 * synchronous or depends on the request).
 */
export function installFastIntake(server: Server, deps: FastIntakeDeps): boolean {
  const headers = recordHeaders(deps.securityHeaders);
  if (!headers) {
    deps.log.warn('intake fast path off: the security headers could not be recorded; POST /v1/feedback goes through express + Nest');
    return false;
  }
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) {
    deps.log.warn(`intake fast path off: the HTTP server has ${listeners.length} request listeners, expected express alone`);
    return false;
  }
  const [express] = listeners;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!takes(req, deps)) return express(req, res);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const labels = { method: 'POST', route: FAST_INTAKE_PATH, status_code: String(res.statusCode) };
      deps.metrics.httpRequests.inc(labels);
      deps.metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    for (const [name, value] of headers) res.setHeader(name, value);
    const run = () => void handle(req, res, deps);
    if (deps.requestLogging) {
      deps.requestLogging.log(req, res);
      deps.requestLogging.bind(req, run);
    } else run();
  });
  return true;
}

/** Whether the fast path answers this request (else express does, with nothing read). */
function takes(req: IncomingMessage, deps: FastIntakeDeps): boolean {
  if (req.method !== 'POST') return false;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if ((q < 0 ? url : url.slice(0, q)) !== FAST_INTAKE_PATH) return false;
  const h = req.headers;
  const type = h['content-type'] ? JSON_TYPE.exec(h['content-type']) : null;
  if (!type) return false;
  const charset = type[1] ? CHARSET.exec(type[1])?.[1]?.toLowerCase() : undefined;
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return false;
  if (h['content-encoding'] !== undefined && h['content-encoding'].toLowerCase() !== 'identity') return false;
  if (h['transfer-encoding'] !== undefined) return false;
  const length = h['content-length'] === undefined ? NaN : Number(h['content-length']);
  if (!Number.isInteger(length) || length < 0 || length > deps.bodyLimit) return false;
  return !deps.trustsProxy();
}

async function handle(req: IncomingMessage, res: ServerResponse, deps: FastIntakeDeps): Promise<void> {
  try {
    const raw = await readBody(req);
    if (raw === null) return; // the client went away
    const body = parseJson(raw, deps.jsonMaxDepth);
    if ('error' in body) return send(res, body.error.status, body.error.body);
    // Before any refusal, so a cross-origin browser can read the error message (as ApiKeyGuard does, after body-parser).
    setTokenRouteCors(res);
    const view: CredentialView = { method: req.method, headers: req.headers, body: body.value, path: FAST_INTAKE_PATH, socket: req.socket };
    const authenticated = await deps.authenticator.authenticate(view, { tokenRoute: true });
    if (!authenticated) throw missingCredentials(true);
    view.principal = authenticated.principal;
    if (authenticated.feedbackToken) view.feedbackToken = authenticated.feedbackToken;
    else assertPermitted(authenticated.principal, ['feedback']);
    await deps.rateLimits.check('feedback', view, res);
    const out = await deps.intake.create(body.value, headerOf(req, 'idempotency-key'), view);
    send(res, 202, out);
  } catch (e) {
    const answer = httpErrorOf(e, deps.log);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    send(res, answer.status, answer.body);
  }
}

/** The request as the Authenticator, RateLimits and FeedbackIntake read it. */
type CredentialView = RateLimitSubject & CredentialRequest;

/**
 * The whole body (Content-Length bytes, checked by `takes`); null when the client went away before
 * sending it (an aborted request's stream errors with ECONNRESET: the client's doing, not an outage
 * to answer or log as one).
 */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { ended = true; resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)); });
    req.on('error', () => { if (!ended) resolve(null); });
    req.on('close', () => { if (!ended) resolve(null); });
  });
}

/**
 * JSON as body-parser's `json()` reads it (strict: an object or array; an empty body is `{}`; the
 * depth checked on the bytes first, as the Nest routes' `verify` does), its errors mapped by `bodyErrorOf`.
 */
function parseJson(raw: Buffer, maxDepth: number): { value: unknown } | { error: NonNullable<ReturnType<typeof bodyErrorOf>> } {
  if (raw.length === 0) return { value: {} };
  if (exceedsJsonDepth(raw, maxDepth)) return { error: bodyErrorOf({ type: TOO_DEEP_TYPE, status: 400, message: tooDeepMessage(maxDepth) })! };
  const text = raw.toString('utf8');
  const first = /\S/.exec(text)?.[0];
  const failed = (message: string) => ({ error: bodyErrorOf({ type: 'entity.parse.failed', message })! });
  if (first !== '{' && first !== '[') return failed(`the body must be a JSON object or array`);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return failed((e as Error).message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/**
 * The headers a middleware sets on a POST to the route, recorded by running it once on a stand-in
 * request and response; null unless it finished synchronously without reading the request.
 */
function recordHeaders(mw: RequestHandler): [string, string][] | null {
  const set = new Map<string, [string, string]>();
  const res = {
    setHeader: (name: string, value: unknown) => { set.set(name.toLowerCase(), [name, Array.isArray(value) ? value.join(', ') : String(value)]); return res; },
    removeHeader: (name: string) => { set.delete(name.toLowerCase()); },
    getHeader: (name: string) => set.get(name.toLowerCase())?.[1],
  };
  const req = { method: 'POST', url: FAST_INTAKE_PATH, path: FAST_INTAKE_PATH, originalUrl: FAST_INTAKE_PATH, headers: {} };
  let done = false;
  try {
    mw(req as never, res as never, ((err?: unknown) => { done = err === undefined; }) as never);
  } catch {
    return null;
  }
  return done ? [...set.values()] : null;
}
