import type { TrustLevel } from '@forensics/algorithms';
import type { ReporterActivityRepository, SameReportRow } from '../ports/repositories';
import type { InMemoryState } from './in-memory-state';

/** The in-memory ReporterActivityRepository over the shared state (same answers as the Prisma one). */
export class InMemoryReporterActivityRepository implements ReporterActivityRepository {
  constructor(private readonly s: InMemoryState) {}

  async sameReport(collection: string, reportKey: string, limit: number): Promise<SameReportRow[]> {
    if (limit <= 0) return [];
    return [...this.s.feedback.values()]
      .filter((f) => f.collection === collection && f.reportKey === reportKey)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((f) => ({ eventId: f.id, source: f.reporterSource ?? null, trust: (f.trust ?? 'anonymous') as TrustLevel, createdAt: new Date(f.createdAt.getTime()), correctAnswer: f.correctAnswer }));
  }

  async autoQuarantinesBySource(source: string, since: Date): Promise<number> {
    let n = 0;
    for (const q of this.s.quarantines.values()) {
      if (q.createdAt < since || !q.feedbackId) continue;
      if (this.s.feedback.get(q.feedbackId)?.reporterSource !== source) continue;
      if ((q.evidence as { policy?: { decision?: unknown } } | null)?.policy?.decision === 'QUARANTINE') n++;
    }
    return n;
  }
}
