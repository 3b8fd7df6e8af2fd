import type { Token } from '../../ports/tokens';

/** Where started audit runs are queued (BullMQ `audits` queue in production; the CLI can run inline). */
export interface AuditQueue {
  /** Enqueue one run (idempotent by run id). */
  enqueue(runId: string): Promise<void>;
}

export const AUDIT_QUEUE = Symbol('AuditQueue') as Token<AuditQueue>;

/** Audit settings (part of CoreSettings.audit). */
export interface AuditSettings {
  /**
   * Whether audit findings may quarantine on their own (AUDIT_AUTO_QUARANTINE). Default false: every
   * finding that points at texts goes to NEEDS_REVIEW, kept in serving, with its evidence.
   */
  autoQuarantine: boolean;
}

export const DEFAULT_AUDIT_SETTINGS: Readonly<AuditSettings> = Object.freeze({ autoQuarantine: false });
