import type { ScanGraph } from '../domain/scan-graph';
import type { Token } from './tokens';

/**
 * Scheduled database audits (issue 12): the shapes every audit kind and the audit runner share.
 *
 * An audit run is a first-class record (Postgres `AuditRun`): kind, collection, parameters, status,
 * persisted progress + a resumable cursor, counts, findings, who started it. The runner (one BullMQ
 * job per run, `audits` queue) loads the run, hands the kind's handler an `AuditContext`, and the
 * handler checkpoints as it goes: a run killed mid-way is picked up again by the retried job and the
 * handler continues from `ctx.cursor()`.
 */
export const AUDIT_KINDS = ['reconcile', 'sibling-sweep', 're-trace', 'cluster-scan'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export type AuditStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
export type AuditTrigger = 'schedule' | 'api' | 'cli' | 'ingest';

export interface AuditProgress {
  /** Units done / total in the current phase (total null when unknown yet). */
  done: number;
  total: number | null;
  /** Human-readable phase, e.g. "listing points", "judging neighbours". */
  phase?: string;
}

export interface AuditRunRow {
  id: string;
  kind: AuditKind;
  collection: string;
  /** Kind-specific parameters (validated by the kind's zod schema when the run is created). */
  params: Record<string, unknown>;
  status: AuditStatus;
  trigger: AuditTrigger;
  /** Actor string (`user:<name> key:<id>`, `scheduler:<kind>`, `cli`). */
  startedBy: string;
  progress: AuditProgress;
  /** Opaque, kind-defined resume point (JSON). Null = start from the beginning. */
  cursor: unknown;
  /** Kind-defined counters, e.g. {pointsChecked, missingFlag, repaired, reported}. */
  counts: Record<string, number>;
  findingsCount: number;
  error: string | null;
  /** A cancel was asked while the run was RUNNING: the handler stops at its next checkpoint. */
  cancelRequested: boolean;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** What a finding did: repaired (one right answer, fixed), reported (needs a human, nothing changed), review (NEEDS_REVIEW records created), quarantined (the policy allowed auto-quarantine). */
export type FindingAction = 'repaired' | 'reported' | 'review' | 'quarantined';

export interface NewAuditFinding {
  /** Kind-specific finding type, e.g. 'flag-missing', 'point-unknown', 'sibling', 'admission', 'suspicious-group'. */
  type: string;
  action: FindingAction;
  /** Documents (point ids) concerned, possibly empty (e.g. a proxy without its enhancement). */
  documentIds: string[];
  /** Quarantine/review records created for this finding (links into the review console). */
  quarantineIds?: string[];
  /** Suspicion / group score in [0,1] when the kind has one. */
  score?: number | null;
  /** Evidence and explanation (JSON; untrusted texts stay data, rendered as text). */
  detail: Record<string, unknown>;
}

export interface AuditFindingRow extends NewAuditFinding {
  id: string;
  runId: string;
  quarantineIds: string[];
  score: number | null;
  createdAt: Date;
}

/** Thrown by `checkpoint` when the run was cancelled; the runner marks it CANCELLED. */
export class AuditCancelledError extends Error {
  constructor(runId: string) {
    super(`audit run ${runId} was cancelled`);
    this.name = 'AuditCancelledError';
  }
}

/** Given to a kind's handler by the runner. */
export interface AuditContext {
  readonly run: Readonly<AuditRunRow>;
  /** The resume point persisted by the last checkpoint (null on a fresh run). */
  cursor<T>(): T | null;
  /**
   * Persists progress, cursor and counts (counts are merged: given keys replace). Call it at least
   * every few seconds of work; it is where a killed run resumes from. Throws AuditCancelledError
   * when the run was cancelled.
   */
  checkpoint(update: { cursor?: unknown; progress?: AuditProgress; counts?: Record<string, number> }): Promise<void>;
  /** Records a finding. Findings written before a crash stay (handlers make re-found findings idempotent by their own key if needed). */
  finding(f: NewAuditFinding): Promise<AuditFindingRow>;
  /**
   * Sends documents to review as NEEDS_REVIEW quarantine records (feedbackId null, reason and evidence
   * given) — or quarantines them when the audit decision policy allows it for this kind (default: never).
   * Returns the created records' ids and the state they got. Already-active records are not duplicated.
   */
  review(input: { documentIds: string[]; reason: string; evidence: Record<string, unknown>; withhold?: boolean }): Promise<{ quarantineIds: string[]; state: 'NEEDS_REVIEW' | 'QUARANTINED' }>;
  log(message: string, fields?: Record<string, unknown>): void;
}

/**
 * One audit kind. Implemented as a core class with `static inject` (like a use case) and listed in
 * USE_CASES so the composition root builds it; the runner injects every kind by class.
 */
export interface AuditKindHandler {
  readonly kind: AuditKind;
  /** Runs (or resumes) the audit; returns when done. Counts given at the last checkpoint are the run's counts. */
  execute(ctx: AuditContext): Promise<void>;
}

export interface AuditRunFilter { kind?: AuditKind; collection?: string; status?: AuditStatus; limit?: number; before?: string }

export interface AuditRunRepository {
  create(input: { kind: AuditKind; collection: string; params: Record<string, unknown>; trigger: AuditTrigger; startedBy: string }): Promise<AuditRunRow>;
  get(id: string): Promise<AuditRunRow | null>;
  list(filter: AuditRunFilter): Promise<AuditRunRow[]>;
  /** QUEUED|RUNNING → RUNNING (sets startedAt once). Returns null when the run is finished or cancelled. */
  markRunning(id: string): Promise<AuditRunRow | null>;
  checkpoint(id: string, update: { cursor?: unknown; progress?: AuditProgress; counts?: Record<string, number> }): Promise<AuditRunRow>;
  finish(id: string, status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED', error?: string | null): Promise<AuditRunRow>;
  /** QUEUED → CANCELLED at once; RUNNING → cancelRequested (the handler stops at its next checkpoint). Null when unknown. */
  cancel(id: string): Promise<AuditRunRow | null>;
  /** Runs left RUNNING or QUEUED (e.g. by a worker that died before its job was retried), oldest first. */
  listUnfinished(limit: number): Promise<AuditRunRow[]>;
  addFinding(runId: string, f: NewAuditFinding): Promise<AuditFindingRow>;
  listFindings(runId: string, opts: { limit: number; after?: string }): Promise<AuditFindingRow[]>;
  /** The cluster scan's persisted k-NN lists of a collection (empty when none were kept). */
  loadScanGraph(collection: string): Promise<ScanGraph>;
  /** Replaces the collection's graph with this one (a scan run holds every served text's list, so it writes them all). */
  replaceScanGraph(collection: string, graph: ScanGraph): Promise<void>;
}

export const AUDIT_RUNS = Symbol('AuditRunRepository') as Token<AuditRunRepository>;
