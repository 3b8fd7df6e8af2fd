import { PENDING_STATUSES } from '../../../domain/feedback-status';
import type { Clock } from '../../../ports/runtime.port';
import type { FeedbackEventRepository, FeedbackRow } from '../../../ports/repositories';
import { CLOCK, FEEDBACK_EVENTS, TRACEBACK_QUEUE } from '../../../ports/tokens';
import type { RedriveOutcome, TracebackQueue } from '../../../ports/traceback-queue.port';
import type { InjectMap } from '../../../use-case';
import { DispatchTracebackUseCase } from './dispatch-traceback.use-case';

export interface ReconcilePendingFeedbackDeps { feedback: FeedbackEventRepository; dispatch: DispatchTracebackUseCase; queue: TracebackQueue; clock: Clock }

export interface ReconcileResult {
  /** RECEIVED events handed to the queue (persisted while it was unreachable). */
  dispatched: string[];
  /** QUEUED / TRACING events whose job was missing, failed or finished: given a live job again. */
  redriven: { feedbackId: string; outcome: Exclude<RedriveOutcome, 'live'> }[];
  /** Events the queue could not take this time (left for the next run). */
  errors: number;
}

/**
 * The periodic reconciler (run by the worker's job scheduler): the event's row, not the queue, says
 * whether work is pending. Every pending event not updated for `graceMs` (so a request still
 * enqueueing is left alone) gets a live job: RECEIVED → dispatched (enqueue + RECEIVED → QUEUED);
 * QUEUED or TRACING → `redriveTraceback` (job missing → added, in the failed set after a dependency
 * outage → retried with fresh attempts, completed without a terminal status → replaced; waiting,
 * delayed or active → left alone — an active job whose worker died is taken over by BullMQ's stalled
 * check). Idempotent: the job id is deterministic and transitions are compare-and-set.
 */
export class ReconcilePendingFeedbackUseCase {
  static readonly inject: InjectMap<ReconcilePendingFeedbackDeps> = { feedback: FEEDBACK_EVENTS, dispatch: DispatchTracebackUseCase, queue: TRACEBACK_QUEUE, clock: CLOCK };
  constructor(private readonly deps: ReconcilePendingFeedbackDeps) {}

  async execute(cmd: { graceMs?: number; pageSize?: number } = {}): Promise<ReconcileResult> {
    const { feedback } = this.deps;
    const before = new Date(this.deps.clock.now().getTime() - (cmd.graceMs ?? 5_000));
    const pageSize = Math.max(1, cmd.pageSize ?? 500);
    const out: ReconcileResult = { dispatched: [], redriven: [], errors: 0 };
    // Every pending event, oldest first, page by page (keyset on updatedAt, id): an event handled
    // here either moves on (updatedAt now, past `before`) or stays, and the cursor passes it.
    let after: { updatedAt: Date; id: string } | undefined;
    for (;;) {
      const page = await feedback.listStale(PENDING_STATUSES, before, pageSize, after);
      const live = await this.liveOf(page);
      for (const event of page) if (!live.has(event.id)) await this.reconcileOne(event, out);
      if (page.length < pageSize) break;
      const last = page[page.length - 1];
      after = { updatedAt: last.updatedAt, id: last.id };
    }
    return out;
  }

  /**
   * The page's QUEUED / TRACING events whose job is live, in one call when the queue can tell
   * (`liveJobs`): a burst of intake leaves tens of thousands of events QUEUED behind live jobs, and
   * asking about each one every pass kept the reconciler busy for most of its period. Empty when the
   * queue cannot tell or cannot be reached (then every event goes through `reconcileOne`, as before).
   */
  private async liveOf(page: readonly FeedbackRow[]): Promise<Set<string>> {
    const queue = this.deps.queue;
    const ids = page.filter((e) => e.status !== 'RECEIVED').map((e) => e.id);
    if (!ids.length || !queue.liveJobs) return new Set();
    try {
      return await queue.liveJobs(ids);
    } catch {
      return new Set();
    }
  }

  private async reconcileOne(event: FeedbackRow, out: ReconcileResult): Promise<void> {
    const { dispatch, queue } = this.deps;
    try {
      if (event.status === 'RECEIVED') {
        if ((await dispatch.execute({ event })).queued) out.dispatched.push(event.id);
        else out.errors++;
        return;
      }
      if (!queue.redriveTraceback) {
        await queue.enqueueTraceback(event.id);
        return;
      }
      const outcome = await queue.redriveTraceback(event.id);
      if (outcome !== 'live') out.redriven.push({ feedbackId: event.id, outcome });
    } catch {
      out.errors++;
    }
  }
}
