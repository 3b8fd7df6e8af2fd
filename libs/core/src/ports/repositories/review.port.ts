import type { Token } from '../token';
import type { FeedbackStatus, JsonObject, Label, QuarantineState, RedactionState, Verification } from './records';
import type { ReporterKind } from '../../domain/reporter-kind';

/**
 * The review console's side of the quarantine aggregate (issue 11): queue queries with keyset
 * pagination, claims, reviewer decisions (with the claim check, the decision column and the
 * remembered decision written in the same transaction), idempotent bulk requests, and the read
 * models of the events and audit-log pages. Implemented by Prisma (libs/infra) and by an in-memory
 * fake (@forensics/core/testing); both pass test/review-repository.contract.test.ts.
 */

export type ReviewSort = 'risk' | 'age' | 'newest';
export type DecisionAction = 'approve' | 'restore' | 'purge';
export const REVIEW_STATES: readonly QuarantineState[] = ['NEEDS_REVIEW', 'QUARANTINED', 'RESTORED', 'PURGED'];
/** What a purged text's `text` becomes in Postgres (hash and metadata are kept). */
export const PURGED_TEXT_MARKER = '[purged: text removed by an administrator]';
/** The cache key a purged text's verdicts get: no lookup ever matches it, so a redacted reply is never reused. */
export const PURGED_CACHE_KEY = 'purged';

export interface ReviewFilter {
  /** Absent = every state. */
  states?: readonly QuarantineState[];
  collection?: string;
  feedbackId?: string;
  judgeKind?: string;
  /** createdAt >= from, createdAt < to. */
  from?: Date;
  to?: Date;
  minSuspicion?: number;
  maxSuspicion?: number;
  /** Case-insensitive substring of the text. */
  q?: string;
  /** true: only items a reviewer decided; false: only undecided ones. */
  decided?: boolean;
  /** Only items whose decision carries this reason label (key). */
  reason?: string;
  /** Only items this claimant can decide now: undecided and not held by someone else's live claim ("next I can decide"). */
  decidableBy?: string;
}

/** Position after the last item of a page (keyset), per sort. */
export interface ReviewCursor { sort: ReviewSort; suspicion: number; createdAt: string; id: string }

export interface ReviewClaim { by: string; until: Date }

export interface ReviewItemRow {
  id: string;
  state: QuarantineState;
  documentId: string;
  collection: string;
  /** The app's own id of the text (given at ingest), null when it gave none: what the reviewer knows the text by. */
  externalId: string | null;
  /** The app's metadata of the text as stored (a `source` field is often the strongest clue), null when none. */
  metadata: JsonObject | null;
  textHash: string;
  textPreview: string;
  feedbackId: string | null;
  query: string | null;
  wrongAnswer: string | null;
  judgeKind: string | null;
  judgeLabel: Label | null;
  suspicion: number | null;
  servedDuringReview: boolean;
  createdAt: Date;
  /** 'redact' (issue 35): the claim span was redacted and the redacted version is served in the text's place. */
  decision: DecisionAction | 'redact' | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  note: string | null;
  /** Reason labels (keys) of the decision; empty when undecided or given none. */
  reasons: string[];
  /** The live claim (an expired claim is reported as null). */
  claim: ReviewClaim | null;
}

export interface ReviewPage { rows: ReviewItemRow[]; next: ReviewCursor | null }
export type ReviewCounts = Record<QuarantineState, number>;

/** A remembered decision (ReviewMemory row). */
export interface RememberedDecision {
  id: string;
  collection: string;
  textHash: string;
  queryKey: string;
  wrongAnswerKey: string;
  query: string;
  wrongAnswer: string;
  action: DecisionAction;
  actor: string;
  note: string | null;
  /** Reason labels of the decision (keys). */
  reasons: string[];
  recordId: string;
  at: Date;
}
/** What a decision remembers about the report that led to the record (null when the record has no event). */
export type NewRememberedDecision = Pick<RememberedDecision, 'textHash' | 'queryKey' | 'wrongAnswerKey' | 'query' | 'wrongAnswer'>;

