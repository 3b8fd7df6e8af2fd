/**
 * Persistence port (Postgres via Prisma in production and in tests). Postgres is the source of
 * truth for statuses; the vector store holds what is served.
 */
export type DocumentStatus = 'ACTIVE' | 'QUARANTINED' | 'PURGED';
export type FeedbackStatus = 'RECEIVED' | 'QUEUED' | 'TRACING' | 'TRACED' | 'BOUNDED' | 'FAILED';
export type QuarantineState = 'QUARANTINED' | 'NEEDS_REVIEW' | 'RESTORED' | 'PURGED';
export type Verification = 'POISONED' | 'NON_POISONED' | 'INCONCLUSIVE';
export type Label = 'YES' | 'NO' | 'UNDETERMINED';

export interface CollectionRow { name: string; embedder: string; dimension: number }

export interface DocumentRow {
  id: string;
  collection: string;
  externalId: string | null;
  textHash: string;
  text: string;
  metadata: unknown;
  status: DocumentStatus;
}

export interface FeedbackRow {
  id: string;
  collection: string;
  query: string;
  wrongAnswer: string;
  correctAnswer: string | null;
  servedIds: string[];
  reporter: string | null;
  idempotencyKey: string | null;
  status: FeedbackStatus;
  k: number;
  trace: unknown;
  failureReason: string | null;
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  tracedAt: Date | null;
  answerId: string | null;
  verification: Verification | null;
  verificationDetails: unknown;
}

export interface NewFeedback {
  collection: string;
  query: string;
  wrongAnswer: string;
  correctAnswer?: string | null;
  servedIds?: string[];
  reporter?: string | null;
  idempotencyKey?: string | null;
  k: number;
  /** Feedback on a logged answer (by feedback token): at most one event per answer. */
  answerId?: string | null;
}

export interface VerdictRow {
  id: string;
  feedbackId: string;
  documentId: string;
  round: number;
  label: Label;
  judgeKind: string;
  judgeModel: string;
  promptVersion: string;
  reply: string;
  attempts: number;
  latencyMs: number;
  cacheKey: string;
  cached: boolean;
  signals: unknown;
  retrievalRank: number | null;
  retrievalScore: number | null;
  /** Retriever-side evidence (BiRD, GRADA, ProGRank), null when not computed. */
  evidence: unknown;
  createdAt: Date;
}

export type NewVerdict = Omit<VerdictRow, 'id' | 'createdAt'>;

export interface QuarantineRow {
  id: string;
  documentId: string;
  feedbackId: string | null;
  collection: string;
  reason: string;
  evidence: unknown;
  policy: string;
  state: QuarantineState;
  storeSynced: boolean;
  servedDuringReview: boolean;
  createdBy: string;
  createdAt: Date;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  note: string | null;
}

export interface NewQuarantine {
  /** QUARANTINED (default) or NEEDS_REVIEW. */
  state?: 'QUARANTINED' | 'NEEDS_REVIEW';
  /** NEEDS_REVIEW only: keep the text served while it awaits review. */
  servedDuringReview?: boolean;
  documentId: string;
  feedbackId: string | null;
  collection: string;
  reason: string;
  evidence: Record<string, unknown>;
  policy: string;
  createdBy: string;
}

export interface AnswerRow {
  id: string;
  collection: string;
  query: string;
  answer: string;
  servedIds: string[];
  servedScores: number[];
  source: 'builtin' | 'external';
  generatorKind: string | null;
  generatorModel: string | null;
  promptVersion: string | null;
  embedder: string | null;
  createdAt: Date;
}
export type NewAnswer = Omit<AnswerRow, 'id' | 'createdAt'>;

