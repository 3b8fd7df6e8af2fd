import { webhookRetryDelayMs } from '@forensics/infra';

/** A failed attempt that the queue retries after `delayMs` (read by the backoff strategy, see webhookBackoffStrategy below). */
export class WebhookRetry extends Error {
  constructor(message: string, readonly delayMs: number) {
    super(message);
    this.name = 'WebhookRetry';
  }
}

/**
 * BullMQ custom backoff of the webhooks queue: the delay the processor already chose and recorded
 * as the delivery's nextAttemptAt (WebhookRetry), else the same jittered exponential formula
 * (an attempt that threw, e.g. Postgres unreachable).
 */
export function webhookBackoffStrategy(baseMs: number) {
  return (attemptsMade: number, _type?: string, err?: Error): number =>
    err instanceof WebhookRetry || (err as WebhookRetry | undefined)?.delayMs !== undefined ? (err as WebhookRetry).delayMs : webhookRetryDelayMs(attemptsMade, baseMs);
}
