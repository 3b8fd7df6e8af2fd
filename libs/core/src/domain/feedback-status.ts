import type { FeedbackStatus } from '../ports/repositories';

/**
 * Feedback statuses only move forward: RECEIVED → QUEUED → TRACING → TRACED | BOUNDED | FAILED.
 * Every change is a compare-and-set on the row (FeedbackEventRepository.transition), so a late
 * writer (the sweeper, a slow API request) can never move an event backwards.
 */
export const PENDING_STATUSES: readonly FeedbackStatus[] = ['RECEIVED', 'QUEUED', 'TRACING'];
export const TERMINAL_STATUSES: readonly FeedbackStatus[] = ['TRACED', 'BOUNDED', 'FAILED'];

export function isTerminal(status: FeedbackStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}
