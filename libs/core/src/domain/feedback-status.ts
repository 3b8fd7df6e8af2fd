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
 */
export const PENDING_STATUSES: readonly FeedbackStatus[] = ['RECEIVED', 'QUEUED', 'TRACING'];
export const TERMINAL_STATUSES: readonly FeedbackStatus[] = ['TRACED', 'BOUNDED', 'FAILED'];

export function isTerminal(status: FeedbackStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** FAILED → RECEIVED: the only backwards move, made by RedriveFeedbackUseCase. */
export const REDRIVE_TRANSITION = { from: ['FAILED'] as readonly FeedbackStatus[], to: 'RECEIVED' as FeedbackStatus } as const;
