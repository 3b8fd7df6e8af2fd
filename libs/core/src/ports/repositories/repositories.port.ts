import type { TrustLevel } from '@forensics/algorithms';
import type {
  ApiKeyFilter, ApiKeyRow, NewApiKey, NewSession, NewUser, SessionRow, UserRow,
} from './records';
import type {
  AnswerRow, AuditEntry, AuditRecord, CollectionRow, DocumentRow, EnhancementFilter, EnhancementRow, FeedbackPatch, FeedbackRow,
  FeedbackStatus, NewAnswer, NewDocument, NewEnhancement, NewFeedback, NewQuarantine, NewVerdict, QuarantineFilter, QuarantineRow, VerdictRow,
} from './records';

/**
 * One repository per aggregate. The Prisma adapters (libs/infra) and the in-memory fakes
 * (@forensics/core/testing) implement these and pass one contract suite
 * (test/repositories.contract.test.ts), so use-case tests on the fakes hold for Postgres.
 * Ids that are not UUIDs are simply not found (never an error).
 */

/** Collections and the texts registered in them. */
export interface DocumentRepository {
  getCollection(name: string): Promise<CollectionRow | null>;
  /**
   * Creates the row if missing; returns the stored row (which may differ from `c` if it existed). A collection whose
   * name differs from `c.name` only in case counts as existing: it is returned, with its own spelling, and no second
   * row is created (issue 56, 7c: names become directory names, which a case-insensitive filesystem folds).
   * `getCollection` stays exact.
   */
  ensureCollection(c: CollectionRow): Promise<CollectionRow>;
  /** Every collection, by name, with its registered texts counted. */
  listCollections(): Promise<(CollectionRow & { documents: number })[]>;
  /** Sets (or clears, with null) the collection's vetted baseline; the updated row, or null for an unknown collection. */
  setVettedBefore(name: string, before: Date | null): Promise<CollectionRow | null>;
  findByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]>;
  /** Inserts rows whose id and (collection, textHash) are new; returns how many were inserted. */
  insert(rows: readonly NewDocument[]): Promise<number>;
  /** Rows for the given ids (unknown ids are absent), in no particular order. */
  get(ids: readonly string[]): Promise<DocumentRow[]>;
  count(collection: string): Promise<number>;
  /** How many of the collection's texts were registered before `before` (the vetted baseline's size). */
  countRegisteredBefore(collection: string, before: Date): Promise<number>;
  /** The collection's texts ordered by id, `after` = the previous page's last id (audits: reconcile). */
  listPage(collection: string, opts: { after?: string | null; limit: number }): Promise<DocumentRow[]>;
}

/** "Wrong answer" reports and their progress through the pipeline. */
export interface FeedbackEventRepository {
  /** Idempotent by key: an existing event with the same key is returned with created=false. */
  create(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }>;
  get(id: string): Promise<FeedbackRow | null>;
  /** The event created from a logged answer, if any (one token → at most one event). */
  findByAnswer(answerId: string): Promise<FeedbackRow | null>;
  /**
   * Compare-and-set status change: applied only while the event's status is one of `from`
   * (atomically), with `set` written in the same statement and `attempts` incremented when asked.
   * Returns the updated row, or null when the status was elsewhere (nothing written).
   */
  transition(id: string, change: { from: readonly FeedbackStatus[]; to: FeedbackStatus; set?: FeedbackPatch; incrementAttempts?: boolean }): Promise<FeedbackRow | null>;
  /** Writes fields that are not the status (progress, step, verification, correct answer). */
  update(id: string, patch: FeedbackPatch): Promise<void>;
  /**
   * Events in one of `statuses` last updated before `updatedBefore`, oldest first (updatedAt, then
   * id); `after` (the last row of the previous page) pages through them.
   */
  listStale(statuses: readonly FeedbackStatus[], updatedBefore: Date, limit: number, after?: { updatedAt: Date; id: string }): Promise<FeedbackRow[]>;
  /**
   * A collection's events whose reporter trust is one of `trust`, newest first (createdAt, then id,
   * both descending), at most `limit`; `before` (the last row of the previous page) pages on (the audits' watchlist).
   */
  listRecent(collection: string, opts: { trust: readonly TrustLevel[]; limit: number; before?: { createdAt: Date; id: string } }): Promise<FeedbackRow[]>;
}

/** Judge verdicts of one event, and the cross-event verdict cache. */
export interface VerdictRepository {
  list(feedbackId: string): Promise<VerdictRow[]>;
  /** Most recent non-cached, labelled (YES/NO) verdict with this cache key from ANY event. */
  findByCacheKey(cacheKey: string): Promise<VerdictRow | null>;
  /** Upsert on (feedbackId, documentId): a retried job that re-judges overwrites, never duplicates. */
  save(v: NewVerdict): Promise<void>;
}

