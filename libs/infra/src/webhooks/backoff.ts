/** BullMQ backoff type name of webhook jobs (the worker registers the strategy under it). */
export const WEBHOOK_BACKOFF_TYPE = 'webhook-jitter';

/**
 * Delay before attempt `attemptsMade + 1` (attemptsMade ≥ 1 failed attempts so far): exponential
 * with "equal jitter" — half of base·2^(n-1) fixed, the other half random — so retries of many
 * deliveries spread out while every gap is at least as long as the largest possible previous one.
 */
export function webhookRetryDelayMs(attemptsMade: number, baseMs: number, random: () => number = Math.random): number {
  const cap = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  return Math.round(cap / 2 + random() * (cap / 2));
}
