import { HttpException, type Logger } from '@nestjs/common';
import { AccessDeniedError, AuthenticationError, ConflictError, echoInput, NotFoundError, PermanentError, ValidationError } from '@forensics/core';
import { isTransientFailure } from '@forensics/infra';

/** Seconds a client is told to wait when a dependency is down (the reconciler's pace is similar). */
const OUTAGE_RETRY_AFTER_SEC = 5;

/** An error as the HTTP answer the API gives for it: status, JSON body, extra headers. */
export interface HttpErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Domain errors → HTTP statuses with a JSON body `{statusCode, error, message, details?}`. One
 * mapping for the errors filter (every Nest route) and the intake's fast path (fast-intake.ts), so
 * both answer the same error the same way. Logs what the client is not told (outages, bugs).
 */
export function httpErrorOf(err: unknown, log: Pick<Logger, 'warn' | 'error'>): HttpErrorResponse {
  const of = (status: number, error: string, message: string, details?: string[], headers: Record<string, string> = {}): HttpErrorResponse => ({
    status, body: { statusCode: status, error, message, ...(details && details.length > 1 ? { details } : {}) }, headers,
  });
  if (err instanceof ValidationError) return of(400, 'Bad Request', err.message, err.details);
  if (err instanceof AuthenticationError) return of(401, 'Unauthorized', err.message);
  if (err instanceof AccessDeniedError) return of(403, 'Forbidden', err.message);
  if (err instanceof NotFoundError) return of(404, 'Not Found', err.message);
  if (err instanceof ConflictError) return { status: 409, body: { ...(err.body ?? {}), statusCode: 409, error: 'Conflict', message: err.message }, headers: {} };
  if (err instanceof PermanentError) return of(422, 'Unprocessable Entity', err.message);
  if (err instanceof HttpException) {
    const body = err.getResponse();
    const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? err.message);
    // Bounded: Nest's own messages can repeat the request ("Cannot GET /<a 5,000-character path>").
    return of(err.getStatus(), err.name.replace(/Exception$/, ''), message.length > 300 ? echoInput(message, 150) : message);
  }
  if (isTransientFailure(err)) {
    // A dependency is down (Postgres unreachable, disk full under the vector store, …): nothing of
    // this request was accepted, and retrying later is the right thing to do — say so.
    log.warn(`dependency unavailable: ${(err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300)}`);
    return of(503, 'Service Unavailable', 'a dependency of the service is unavailable; nothing was stored, retry later', undefined, { 'Retry-After': String(OUTAGE_RETRY_AFTER_SEC) });
  }
  log.error(err instanceof Error ? err.stack ?? err.message : String(err));
  return of(500, 'Internal Server Error', 'internal error');
}

/** A body-parser error (or the fast path's own reading of a JSON body) → the API's answer; null = not a body error. */
export function bodyErrorOf(err: { type?: string; status?: number; message?: string; limit?: number }): HttpErrorResponse | null {
  const of = (status: number, error: string, message: string): HttpErrorResponse => ({ status, body: { statusCode: status, error, message }, headers: {} });
  if (err.type === 'entity.too.large') return of(413, 'Payload Too Large', `request body exceeds the limit of ${err.limit} bytes`);
  if (err.type === 'entity.parse.failed') return of(400, 'Bad Request', `malformed JSON body: ${err.message}`);
  if (err.type === 'entity.too.deep') return of(400, 'Bad Request', err.message ?? 'JSON body nested too deeply');
  if (err.status && err.status < 500) return of(err.status, 'Bad Request', err.message ?? 'bad request body');
  return null;
}
