import type { TrustLevel } from '@forensics/algorithms';
import type { Token } from '../token';

/** One report of the same folded (query, wrong answer) in a collection. */
export interface SameReportRow { eventId: string; source: string | null; trust: TrustLevel; createdAt: Date; correctAnswer: string | null }

/**
 * What the decision policy needs to weigh a report (issue 13, item 1): other reports of the same
 * (query, wrong answer) — corroboration — and how many automatic quarantines a reporter made
 * recently — the per-reporter cap. Implemented by Prisma (libs/infra) and an in-memory fake.
 */
export interface ReporterActivityRepository {
  /** Events of `collection` whose report key is `reportKey`, oldest first, at most `limit`. */
  sameReport(collection: string, reportKey: string, limit: number): Promise<SameReportRow[]>;
  /** Quarantine records created since `since` for events of `source` whose policy decision was an automatic QUARANTINE. */
  autoQuarantinesBySource(source: string, since: Date): Promise<number>;
}

export const REPORTER_ACTIVITY = Symbol('ReporterActivityRepository') as Token<ReporterActivityRepository>;