export interface DecideOptions {
  actor: string;
  /** Who holds claims for this actor (the principal's name). */
  claimant: string;
  /** Admins decide items claimed by someone else. */
  override: boolean;
  note?: string;
  /** Reason labels (keys, already checked against the configured list). */
  reasons?: readonly string[];
  /** Bulk: the request that decides. */
  requestId?: string;
  /** Remember the decision for this text and report. */
  remember?: NewRememberedDecision | null;
}

export type DecideResult =
  | { outcome: 'changed'; row: ReviewItemRow }
  /** Nothing to do (already in the target state / already decided so). */
  | { outcome: 'unchanged'; row: ReviewItemRow }
  | { outcome: 'claimed'; row: ReviewItemRow; claim: ReviewClaim }
  /** The action is not possible from the record's state. */
  | { outcome: 'conflict'; row: ReviewItemRow }
  | { outcome: 'missing' };

/** Redaction (issue 35): the decision options plus the redacted version to register. */
export interface RedactOptions extends Omit<DecideOptions, 'requestId' | 'remember'> {
  /** The redacted version: a new document (fresh id) of the record's collection, with the original's external id. */
  version: { id: string; textHash: string; text: string; metadata: Record<string, unknown> | null };
  redaction: Omit<RedactionState, 'documentId' | 'active'>;
}

export type RedactResult =
  | { outcome: 'changed'; row: ReviewItemRow }
  /** Already redacted (an active redaction): nothing written; the caller may complete the store side again. */
  | { outcome: 'unchanged'; row: ReviewItemRow; redaction: RedactionState }
  | { outcome: 'claimed'; row: ReviewItemRow; claim: ReviewClaim }
  /** Purged, or the redacted text is already a document of the collection. */
  | { outcome: 'conflict'; row: ReviewItemRow; reason: string }
  | { outcome: 'missing' };

/** Audit action of a redaction. */
export const REDACT_AUDIT_ACTION = 'review.redacted';

export interface BatchDecided { id: string; documentId: string; collection: string; feedbackId: string | null; state: QuarantineState; storeSynced: boolean }

export interface ClaimResult { outcome: 'claimed' | 'held-by-other' | 'missing'; claim: ReviewClaim | null }

export interface BulkRequestRow {
  requestId: string;
  action: 'approve' | 'restore';
  actor: string;
  ids: string[];
  result: { matched: number; changed: number; skipped: number } | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface ReviewEventFilter { status?: FeedbackStatus; collection?: string; limit: number; after?: { createdAt: string; id: string } }
export interface ReviewEventRow {
  id: string;
  collection: string;
  query: string;
  wrongAnswer: string;
  correctAnswer: string | null;
  reporter: string | null;
  /** Where `reporter` comes from (reporterKindOf): a feedback token's name is self-declared. */
  reporterKind: ReporterKind | null;
  status: FeedbackStatus;
  step: string | null;
  verification: Verification | null;
  createdAt: Date;
  verdicts: Record<Label, number>;
  items: ReviewCounts;
  enhancements: number;
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  entityId?: string;
  /** Substring of the entity id, the actor, the action or the details (case-insensitive). */
  q?: string;
  /** Decision entries carrying this reason label. */
  reason?: string;
  from?: Date;
  to?: Date;
  limit: number;
  /** Entries with a smaller id (newest first). */
  beforeId?: string;
}
/** Audit actions of reviewer decisions, and of an undone decision. */
export const DECISION_AUDIT_ACTIONS: Record<DecisionAction, string> = { approve: 'review.approved', restore: 'quarantine.restored', purge: 'quarantine.purged' };
export const UNDO_AUDIT_ACTION = 'review.undone';

/** What a decision records of the record before it (audit details `prev`), so that it can be undone. */
export interface DecisionPrev {
  state: QuarantineState; decision: string | null; resolvedBy: string | null; resolvedAt: string | null; note: string | null;
  reasons: string[]; servedDuringReview: boolean; documentStatus: string;
}

export type UndoResult =
  | { outcome: 'undone'; row: ReviewItemRow; undid: { auditId: string; action: string; at: Date } }
  /** No decision of this reviewer that can be undone (none, all undone, bulk or purge). */
  | { outcome: 'nothing' }
  /** Someone decided (or undid) the item after this reviewer's decision. */
  | { outcome: 'decided-since'; row: ReviewItemRow; by: string; action: string };

/** Decisions counted for the progress line (audit entries since a time; undos subtract). */
export interface ReviewProgressCounts { mine: number; team: number; reviewers: number }

export interface AuditRow { id: string; at: Date; actor: string; action: string; entityType: string; entityId: string; details: JsonObject | null }

export interface ReviewRepository {
  /** One page of items, in `sort` order, after `cursor`. */
  search(filter: ReviewFilter, page: { sort: ReviewSort; limit: number; after?: ReviewCursor | null }): Promise<ReviewPage>;
  /** Items per state for the filter (its `states` ignored). */
  countByState(filter: ReviewFilter): Promise<ReviewCounts>;
  /** Ids of every item matching the filter (at most `cap`; `capped` says there were more). */
  matchIds(filter: ReviewFilter, cap: number): Promise<{ ids: string[]; capped: boolean }>;
  /** Summaries of these records (unknown ids absent), in no particular order. */
  summaries(ids: readonly string[]): Promise<ReviewItemRow[]>;

