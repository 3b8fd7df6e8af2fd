import type { Clock } from '../../ports/runtime.port';
import type { FeedbackEventRepository } from '../../ports/repositories';
import { CLOCK, FEEDBACK_EVENTS } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';
import { DispatchTracebackUseCase } from './dispatch-traceback.use-case';

export interface SweepUnqueuedFeedbackDeps { feedback: FeedbackEventRepository; dispatch: DispatchTracebackUseCase; clock: Clock }

/**
 * Dispatches events persisted but never enqueued (the queue was down when they arrived). The worker
 * now runs ReconcilePendingFeedbackUseCase instead, which also re-drives QUEUED / TRACING events
 * without a live job; this narrower sweep is kept for callers that only want RECEIVED handled.
 */
export class SweepUnqueuedFeedbackUseCase {
  static readonly inject: InjectMap<SweepUnqueuedFeedbackDeps> = { feedback: FEEDBACK_EVENTS, dispatch: DispatchTracebackUseCase, clock: CLOCK };
  constructor(private readonly deps: SweepUnqueuedFeedbackDeps) {}

  /** Events older than `graceMs` (so a request still enqueueing is left alone); returns the ids dispatched. */
  async execute(cmd: { graceMs?: number; limit?: number } = {}): Promise<string[]> {
    const before = new Date(this.deps.clock.now().getTime() - (cmd.graceMs ?? 5_000));
    const stuck = await this.deps.feedback.listStale(['RECEIVED'], before, cmd.limit ?? 100);
    const dispatched: string[] = [];
    for (const event of stuck) if ((await this.deps.dispatch.execute({ event })).queued) dispatched.push(event.id);
    return dispatched;
  }
}
