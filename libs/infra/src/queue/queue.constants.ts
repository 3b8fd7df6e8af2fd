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

/** Database audits (issue 12): one job per run (jobId audit-<runId>), plus one job scheduler per scheduled (kind, collection). */
export const AUDIT_QUEUE_NAME = 'audits';
export const AUDIT_RUN_JOB = 'AuditRun';
export const AUDIT_SCHEDULED_JOB = 'ScheduledAudit';
export interface AuditJobData { runId?: string; kind?: string; collection?: string; params?: Record<string, unknown> }
export const auditJobId = (runId: string): string => `audit-${runId}`;
export const auditSchedulerId = (kind: string, collection: string): string => `audit-${kind}-${collection}`;
/** Attempts of an audit job: a killed worker's run is retried and resumes from its cursor. */
export const AUDIT_JOB_OPTIONS = {
  attempts: 5, backoff: { type: 'exponential', delay: 5000 },
  removeOnComplete: { age: 7 * 24 * 3600, count: 1000 }, removeOnFail: { age: 30 * 24 * 3600 },
} as const;
