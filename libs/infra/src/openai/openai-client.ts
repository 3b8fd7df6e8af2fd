import OpenAI, { APIError, APIUserAbortError } from 'openai';

/**
 * The one place that constructs `openai` clients (judge, embedder, and later the generator share
 * it). Everything is explicit: the package's own environment fallbacks (OPENAI_BASE_URL,
 * OPENAI_ORG_ID, OPENAI_ADMIN_KEY, …) are switched off so configuration comes only from our config.
 */
export type OpenAiClient = OpenAI;

export interface OpenAiClientOptions {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  /** API key; servers without auth still need a non-empty placeholder. */
  apiKey: string;
  /** Per-request timeout in ms (each try, not the total). Default 60000. */
  timeoutMs?: number;
  /** The package's own transport retries (429, 408, 409, 5xx, connection errors). Default 2. */
  maxRetries?: number;
  organization?: string;
  project?: string;
}

export const OPENAI_DEFAULT_TIMEOUT_MS = 60_000;
export const OPENAI_DEFAULT_MAX_RETRIES = 2;

export function createOpenAiClient(options: OpenAiClientOptions): OpenAiClient {
  const timeoutMs = options.timeoutMs ?? OPENAI_DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? OPENAI_DEFAULT_MAX_RETRIES;
  if (!options.baseURL) throw new Error('OpenAI client: baseURL is required');
  if (!options.apiKey) throw new Error('OpenAI client: apiKey must be non-empty (use a placeholder for servers without auth)');
  // The package rejects non-integer timeouts at request time; fail at construction instead.
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new RangeError(`OpenAI client: timeoutMs must be a positive integer, got ${timeoutMs}`);
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError(`OpenAI client: maxRetries must be a non-negative integer, got ${maxRetries}`);
  return new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    adminAPIKey: null,
    organization: options.organization ?? null,
    project: options.project ?? null,
    webhookSecret: null,
    timeout: timeoutMs,
    maxRetries,
  });
}

export interface OpenAiFailure {
  /** Worth retrying later (rate limit, server error, timeout, connection). */
  transient: boolean;
  /** HTTP status, when the server answered. */
  status?: number;
  message: string;
}

/**
 * Classifies an error thrown by the `openai` client, after its own retries are spent.
 * 408 / 409 / 429 / 5xx and connection errors (incl. timeouts) are transient; every other HTTP
 * status (400, 401, 403, 404, 422, …) is permanent — retrying the same request cannot fix it.
 * Errors not from the client (bugs, malformed data) are permanent.
 */
export function classifyOpenAiError(error: unknown): OpenAiFailure {
  if (error instanceof APIUserAbortError) return { transient: true, message: 'request aborted' };
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    if (status === undefined) return { transient: true, message: error.message }; // connection error or timeout
    const transient = status === 408 || status === 409 || status === 429 || status >= 500;
    return { transient, status, message: error.message };
  }
  return { transient: false, message: error instanceof Error ? error.message : String(error) };
}