export interface EnhancementRow {
  id: string;
  collection: string;
  feedbackId: string;
  query: string;
  correctAnswer: string;
  benignText: string;
  proxyId: string;
  generatorKind: string;
  generatorModel: string;
  promptVersion: string;
  state: 'ACTIVE' | 'DELETED';
  createdBy: string;
  createdAt: Date;
  deletedAt: Date | null;
  deletedBy: string | null;
}
export type NewEnhancement = Omit<EnhancementRow, 'id' | 'createdAt' | 'state' | 'deletedAt' | 'deletedBy'>;

export interface AuditEntry { actor: string; action: string; entityType: string; entityId: string; details?: Record<string, unknown> }

export interface ForensicsRepository {
  getCollection(name: string): Promise<CollectionRow | null>;
  /** Creates the row if missing; returns the stored row (which may differ from `c` if it existed). */
  ensureCollection(c: CollectionRow): Promise<CollectionRow>;

  findDocumentsByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]>;
  /** Inserts rows whose (collection, textHash) is new; returns how many were inserted. */
  insertDocuments(rows: readonly Omit<DocumentRow, 'status'>[]): Promise<number>;
  getDocuments(ids: readonly string[]): Promise<DocumentRow[]>;
  countDocuments(collection: string): Promise<number>;

  /** Idempotent by key: an existing event with the same key is returned with created=false. */
  createFeedback(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }>;
  getFeedback(id: string): Promise<FeedbackRow | null>;
  updateFeedback(id: string, patch: Partial<Pick<FeedbackRow, 'status' | 'trace' | 'failureReason' | 'attempts' | 'tracedAt' | 'verification' | 'verificationDetails' | 'correctAnswer'>>): Promise<void>;
  /** The event created from a logged answer, if any (one token → at most one event). */
  findFeedbackByAnswer(answerId: string): Promise<FeedbackRow | null>;
  /** Events stuck in RECEIVED (never enqueued) older than `olderThan`. */
  listUnqueuedFeedback(olderThan: Date, limit: number): Promise<FeedbackRow[]>;

  listVerdicts(feedbackId: string): Promise<VerdictRow[]>;
  /** Most recent verdict with this cache key from ANY event (cross-event verdict cache). */
  findVerdictByCacheKey(cacheKey: string): Promise<VerdictRow | null>;
  /** Upsert on (feedbackId, documentId): a retried job that re-judges overwrites, never duplicates. */
  saveVerdict(v: NewVerdict): Promise<void>;

  /**
   * In one transaction: a QUARANTINED record (unless one is active for the document already),
   * the document's status QUARANTINED, an audit entry. The vector store is updated afterwards by
   * the caller, which then calls `markQuarantineSynced`.
   */
  createQuarantine(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }>;
  markQuarantineSynced(id: string): Promise<void>;
  getQuarantine(id: string): Promise<QuarantineRow | null>;
  listQuarantines(filter: { feedbackId?: string; state?: QuarantineState; collection?: string; unsynced?: boolean; limit?: number }): Promise<QuarantineRow[]>;
  /** In one transaction: state RESTORED (storeSynced=false), document ACTIVE, audit entry. */
  restoreQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow>;
  /** NEEDS_REVIEW → QUARANTINED (storeSynced=false), document QUARANTINED, audit entry. */
  approveQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow>;

  createAnswer(a: NewAnswer): Promise<AnswerRow>;
  getAnswer(id: string): Promise<AnswerRow | null>;

  createEnhancement(e: NewEnhancement): Promise<EnhancementRow>;
  getEnhancement(id: string): Promise<EnhancementRow | null>;
  listEnhancements(filter: { collection?: string; feedbackId?: string; state?: 'ACTIVE' | 'DELETED' }): Promise<EnhancementRow[]>;
  /** Active enhancements by proxy id (for substituting retrieval proxies by their benign texts). */
  getEnhancementsByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]>;
  markEnhancementDeleted(id: string, actor: string): Promise<EnhancementRow>;

  audit(entry: AuditEntry): Promise<void>;
  listAudit(entityType: string, entityId: string): Promise<(AuditEntry & { at: Date })[]>;

  ping(): Promise<void>;
}
