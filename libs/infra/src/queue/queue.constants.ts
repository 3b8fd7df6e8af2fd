import type { JobsOptions } from 'bullmq';

/** Queue names, job names and default job options side by side (one place to read them). */
export const TRACEBACK_QUEUE_NAME = 'traceback';
export const TRACEBACK_JOB = 'TracebackJob';

/** Payload of a traceback job: the feedback id only; Postgres holds everything else (including the pipeline step). */
export interface TracebackJobData {
  feedbackId: string;
}

/** BullMQ custom job ids may not contain ':'. One job per event: enqueueing twice is a no-op. */
export function tracebackJobId(feedbackId: string): string {
  return `trace-${feedbackId}`;
}

export function tracebackJobOptions(attempts: number, backoffMs: number): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs },
    removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}

/**
 * The maintenance queue: one job scheduler (one id, so registering it again — a restart, a second
 * worker — updates it instead of adding another) that runs the reconciler every SWEEP_EVERY_MS.
 */
export const MAINTENANCE_QUEUE_NAME = 'maintenance';
export const RECONCILE_JOB = 'ReconcilePendingFeedback';
export const RECONCILE_SCHEDULER_ID = 'reconcile-pending-feedback';

/** Webhook deliveries (issue 14): one job per delivery id, plus the outbox sweep's job scheduler (libs/infra/src/webhooks). */
export const WEBHOOK_QUEUE_NAME = 'webhooks';
