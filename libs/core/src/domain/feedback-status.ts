import type { FeedbackStatus } from '../ports/repositories';

/**
 * Feedback statuses move forward: RECEIVED → QUEUED → TRACING → TRACED | BOUNDED | FAILED.
 * Every change is a compare-and-set on the row (FeedbackEventRepository.transition), so a late
 * writer (the sweeper, a slow API request) can never move an event backwards.
 *
 * The one deliberate exception is the re-drive of a dead letter (issue 14): an admin moves a
 * FAILED event back to RECEIVED ({@link REDRIVE_TRANSITION}), once the cause is fixed. It is a
 * compare-and-set from FAILED only, so two re-drives (or a re-drive racing anything else) move it
 * once, and TRACED / BOUNDED events are never re-opened. The failure stays in the audit log
 * (`traceback.failed` per failure, `feedback.redriven` per re-drive).
 *
 * The other exception is the intake's own: a new event is written as QUEUED and its job added right
 * after (DispatchTracebackUseCase.dispatchNew, one write per report); if the queue cannot be
 * reached, the same request moves it QUEUED → RECEIVED (compare-and-set: a worker that already took
 * the job wins), so RECEIVED keeps meaning "no job yet" for the reconciler.
 */
export const PENDING_STATUSES: readonly FeedbackStatus[] = ['RECEIVED', 'QUEUED', 'TRACING'];
export const TERMINAL_STATUSES: readonly FeedbackStatus[] = ['TRACED', 'BOUNDED', 'FAILED'];

export function isTerminal(status: FeedbackStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** FAILED → RECEIVED: the only backwards move, made by RedriveFeedbackUseCase. */
export const REDRIVE_TRANSITION = { from: ['FAILED'] as readonly FeedbackStatus[], to: 'RECEIVED' as FeedbackStatus } as const;
