import { ValidationError } from '../../domain/errors';
import type { AuditSettings } from '../../settings';
import type { Token } from '../../ports/tokens';

/** Where started audit runs are queued (BullMQ `audits` queue in production; the CLI can run inline). */
export interface AuditQueue {
  /** Enqueue one run (idempotent by run id). */
  enqueue(runId: string): Promise<void>;
}

export const AUDIT_QUEUE = Symbol('AuditQueue') as Token<AuditQueue>;

/** Audit settings (CoreSettings.audit; the type lives in settings.ts so the settings import no use-case file). */
export type { AuditSettings } from '../../settings';

export const DEFAULT_AUDIT_SETTINGS: Readonly<AuditSettings> = Object.freeze({ autoQuarantine: false, admission: { enabled: true, topN: 50, answerTopN: 500, maxWatched: 1000 } });

/** A scheduled audit as the scheduler keeps it. */
export interface AuditSchedule { kind: string; collection: string; cron: string; next: string | null; params: Record<string, unknown> }

/** The job schedulers of the audits queue (BullMQ keeps them in Redis; one per (kind, collection)). */
export interface AuditSchedules {
  list(): Promise<AuditSchedule[]>;
  /** Idempotent by (kind, collection): registering again replaces the cron and params. */
  upsert(s: { kind: string; collection: string; cron: string; params: Record<string, unknown> }): Promise<AuditSchedule>;
  /** True when a schedule was removed. */
  remove(kind: string, collection: string): Promise<boolean>;
}

export const AUDIT_SCHEDULES = Symbol('AuditSchedules') as Token<AuditSchedules>;

/**
 * Kinds declared but not run by this version (none today; re-trace was the last). Starting or
 * scheduling one is refused with a 400 that says so.
 */
export const UNBUILT_AUDIT_KINDS: ReadonlySet<string> = new Set<string>([]);

export function assertAuditKindBuilt(kind: string): void {
  if (UNBUILT_AUDIT_KINDS.has(kind)) throw new ValidationError(`kind: the ${kind} audit is not available in this version `);
}
