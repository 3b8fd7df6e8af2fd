import { ForensicsApiError, parseRetryAfter, type Problem } from './errors.js';
import type {
  CorrectAnswerResult, FeedbackAccepted, FeedbackEvent, FeedbackStatus, IngestDocument, IngestResult, KeyFeedbackRequest, LogAnswerRequest, LoggedAnswer, QuarantineDecision,
  QuarantineFilter, QuarantineRecord, RagAnswer, RagAnswerRequest, ServingStatus, TokenFeedbackRequest, VettedBaseline,
} from './types.js';

export interface RetryOptions {
  /** Retries after the first attempt on 429 / 503 (and on a request that got no answer); default 3. */
  retries?: number;
  /** First backoff when the service sends no Retry-After; doubled each retry, with jitter; default 250 ms. */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (a longer Retry-After ends the retries); default 30 s. */
  maxDelayMs?: number;
}

export interface ForensicsClientOptions {
  /** e.g. `https://forensics.example.com` (no trailing path). */
  baseUrl: string;
  /** A service key (`rfk_…`) or any key with the needed permission; sent as `X-API-Key`. Not needed for feedback-token calls. */
  apiKey?: string;
  retry?: RetryOptions;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Defaults to the global fetch (Node ≥ 20). */
  fetch?: typeof fetch;
  /** Waits between retries (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

/** The statuses after which nothing more happens to a feedback event. */
export const FINAL_FEEDBACK_STATUSES: readonly FeedbackStatus[] = ['TRACED', 'BOUNDED', 'FAILED'];

export interface WaitOptions {
  /** Give up after this long (throws); default 120 s. */
  timeoutMs?: number;
  /** Poll interval; default 500 ms. */
  intervalMs?: number;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  /** false: no API key (feedback-token calls). */
  auth?: boolean;
}

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const enc = encodeURIComponent;

/**
 * Typed client of the RAG forensics service. Every method is one HTTP call (waitForTrace polls);
 * a non-2xx answer throws ForensicsApiError (status, problem, retryAfterSeconds). 429 and 503 are
 * retried with exponential backoff, honouring `Retry-After`.
 */
export class ForensicsClient {
  private readonly base: string;
  private readonly fetcher: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly retry: Required<RetryOptions>;

  constructor(private readonly opts: ForensicsClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.fetcher = opts.fetch ?? globalThis.fetch;
    this.sleep = opts.sleep ?? sleeper;
    this.retry = { retries: 3, baseDelayMs: 250, maxDelayMs: 30_000, ...opts.retry };
  }

  /** Adds texts to a collection (idempotent by text hash); `ids[i]` is the service's id of `documents[i]`. */
  ingest(collection: string, documents: IngestDocument[]): Promise<IngestResult> {
    return this.call({ method: 'POST', path: `/v1/collections/${enc(collection)}/documents`, body: { documents } });
  }

  /** Which of these texts (as the app stores them) or service ids the service withholds from serving. */
  servingStatus(collection: string, lookup: { texts?: string[]; ids?: string[] }): Promise<ServingStatus> {
    return this.call({ method: 'POST', path: `/v1/collections/${enc(collection)}/serving-status`, body: lookup });
  }

  /**
   * Admin: the collection's vetted baseline. Texts registered before `before` (default: now) are vouched for: a report
   * never takes them out of serving on its own (their YES verdicts wait for review, served). `null` clears it. A future
   * instant is refused (400). See docs/trust.md, "Vetted baseline".
   */
  setVettedBaseline(collection: string, before?: Date | string | null): Promise<VettedBaseline> {
    const body = before === undefined ? {} : { before: before instanceof Date ? before.toISOString() : before };
    return this.call({ method: 'PUT', path: `/v1/collections/${enc(collection)}/vetted-before`, body });
  }

  /** Logs an external RAG's answer with the service ids of the texts it served → answer id and feedback token. */
  logAnswer(answer: LogAnswerRequest): Promise<LoggedAnswer> {
    return this.call({ method: 'POST', path: '/v1/answers', body: answer });
  }

  /** The service's built-in RAG: retrieves (quarantined texts excluded), answers, logs. */
  ragAnswer(request: RagAnswerRequest): Promise<RagAnswer> {
    return this.call({ method: 'POST', path: '/v1/rag/answer', body: request });
  }

  /**
   * A wrong-answer report from a back end holding a key (`feedback` scope), naming its user in
   * `reporter`. The idempotency key makes a retried report the same event (`duplicate: true`).
   */
  reportWrongAnswer(report: KeyFeedbackRequest, opts: { idempotencyKey?: string } = {}): Promise<FeedbackAccepted> {
    return this.call({ method: 'POST', path: '/v1/feedback', body: report, headers: opts.idempotencyKey ? { 'Idempotency-Key': opts.idempotencyKey } : {} });
  }

