import { parseRequest } from '../../../domain/request-schema';
import { FAILED_JOBS, type FailedJob, type FailedJobs } from '../../../ports/dead-letters.port';
import type { AuditLogRepository, FeedbackEventRepository, FeedbackRow } from '../../../ports/repositories';
import { AUDIT_LOG, FEEDBACK_EVENTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';
import { publicFailureReason } from '../get-feedback/public-failure-reason';
import { decodeEventsCursor, decodeJobsCursor, encodeEventsCursor, encodeJobsCursor } from './dead-letter-cursor';
import { ListDeadLettersQuery } from './dead-letters.schema';

export interface ListDeadLettersDeps { feedback: FeedbackEventRepository; audit: AuditLogRepository; jobs: FailedJobs }

/** Audit actions that make up a feedback event's failure history. */
export const FAILURE_HISTORY_ACTIONS = ['traceback.failed', 'feedback.redriven'] as const;
/** Rows read at most per request while filtering FAILED events by collection. */
const SCAN_MAX = 5000;
/** A cutoff later than any row's updatedAt: `listStale` then lists every FAILED event. */
const FAR_FUTURE = new Date('9999-01-01T00:00:00Z');

export interface DeadLetterViewer {
  /**
   * Admins (`manage`) see failure reasons in full; everybody else the sanitised first line of an
   * event's (and its traceback job's) reason, and no reason of other queues' jobs.
   */
  fullReasons: boolean;
}

function reasonFor(full: string | null, viewer: DeadLetterViewer): { reason: string | null; detailsWithheld: boolean } {
  if (viewer.fullReasons) return { reason: full, detailsWithheld: false };
  return publicFailureReason(full);
}

/**
 * The dead letters (issue 14, item 3): FAILED feedback events — with their stored failure reason,
 * failure time, attempts and failure history from the audit log (`traceback.failed` per failure,
 * `feedback.redriven` per re-drive) — and the failed jobs of every queue (failedReason,
 * attemptsMade). Two independently paginated lists: events oldest failure first (keyset on
 * updatedAt, id), jobs queue by queue in name order, newest failure first.
 */
export class ListDeadLettersUseCase {
  static readonly inject: InjectMap<ListDeadLettersDeps> = { feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, jobs: FAILED_JOBS };
  constructor(private readonly deps: ListDeadLettersDeps) {}

  async execute(query: unknown, viewer: DeadLetterViewer) {
    const q = parseRequest(ListDeadLettersQuery, query ?? {});
    const events = q.include === 'jobs' ? null : await this.events(q.limit, q.collection, q.eventsCursor, viewer);
    const jobs = q.include === 'events' ? null : await this.jobs(q.limit, q.queue, q.jobsCursor, viewer);
    return {
      ...(events ? { events: events.items, nextEventsCursor: events.next } : {}),
      ...(jobs ? { jobs: jobs.items, nextJobsCursor: jobs.next, failedJobCounts: jobs.counts } : {}),
    };
  }

  private async events(limit: number, collection: string | undefined, cursor: string | undefined, viewer: DeadLetterViewer) {
    let after = cursor === undefined ? undefined : decodeEventsCursor(cursor);
    const matched: FeedbackRow[] = [];
    let scanned = 0;
    let exhausted = false;
    let lastScanned: FeedbackRow | undefined;
    // Pages of FAILED events; a collection filter skips others (dead letters are few; bounded scan).
    while (matched.length <= limit && scanned < SCAN_MAX) {
      const page = await this.deps.feedback.listStale(['FAILED'], FAR_FUTURE, limit + 1, after);
      for (const r of page) {
        scanned += 1;
        lastScanned = r;
        if (collection === undefined || r.collection === collection) matched.push(r);
        if (matched.length > limit) break;
      }
      if (page.length < limit + 1) { exhausted = matched.length <= limit; break; }
      after = { updatedAt: page[page.length - 1].updatedAt, id: page[page.length - 1].id };
    }
    const items = matched.slice(0, limit);
    let next: string | null = null;
    if (matched.length > limit) next = encodeEventsCursor(items[items.length - 1]);
    else if (!exhausted && lastScanned) next = encodeEventsCursor(lastScanned); // scan bound reached: continue from there
    return {
      items: await Promise.all(items.map(async (e) => {
        const reason = reasonFor(e.failureReason, viewer);
        const history = (await this.deps.audit.listFor('FeedbackEvent', e.id))
          .filter((a) => (FAILURE_HISTORY_ACTIONS as readonly string[]).includes(a.action))
          .map((a) => {
            const d = (a.details ?? {}) as Record<string, unknown>;
            const stored = typeof d.reason === 'string' ? d.reason : typeof d.previousReason === 'string' ? d.previousReason : null;
            return { at: a.at, action: a.action, actor: a.actor, attempts: typeof d.attempts === 'number' ? d.attempts : null, reason: reasonFor(stored, viewer).reason };
          });
        return {
          feedbackId: e.id, collection: e.collection, status: e.status, step: e.step, query: e.query,
          failureReason: reason.reason, failureDetailsWithheld: reason.detailsWithheld,
          failedAt: e.updatedAt, attempts: e.attempts, createdAt: e.createdAt, history,
        };
      })),
      next,
    };
  }

  private async jobs(limit: number, only: string | undefined, cursor: string | undefined, viewer: DeadLetterViewer) {
    const all = await this.deps.jobs.queues();
    const queues = only === undefined ? all : all.filter((n) => n === only);
    const counts = await this.deps.jobs.counts();
    let start = 0;
    let offset = 0;
    if (cursor !== undefined) {
      const c = decodeJobsCursor(cursor);
      start = queues.indexOf(c.queue);
      offset = c.offset;
      if (start < 0) return { items: [], next: null, counts };
    }
    const items: FailedJob[] = [];
    let next: string | null = null;
    for (let i = start; i < queues.length; i++) {
      const need = limit - items.length;
      const page = await this.deps.jobs.list(queues[i], i === start ? offset : 0, need + 1);
      items.push(...page.slice(0, need));
      if (page.length > need) { next = encodeJobsCursor({ queue: queues[i], offset: (i === start ? offset : 0) + need }); break; }
      if (items.length === limit) {
        const rest = queues.slice(i + 1).find((n) => (counts[n] ?? 0) > 0);
        next = rest ? encodeJobsCursor({ queue: rest, offset: 0 }) : null;
        break;
      }
    }
    return {
      items: items.map((j) => {
        // Non-admins see a traceback job's reason as they see its event's (sanitised); other queues'
        // reasons are withheld: a webhook failure names the endpoint's URL, which may carry a secret.
        const reason = viewer.fullReasons || j.feedbackId !== null ? reasonFor(j.failedReason, viewer) : { reason: null, detailsWithheld: true };
        return { queue: j.queue, id: j.id, name: j.name, feedbackId: j.feedbackId, failedReason: reason.reason, failureDetailsWithheld: reason.detailsWithheld, attemptsMade: j.attemptsMade, createdAt: j.createdAt, failedAt: j.failedAt };
      }),
      next,
      counts,
    };
  }
}
