import { REDRIVE_TRANSITION } from '../../../domain/feedback-status';
import { parseRequest } from '../../../domain/request-schema';
import { FAILED_JOBS, type FailedJobs } from '../../../ports/dead-letters.port';
import type { AuditLogRepository, FeedbackEventRepository, FeedbackStatus } from '../../../ports/repositories';
import { AUDIT_LOG, FEEDBACK_EVENTS, TRACEBACK_QUEUE } from '../../../ports/tokens';
import type { RedriveOutcome, TracebackQueue } from '../../../ports/traceback-queue.port';
import type { InjectMap } from '../../../use-case';
import { REDRIVE_ALL_MAX, RedriveRequest } from '../list-dead-letters/dead-letters.schema';

export interface RedriveFeedbackDeps { feedback: FeedbackEventRepository; audit: AuditLogRepository; queue: TracebackQueue; jobs: FailedJobs }

/** What happened to one event: re-driven now, or left as it was (and why). */
export type EventRedriveResult =
  | { feedbackId: string; outcome: 'redriven'; status: FeedbackStatus; queued: boolean; job: RedriveOutcome | null; queueError?: string }
  | { feedbackId: string; outcome: 'not-failed'; status: FeedbackStatus }
  | { feedbackId: string; outcome: 'not-found' };

export type JobRedriveResult =
  | { queue: string; id: string; outcome: 'retried' | 'not-found' | 'not-failed'; state?: string }
  | { queue: string; id: string; outcome: 'event'; event: EventRedriveResult };

const FAR_FUTURE = new Date('9999-01-01T00:00:00Z');

/**
 * Re-drives dead letters after their cause was fixed (issue 14, item 3), admins only (checked by
 * the caller). An event moves FAILED → RECEIVED by compare-and-set (the domain's one backwards
 * move, REDRIVE_TRANSITION), its stored failure reason cleared from the row — its history stays in
 * the audit log: the worker wrote `traceback.failed` (reason, attempts) for every failure, and this
 * writes `feedback.redriven` (actor, the reason being cleared, attempts so far). Then the event gets
 * a fresh job: its failed job is retried with fresh attempts (or a new one added); when the queue is
 * unreachable the event stays RECEIVED and the reconciler enqueues it. The pipeline resumes after
 * the last step the event completed.
 *
 * Idempotent: an event that is not FAILED (already re-driven, pending, TRACED, BOUNDED) is left
 * alone and reported `not-failed` with its status; two concurrent re-drives move it once.
 * Failed jobs of other queues are retried with BullMQ `job.retry()`; a traceback job re-drives its
 * event instead (the event's row is the source of truth: retrying the job alone would find it FAILED).
 */
export class RedriveFeedbackUseCase {
  static readonly inject: InjectMap<RedriveFeedbackDeps> = { feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, queue: TRACEBACK_QUEUE, jobs: FAILED_JOBS };
  constructor(private readonly deps: RedriveFeedbackDeps) {}

  async execute(body: unknown, actor: string) {
    const b = parseRequest(RedriveRequest, body ?? {});
    let ids = b.feedbackIds ? [...new Set(b.feedbackIds.map((s) => s.toLowerCase()))] : [];
    let more = false;
    if (b.all) {
      const all = await this.allFailed(b.collection);
      ids = all.ids;
      more = all.more;
    }
    const events: EventRedriveResult[] = [];
    for (const id of ids) events.push(await this.redriveEvent(id, actor));
    const jobs: JobRedriveResult[] = [];
    for (const j of b.jobs ?? []) jobs.push(await this.redriveJob(j.queue, j.id, actor));
    const redriven = events.filter((e) => e.outcome === 'redriven').length + jobs.filter((j) => j.outcome === 'retried' || (j.outcome === 'event' && j.event.outcome === 'redriven')).length;
    return { redriven, unchanged: events.length + jobs.length - redriven, events, jobs, ...(b.all ? { more } : {}) };
  }

  private async allFailed(collection: string | undefined): Promise<{ ids: string[]; more: boolean }> {
    const ids: string[] = [];
    let after: { updatedAt: Date; id: string } | undefined;
    for (;;) {
      const page = await this.deps.feedback.listStale(['FAILED'], FAR_FUTURE, 200, after);
      for (const r of page) {
        if (collection !== undefined && r.collection !== collection) continue;
        if (ids.length === REDRIVE_ALL_MAX) return { ids, more: true };
        ids.push(r.id);
      }
      if (page.length < 200) return { ids, more: false };
      after = { updatedAt: page[page.length - 1].updatedAt, id: page[page.length - 1].id };
    }
  }

  private async redriveEvent(id: string, actor: string): Promise<EventRedriveResult> {
    const before = await this.deps.feedback.get(id);
    if (!before) return { feedbackId: id, outcome: 'not-found' };
    if (!REDRIVE_TRANSITION.from.includes(before.status)) return { feedbackId: id, outcome: 'not-failed', status: before.status };
    const moved = await this.deps.feedback.transition(id, { from: REDRIVE_TRANSITION.from, to: REDRIVE_TRANSITION.to, set: { failureReason: null } });
    if (!moved) {
      // Another re-drive (or writer) got there first.
      const now = await this.deps.feedback.get(id);
      return { feedbackId: id, outcome: 'not-failed', status: now?.status ?? before.status };
    }
    await this.deps.audit.append({
      actor, action: 'feedback.redriven', entityType: 'FeedbackEvent', entityId: id,
      details: { previousReason: before.failureReason, attempts: before.attempts, step: before.step },
    });
    try {
      const job = this.deps.queue.redriveTraceback ? await this.deps.queue.redriveTraceback(id) : (await this.deps.queue.enqueueTraceback(id), 'added' as const);
      return { feedbackId: id, outcome: 'redriven', status: moved.status, queued: true, job };
    } catch (e) {
      // RECEIVED without a job: the reconciler enqueues it once the queue answers.
      return { feedbackId: id, outcome: 'redriven', status: moved.status, queued: false, job: null, queueError: (e as Error).message.slice(0, 300) };
    }
  }

  private async redriveJob(queue: string, id: string, actor: string): Promise<JobRedriveResult> {
    const job = await this.deps.jobs.get(queue, id);
    if (!job) return { queue, id, outcome: 'not-found' };
    if (job.feedbackId) return { queue, id, outcome: 'event', event: await this.redriveEvent(job.feedbackId, actor) };
    if (job.state !== 'failed') return { queue, id, outcome: 'not-failed', state: job.state };
    const outcome = await this.deps.jobs.retry(queue, id);
    if (outcome === 'retried') {
      await this.deps.audit.append({ actor, action: 'job.retried', entityType: 'QueueJob', entityId: `${queue}:${id}`.slice(0, 300), details: { queue, id, name: job.name, failedReason: job.failedReason, attemptsMade: job.attemptsMade } });
    }
    return { queue, id, outcome };
  }
}