  /** A report with the feedback token of a logged answer (what the widget sends; no API key). One token → one event. */
  reportWithToken(feedbackToken: string, report: TokenFeedbackRequest = {}): Promise<FeedbackAccepted> {
    return this.call({ method: 'POST', path: '/v1/feedback', body: report, headers: { authorization: `FeedbackToken ${feedbackToken}` }, auth: false });
  }

  /** A feedback event: status, verdicts, quarantined texts, verification, enhancements. */
  getFeedback(id: string): Promise<FeedbackEvent> {
    return this.call({ method: 'GET', path: `/v1/feedback/${enc(id)}` });
  }

  /** Polls a feedback event until it is TRACED, BOUNDED or FAILED (the whole pipeline is done then). */
  async waitForTrace(id: string, opts: WaitOptions = {}): Promise<FeedbackEvent> {
    const until = Date.now() + (opts.timeoutMs ?? 120_000);
    for (;;) {
      const ev = await this.getFeedback(id);
      if (FINAL_FEEDBACK_STATUSES.includes(ev.status)) return ev;
      if (Date.now() >= until) throw new Error(`feedback ${id} still ${ev.status} after ${opts.timeoutMs ?? 120_000} ms`);
      await this.sleep(opts.intervalMs ?? 500);
    }
  }

  /**
   * The correct-answer follow-up of a report: creates its benign-text enhancement. With `decide` (reviewer, admin) it is
   * served at once; a `feedback` key may only suggest one for an event it reported (PROPOSED until a reviewer approves;
   * 403 for another's event).
   */
  setCorrectAnswer(feedbackId: string, correctAnswer: string): Promise<CorrectAnswerResult> {
    return this.call({ method: 'POST', path: `/v1/feedback/${enc(feedbackId)}/correct-answer`, body: { correctAnswer } });
  }

  /** Quarantine records, filtered by state and collection. */
  async listQuarantine(filter: QuarantineFilter = {}): Promise<QuarantineRecord[]> {
    return (await this.call<{ items: QuarantineRecord[] }>({ method: 'GET', path: '/v1/quarantine', query: filter as Record<string, string | undefined> })).items;
  }

  /** Reviewer decision: a NEEDS_REVIEW text stays out of serving (`decide` permission). */
  approve(quarantineId: string, note?: string): Promise<QuarantineDecision> {
    return this.call({ method: 'POST', path: `/v1/quarantine/${enc(quarantineId)}/approve`, body: note === undefined ? {} : { note } });
  }

  /** Reviewer decision: the text is served again, exactly as it was (`decide` permission). */
  restore(quarantineId: string, note?: string): Promise<QuarantineDecision> {
    return this.call({ method: 'POST', path: `/v1/quarantine/${enc(quarantineId)}/restore`, body: note === undefined ? {} : { note } });
  }

  private async call<T>(c: Call): Promise<T> {
    const qs = c.query ? new URLSearchParams(Object.entries(c.query).filter((e): e is [string, string] => e[1] !== undefined)).toString() : '';
    const url = `${this.base}${c.path}${qs ? `?${qs}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', ...(c.body === undefined ? {} : { 'content-type': 'application/json' }), ...c.headers };
    if (c.auth !== false && this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetcher(url, { method: c.method, headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000) });
      } catch (e) {
        if (attempt < this.retry.retries) { await this.sleep(this.backoff(attempt)); continue; }
        throw new ForensicsApiError(0, { statusCode: 0, error: 'NetworkError', message: (e as Error).message }, null, c.method, c.path);
      }
      const text = await res.text();
      if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
      const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
      const problem = problemOf(res.status, text);
      const retriable = res.status === 429 || res.status === 503;
      const wait = retryAfter === null ? this.backoff(attempt) : retryAfter * 1000;
      if (retriable && attempt < this.retry.retries && wait <= this.retry.maxDelayMs) { await this.sleep(wait); continue; }
      throw new ForensicsApiError(res.status, problem, retryAfter, c.method, c.path);
    }
  }

  /** base · 2^attempt, jittered to [½, 1] of it, capped. */
  private backoff(attempt: number): number {
    const full = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.round(full / 2 + Math.random() * (full / 2));
  }
}

function problemOf(status: number, text: string): Problem {
  try {
    const p = JSON.parse(text) as Partial<Problem>;
    if (p && typeof p === 'object' && typeof p.message === 'string') return { statusCode: status, error: String(p.error ?? ''), ...p } as Problem;
  } catch { /* not JSON */ }
  return { statusCode: status, error: 'HttpError', message: text.slice(0, 300) || `HTTP ${status}` };
}
