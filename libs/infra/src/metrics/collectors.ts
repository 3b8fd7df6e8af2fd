import type { Job, Queue, Worker } from 'bullmq';
import type { PrismaClient } from '../prisma/prisma-client';
import type { ForensicsMetrics } from './metrics';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
const QUARANTINE_STATES = ['QUARANTINED', 'NEEDS_REVIEW', 'RESTORED', 'PURGED'] as const;

/**
 * Per-queue job counts, read from Redis (BullMQ getJobCounts) on every scrape, for every queue the
 * process registered (`queues` is called on each scrape: the QueueRegistry discovers them in the
 * Nest container, so a queue added later — webhooks — is counted without a list to maintain).
 */
export function registerQueueCollectors(metrics: ForensicsMetrics, queues: readonly Queue[] | (() => readonly Queue[])): void {
  metrics.gauge('forensics_queue_jobs', 'Jobs per queue and state (waiting, active, delayed, failed), read from Redis on scrape', ['queue', 'state'], async (g) => {
    g.reset();
    for (const q of typeof queues === 'function' ? queues() : queues) {
      const counts = await q.getJobCounts(...QUEUE_STATES);
      for (const s of QUEUE_STATES) g.set({ queue: q.name, state: s }, counts[s] ?? 0);
    }
  });
}

/**
 * Quarantine series read from Postgres on every scrape, so they are right whichever process
 * (API or worker) made the change: the counters come from the append-only audit log, the backlog
 * from the records' states.
 */
export function registerQuarantineCollectors(metrics: ForensicsMetrics, prisma: PrismaClient): void {
  const audited = async (action: string) => prisma.auditLog.count({ where: { entityType: 'QuarantineRecord', action } });
  metrics.collectedCounter('forensics_quarantines_created_total', 'Quarantine records created, by initial state (QUARANTINED, or NEEDS_REVIEW for review), from the audit log', ['state'], async () => [
    [{ state: 'QUARANTINED' }, await audited('quarantine.created')],
    [{ state: 'NEEDS_REVIEW' }, await audited('review.requested')],
  ]);
  metrics.collectedCounter('forensics_quarantine_restores_total', 'Quarantined texts restored to serving, from the audit log', [], async () => [[{}, await audited('quarantine.restored')]]);
  metrics.collectedCounter('forensics_quarantine_purges_total', 'Quarantined texts purged for good (admin), from the audit log', [], async () => [[{}, await audited('quarantine.purged')]]);
  metrics.collectedCounter('forensics_review_approvals_total', 'Texts awaiting review approved into quarantine, from the audit log', [], async () => [[{}, await audited('review.approved')]]);
  metrics.collectedCounter('forensics_review_decisions_by_reason_total', 'Reviewer decisions by action and reason label (a decision with several labels counts under each; undos do not subtract), from the audit log', ['action', 'reason'], async () => {
    const rows = await prisma.$queryRaw<{ action: string; reason: string; n: bigint }[]>`
      SELECT a."action", r.reason, COUNT(*)::bigint AS n
      FROM "AuditLog" a CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(a."details"->'reasons') = 'array' THEN a."details"->'reasons' ELSE '[]'::jsonb END) AS r(reason)
      WHERE a."entityType" = 'QuarantineRecord' AND a."action" IN ('review.approved', 'quarantine.restored', 'quarantine.purged', 'review.redacted')
      GROUP BY 1, 2`;
    const verb: Record<string, string> = { 'review.approved': 'approve', 'quarantine.restored': 'restore', 'quarantine.purged': 'purge', 'review.redacted': 'redact' };
    return rows.map((r) => [{ action: verb[r.action] ?? r.action, reason: r.reason }, Number(r.n)] as [Record<string, string>, number]);
  });
  metrics.collectedCounter('forensics_review_redactions_total', 'Claim spans redacted instead of quarantining the text (issue 35), from the audit log', [], async () => [[{}, await audited('review.redacted')]]);
  metrics.collectedCounter('forensics_review_undos_total', 'Reviewer decisions undone ("undo my last decision"), from the audit log', [], async () => [[{}, await audited('review.undone')]]);
  metrics.gauge('forensics_quarantine_records', 'Quarantine records by state (NEEDS_REVIEW is the review backlog)', ['state'], async (g) => {
    const rows = await prisma.quarantineRecord.groupBy({ by: ['state'], _count: { _all: true } });
    for (const s of QUARANTINE_STATES) g.set({ state: s }, rows.find((r) => r.state === s)?._count._all ?? 0);
  });
}

