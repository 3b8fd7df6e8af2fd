import type { TrustLevel } from '@forensics/algorithms';
import type { ReporterActivityRepository, SameReportRow } from '@forensics/core';
import type { PrismaClient } from '../generated/client';

/** Corroboration and per-reporter cap queries (issue 13) over FeedbackEvent and QuarantineRecord. */
export class PrismaReporterActivityRepository implements ReporterActivityRepository {
  constructor(private readonly db: PrismaClient) {}

  async sameReport(collection: string, reportKey: string, limit: number): Promise<SameReportRow[]> {
    if (limit <= 0) return [];
    // Index FeedbackEvent(collection, reportKey).
    const rows = await this.db.feedbackEvent.findMany({
      where: { collection, reportKey }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit,
      select: { id: true, reporterSource: true, trust: true, createdAt: true, correctAnswer: true },
    });
    return rows.map((r) => ({ eventId: r.id, source: r.reporterSource, trust: r.trust as TrustLevel, createdAt: r.createdAt, correctAnswer: r.correctAnswer }));
  }

  async autoQuarantinesBySource(source: string, since: Date): Promise<number> {
    return this.db.quarantineRecord.count({
      where: { createdAt: { gte: since }, feedback: { reporterSource: source }, evidence: { path: ['policy', 'decision'], equals: 'QUARANTINE' } },
    });
  }
}
