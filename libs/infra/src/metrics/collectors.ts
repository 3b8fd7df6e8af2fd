import type { Queue } from 'bullmq';
import type { PrismaClient } from '../prisma/prisma-client';
import type { ForensicsMetrics } from './metrics';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
const QUARANTINE_STATES = ['QUARANTINED', 'NEEDS_REVIEW', 'RESTORED', 'PURGED'] as const;

/** Per-queue job counts, read from Redis (BullMQ getJobCounts) on every scrape. */
export function registerQueueCollectors(metrics: ForensicsMetrics, queues: readonly Queue[]): void {
  metrics.gauge('forensics_queue_jobs', 'Jobs per queue and state (waiting, active, delayed, failed), read from Redis on scrape', ['queue', 'state'], async (g) => {
    g.reset();
    for (const q of queues) {
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
  metrics.collectedCounter('forensics_review_approvals_total', 'Texts awaiting review approved into quarantine, from the audit log', [], async () => [[{}, await audited('review.approved')]]);
  metrics.gauge('forensics_quarantine_records', 'Quarantine records by state (NEEDS_REVIEW is the review backlog)', ['state'], async (g) => {
    const rows = await prisma.quarantineRecord.groupBy({ by: ['state'], _count: { _all: true } });
    for (const s of QUARANTINE_STATES) g.set({ state: s }, rows.find((r) => r.state === s)?._count._all ?? 0);
  });
}