/**
 * Every series read from Postgres on scrape: the quarantine series above, the dead letters
 * (FAILED feedback events; failed jobs are `forensics_queue_jobs{state="failed"}`) and the
 * database audits (issue 12: runs by kind and status, findings by kind, type and action, and the
 * duration of finished runs), read from the AuditRun / AuditFinding tables so they are right
 * whichever worker ran the audit. A series appears once a run of its label set exists.
 */
export function registerDatabaseCollectors(metrics: ForensicsMetrics, prisma: PrismaClient): void {
  registerQuarantineCollectors(metrics, prisma);
  metrics.collectedCounter('forensics_audit_runs_total', 'Database audit runs by kind and status (QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED), from Postgres', ['kind', 'status'], async () => {
    const rows = await prisma.auditRun.groupBy({ by: ['kind', 'status'], _count: { _all: true } });
    return rows.map((r) => [{ kind: r.kind, status: r.status }, r._count._all] as [Record<string, string>, number]);
  });
  metrics.collectedCounter('forensics_audit_findings_total', 'Database audit findings by kind, finding type and action (repaired, reported, review, quarantined), from Postgres', ['kind', 'type', 'action'], async () => {
    const rows = await prisma.$queryRaw<{ kind: string; type: string; action: string; n: bigint }[]>`
      SELECT r."kind", f."type", f."action", COUNT(*)::bigint AS n FROM "AuditFinding" f JOIN "AuditRun" r ON r."id" = f."runId" GROUP BY 1, 2, 3`;
    return rows.map((r) => [{ kind: r.kind, type: r.type, action: r.action }, Number(r.n)] as [Record<string, string>, number]);
  });
  metrics.gauge('forensics_audit_last_run_seconds', 'Wall time of the last finished run of each audit kind (seconds), from Postgres', ['kind'], async (g) => {
    const rows = await prisma.$queryRaw<{ kind: string; s: number }[]>`
      SELECT DISTINCT ON ("kind") "kind", EXTRACT(EPOCH FROM ("finishedAt" - COALESCE("startedAt", "createdAt")))::float8 AS s
      FROM "AuditRun" WHERE "finishedAt" IS NOT NULL ORDER BY "kind", "finishedAt" DESC`;
    for (const r of rows) g.set({ kind: r.kind }, r.s);
  });
  metrics.gauge('forensics_dead_letter_events', 'Feedback events in FAILED (dead letters awaiting a re-drive: GET /v1/dead-letters), read from Postgres on scrape', [], async (g) => {
    g.set(await prisma.feedbackEvent.count({ where: { status: 'FAILED' } }));
  });
}

/** The job-timing part of a BullMQ job (both Job and the worker's event payloads carry these). */
type TimedJob = Pick<Job, 'timestamp' | 'processedOn' | 'finishedOn' | 'delay'>;

/** Observes one finished attempt of `job` into the wait and processing histograms. */
export function observeJobTiming(metrics: ForensicsMetrics, queue: string, outcome: 'completed' | 'failed', job: TimedJob, now = Date.now()): void {
  if (!job.processedOn) return; // never started (e.g. failed while still waiting): nothing to time
  const ready = job.timestamp + (job.delay ?? 0);
  metrics.queueWait.observe({ queue, outcome }, Math.max(0, job.processedOn - ready) / 1000);
  metrics.queueProcessing.observe({ queue, outcome }, Math.max(0, (job.finishedOn ?? now) - job.processedOn) / 1000);
}

/**
 * Times every attempt a worker of this process finishes (its `completed` and `failed` events):
 * each process counts the jobs it ran, so the series sum correctly over several workers, and no
 * job is observed twice (QueueEvents would deliver every job to every listening process).
 */
export function observeWorkerTimings(metrics: ForensicsMetrics, worker: Worker): () => void {
  const queue = worker.name;
  const completed = (job: Job) => observeJobTiming(metrics, queue, 'completed', job);
  const failed = (job: Job | undefined) => { if (job) observeJobTiming(metrics, queue, 'failed', job); };
  worker.on('completed', completed);
  worker.on('failed', failed);
  return () => { worker.off('completed', completed); worker.off('failed', failed); };
}