/** Quarantine records (state machine QUARANTINED / NEEDS_REVIEW / RESTORED / PURGED). */
export interface QuarantineRepository {
  /**
   * In one transaction: a record (unless one is active for the document already), the document's
   * status, an audit entry. The caller then updates the vector store and calls `markSynced`.
   */
  create(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }>;
  markSynced(id: string): Promise<void>;
  get(id: string): Promise<QuarantineRow | null>;
  list(filter: QuarantineFilter): Promise<QuarantineRow[]>;
  /** In one transaction: RESTORED (unsynced), document ACTIVE, audit entry. No-op unless active. */
  restore(id: string, actor: string, note?: string): Promise<QuarantineRow>;
  /** NEEDS_REVIEW → QUARANTINED (unsynced), document QUARANTINED, audit entry. No-op otherwise. */
  approve(id: string, actor: string, note?: string): Promise<QuarantineRow>;
}

/** Answers a RAG gave (built-in or logged by an external RAG). */
export interface AnswerRepository {
  create(a: NewAnswer): Promise<AnswerRow>;
  get(id: string): Promise<AnswerRow | null>;
  /** Logged answers of a collection that served at least one of these texts, newest first (the cluster scan's answer-log tracebacks). */
  listServing(collection: string, documentIds: readonly string[], limit: number): Promise<AnswerRow[]>;
}

/** Benign-text enhancements and their retrieval proxies. */
export interface EnhancementRepository {
  /** Creates the row and its audit entry in one transaction. */
  create(e: NewEnhancement): Promise<EnhancementRow>;
  get(id: string): Promise<EnhancementRow | null>;
  list(filter: EnhancementFilter): Promise<EnhancementRow[]>;
  /** Active enhancements by proxy id. */
  findActiveByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]>;
  /** ACTIVE or PROPOSED → DELETED with actor and time, audited, in one transaction. */
  markDeleted(id: string, actor: string): Promise<EnhancementRow>;
  /**
   * PROPOSED → ACTIVE with actor and time, audited, in one transaction (conditional: a concurrent
   * approval audits once); a row already ACTIVE is returned unchanged; a DELETED one is a ConflictError.
   */
  approve(id: string, actor: string): Promise<EnhancementRow>;
}

/** The append-only audit log. */
export interface AuditLogRepository {
  append(entry: AuditEntry): Promise<void>;
  listFor(entityType: string, entityId: string): Promise<AuditRecord[]>;
}

/** Users (issue 11). Creation and disabling are audited in the same transaction. */
export interface UserRepository {
  /** A taken name → ConflictError. */
  create(u: NewUser): Promise<UserRow>;
  get(id: string): Promise<UserRow | null>;
  findByName(name: string): Promise<UserRow | null>;
  /** Oldest first. */
  list(): Promise<UserRow[]>;
  /** Sets disabledAt/disabledBy once (audited 'user.disabled'); a disabled user is returned unchanged. Unknown → NotFoundError. */
  disable(id: string, actor: string): Promise<UserRow>;
}

/** API keys (stored as a keyed hash). Creation and revocation are audited (key id and prefix, never the key). */
export interface ApiKeyRepository {
  /** A taken prefix → ConflictError; an unknown user → NotFoundError. */
  create(k: NewApiKey): Promise<ApiKeyRow>;
  get(id: string): Promise<ApiKeyRow | null>;
  findByPrefix(prefix: string): Promise<ApiKeyRow | null>;
  /** Oldest first; revoked keys only with includeRevoked. */
  list(filter: ApiKeyFilter): Promise<ApiKeyRow[]>;
  /** Sets revokedAt/revokedBy once (audited 'key.revoked'); a revoked key is returned unchanged. Unknown → NotFoundError. */
  revoke(id: string, actor: string): Promise<ApiKeyRow>;
  /** lastUsedAt = at, only when it is null or older than `at - minIntervalMs` (one conditional write); true when written. */
  touch(id: string, at: Date, minIntervalMs: number): Promise<boolean>;
}

/** Console sessions (server-side: logging out deletes the row). */
export interface SessionRepository {
  create(s: NewSession): Promise<SessionRow>;
  get(id: string): Promise<SessionRow | null>;
  /** lastSeenAt = at. */
  touch(id: string, at: Date): Promise<void>;
  /** True when a session was deleted. */
  delete(id: string): Promise<boolean>;
  /** Deletes sessions that expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** Reachability of the database (health checks). */
export interface DatabaseHealth {
  ping(): Promise<void>;
}

/** Every repository, as built by an adapter family (Prisma or in-memory). */
export interface Repositories {
  documents: DocumentRepository;
  feedback: FeedbackEventRepository;
  verdicts: VerdictRepository;
  quarantines: QuarantineRepository;
  answers: AnswerRepository;
  enhancements: EnhancementRepository;
  audit: AuditLogRepository;
  health: DatabaseHealth;
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  sessions: SessionRepository;
}
