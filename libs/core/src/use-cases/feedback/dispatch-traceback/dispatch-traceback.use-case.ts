import type { FeedbackEventRepository, FeedbackRow } from '../../../ports/repositories';
import { FEEDBACK_EVENTS, TRACEBACK_QUEUE } from '../../../ports/tokens';
import type { TracebackQueue } from '../../../ports/traceback-queue.port';
import type { InjectMap } from '../../../use-case';

export interface DispatchTracebackDeps { feedback: FeedbackEventRepository; queue: TracebackQueue }

/**
 * The one place that hands a persisted event to the queue: enqueue (deterministic job id, so twice
 * is once), then RECEIVED → QUEUED as a compare-and-set — if a worker already moved the event on,
 * it stays where it is. When the queue cannot be reached (the adapter bounds the enqueue in time)
 * the event stays RECEIVED and the reconciler (ReconcilePendingFeedbackUseCase, run by the worker's
 * job scheduler) dispatches it later: an acknowledged report is never lost.
 */
export class DispatchTracebackUseCase {
  static readonly inject: InjectMap<DispatchTracebackDeps> = { feedback: FEEDBACK_EVENTS, queue: TRACEBACK_QUEUE };
  constructor(private readonly deps: DispatchTracebackDeps) {}

  async execute(cmd: { event: FeedbackRow }): Promise<{ event: FeedbackRow; queued: boolean }> {
    const { event } = cmd;
    try {
      await this.deps.queue.enqueueTraceback(event.id);
    } catch {
      return { event, queued: false };
    }
    const moved = await this.deps.feedback.transition(event.id, { from: ['RECEIVED'], to: 'QUEUED' });
    return { event: moved ?? (await this.deps.feedback.get(event.id)) ?? event, queued: true };
  }

  /**
   * The intake's path for an event it has just written as QUEUED (`NewFeedback.status`): one write
   * per report instead of two (the RECEIVED → QUEUED UPDATE was a third of Postgres' work per
   * report, bench:intake). Enqueue; when the queue cannot be reached, QUEUED → RECEIVED (compare-and-
   * set: a worker that already took the job wins) and the reconciler dispatches it later, as above.
   * A process that dies between the row and the job leaves a QUEUED event without a job: the
   * reconciler gives it one after its grace period (`redriveTraceback`, job missing → added).
   */
  async dispatchNew(cmd: { event: FeedbackRow }): Promise<{ event: FeedbackRow; queued: boolean }> {
    const { event } = cmd;
    if (event.status !== 'QUEUED') return this.execute(cmd);
    try {
      await this.deps.queue.enqueueTraceback(event.id);
      return { event, queued: true };
    } catch {
      const back = await this.deps.feedback.transition(event.id, { from: ['QUEUED'], to: 'RECEIVED' });
      return { event: back ?? (await this.deps.feedback.get(event.id)) ?? event, queued: false };
    }
  }
}
