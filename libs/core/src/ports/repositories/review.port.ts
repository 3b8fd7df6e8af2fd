import type { Token } from '../token';
import type { FeedbackStatus, JsonObject, Label, QuarantineState, Verification } from './records';

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
}

/** Position after the last item of a page (keyset), per sort. */
export interface ReviewCursor { sort: ReviewSort; suspicion: number; createdAt: string; id: string }

export interface ReviewClaim { by: string; until: Date }

export interface ReviewItemRow {
  id: string;
  state: QuarantineState;
  documentId: string;
  collection: string;
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
  decision: DecisionAction | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  note: string | null;
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
  from?: Date;
  to?: Date;
  limit: number;
  /** Entries with a smaller id (newest first). */
  beforeId?: string;
}
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
      if (state === 'QUARANTINED') return decision === 'approve' ? 'unchanged' : { to: 'QUARANTINED', storeChanges: false };
      return 'conflict';
    case 'restore':
      if (state === 'QUARANTINED' || state === 'NEEDS_REVIEW') return { to: 'RESTORED', storeChanges: true };
      return state === 'RESTORED' ? 'unchanged' : 'conflict';
    case 'purge':
      return state === 'PURGED' ? 'unchanged' : { to: 'PURGED', storeChanges: true };
  }
}

export const REVIEW = Symbol('ReviewRepository') as Token<ReviewRepository>;

/** Review console settings (configuration: REVIEW_CLAIM_TTL_SEC). */
export interface ReviewSettings { claimTtlMs: number }
export const REVIEW_SETTINGS = Symbol('ReviewSettings') as Token<ReviewSettings>;
export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = { claimTtlMs: 300_000 };