  /** Claims (or renews) the item for `by` until now + ttlMs, unless someone else holds a live claim. */
  claim(id: string, by: string, ttlMs: number): Promise<ClaimResult>;
  /** Releases `by`'s claim (no-op otherwise). */
  releaseClaim(id: string, by: string): Promise<void>;

  /**
   * One reviewer decision in one transaction: the conditional state change (checked against the
   * claim), decision columns, document status (purge: text replaced by {@link PURGED_TEXT_MARKER}),
   * the audit entry, the remembered decision; the claim is released. The record is left unsynced
   * when the vector store must change: the caller syncs it (store-sync.ts) and marks it synced.
   */
  decide(id: string, action: DecisionAction, opts: DecideOptions): Promise<DecideResult>;

  /**
   * Bulk: approve or restore many records in ONE transaction with the semantics of `decide` per
   * record (claim check, state plan, document status, one audit entry each, remembered decision),
   * set-based. Returns the records it changed, with whether their store side is still to be synced.
   */
  decideBatch(entries: readonly { id: string; remember: NewRememberedDecision | null }[], action: 'approve' | 'restore', opts: Omit<DecideOptions, 'remember'>): Promise<BatchDecided[]>;

  /**
   * Undoes the reviewer's (`principal`: their name; any of their keys or sessions) most recent
   * single approve / restore not yet undone (of `id` when given), in one transaction: refused when
   * someone decided the item since; otherwise the record gets back its state, decision columns,
   * reasons and serving flag, the document its status, the remembered decision is forgotten and a
   * `review.undone` audit entry is written. The record is left unsynced (the caller syncs the store).
   */
  undoLast(principal: string, actor: string, opts?: { id?: string }): Promise<UndoResult>;

  /**
   * Redaction (issue 35), one transaction: the claim check; refused for a purged record; the redacted
   * version inserted as a new ACTIVE document (its own text hash: the traceback and the verdict cache
   * see a new text); the record QUARANTINED with decision 'redact', its `redaction` set (active), the
   * claim released, unsynced; the original document QUARANTINED (its text kept); a `review.redacted`
   * audit entry. A later approve / restore / purge withdraws the redacted version (`decide`). The caller
   * writes the redacted vector and syncs the store.
   */
  redact(id: string, opts: RedactOptions): Promise<RedactResult>;

  /** Decisions since `since`: by this principal, by everyone, and how many reviewers decided (undos subtract). */
  progress(principal: string, since: Date): Promise<ReviewProgressCounts>;

  /** Remembered decisions for a text, newest first. */
  remembered(collection: string, textHash: string): Promise<RememberedDecision[]>;

  /** Creates the bulk request (ids = the matched set) unless it exists; returns the stored row and whether it was created. */
  beginBulk(b: Omit<BulkRequestRow, 'result' | 'createdAt' | 'finishedAt'>): Promise<{ row: BulkRequestRow; created: boolean }>;
  finishBulk(requestId: string, result: NonNullable<BulkRequestRow['result']>): Promise<void>;
  /** Records decided by this bulk request. */
  countDecidedBy(requestId: string): Promise<number>;

