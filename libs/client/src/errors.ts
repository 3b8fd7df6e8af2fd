/** The service's error body: `{statusCode, error, message}` (400s may list `problems`). */
export interface Problem {
  statusCode: number;
  error: string;
  message: string;
  [key: string]: unknown;
}

/** A non-2xx answer of the service, after retries. */
export class ForensicsApiError extends Error {
  override readonly name = 'ForensicsApiError';
  constructor(
    /** HTTP status (0: no answer at all — the request failed or timed out). */
    readonly status: number,
    /** The parsed error body (a synthetic one when the body was not the service's JSON). */
    readonly problem: Problem,
    /** Seconds the service asked to wait (`Retry-After` of a 429 / 503), or null. */
    readonly retryAfterSeconds: number | null,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} → ${status || 'no response'}: ${problem.message}`);
  }
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