  listEvents(filter: ReviewEventFilter): Promise<ReviewEventRow[]>;
  getEvent(id: string): Promise<ReviewEventRow | null>;
  listAudit(query: AuditQuery): Promise<AuditRow[]>;
  /** Audit entries about any of these entity ids, oldest first. */
  auditFor(entityIds: readonly string[]): Promise<AuditRow[]>;
}

/** What a decision does from a state: the new state and whether the vector store must change. */
export function planDecision(action: DecisionAction, state: QuarantineState, decision: string | null): 'conflict' | 'unchanged' | { to: QuarantineState; storeChanges: boolean } {
  switch (action) {
    case 'approve':
      if (state === 'NEEDS_REVIEW') return { to: 'QUARANTINED', storeChanges: true };
      // Approving a redacted item takes its redacted version out of serving too: the store changes.
      if (state === 'QUARANTINED') return decision === 'approve' ? 'unchanged' : { to: 'QUARANTINED', storeChanges: decision === 'redact' };
      return 'conflict';
    case 'restore':
      if (state === 'QUARANTINED' || state === 'NEEDS_REVIEW') return { to: 'RESTORED', storeChanges: true };
      return state === 'RESTORED' ? 'unchanged' : 'conflict';
    case 'purge':
      return state === 'PURGED' ? 'unchanged' : { to: 'PURGED', storeChanges: true };
  }
}

export const REVIEW = Symbol('ReviewRepository') as Token<ReviewRepository>;

/** A reason label a reviewer attaches to a decision: a stable key (stored, exported, counted) and its text. */
export interface ReasonLabel { key: string; label: string }

/**
 * Default reason labels (REVIEW_REASONS overrides them), fitted to what a reviewer of traced texts
 * decides: why a text is poison (approve) or why it is not (restore). The first nine get keys 1–9.
 */
export const DEFAULT_REASON_LABELS: readonly ReasonLabel[] = [
  { key: 'planted-claim', label: 'Planted claim' },
  { key: 'instruction-injection', label: 'Instruction / prompt injection' },
  { key: 'duplicate', label: 'Duplicate of a decided text' },
  { key: 'outdated-genuine', label: 'Outdated but genuine' },
  { key: 'contested-fact', label: 'Genuinely contested fact' },
  { key: 'judge-misread', label: 'Judge misread the text' },
  { key: 'off-topic', label: 'Unrelated to the report' },
  { key: 'bad-report', label: 'The report itself is wrong' },
  { key: 'other', label: 'Other (see note)' },
];
export const REASON_KEY = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** Review console settings (configuration: REVIEW_CLAIM_TTL_SEC, REVIEW_REASONS). */
export interface ReviewSettings { claimTtlMs: number; reasons: readonly ReasonLabel[] }
export const REVIEW_SETTINGS = Symbol('ReviewSettings') as Token<ReviewSettings>;
export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = { claimTtlMs: 300_000, reasons: DEFAULT_REASON_LABELS };

/**
 * Parses REVIEW_REASONS: `;`-separated `key=Label` entries (key: a-z 0-9 -, at most 40; label at most
 * 80 characters), 1..20 entries, keys unique. Throws with the offending entry.
 */
export function parseReasonLabels(v: string): ReasonLabel[] {
  const out: ReasonLabel[] = [];
  for (const raw of v.split(';').map((s) => s.trim()).filter(Boolean)) {
    const eq = raw.indexOf('=');
    const key = (eq < 0 ? raw : raw.slice(0, eq)).trim();
    const label = (eq < 0 ? '' : raw.slice(eq + 1)).trim();
    if (!REASON_KEY.test(key)) throw new Error(`reason "${raw}": the key must be 1..40 of a-z 0-9 - (starting with a letter or digit)`);
    if (!label || label.length > 80) throw new Error(`reason "${raw}": give key=Label, the label 1..80 characters`);
    if (out.some((r) => r.key === key)) throw new Error(`reason key "${key}" appears twice`);
    out.push({ key, label });
  }
  if (!out.length || out.length > 20) throw new Error('REVIEW_REASONS holds 1..20 key=Label entries separated by ;');
  return out;
}
