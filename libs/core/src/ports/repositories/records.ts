import type { Label, TextSpan, TraceRound, TraceSummary, TrustLevel } from '@forensics/algorithms';
import type { CandidateEvidence } from '../../domain/evidence-record';

/**
 * Rows of the aggregates the service persists, with their JSON columns typed. Postgres is the
 * source of truth for every status; the vector store holds what is served.
 */
export type { Label };
export type DocumentStatus = 'ACTIVE' | 'QUARANTINED' | 'PURGED';
export type FeedbackStatus = 'RECEIVED' | 'QUEUED' | 'TRACING' | 'TRACED' | 'BOUNDED' | 'FAILED';
export type QuarantineState = 'QUARANTINED' | 'NEEDS_REVIEW' | 'RESTORED' | 'PURGED';
export type Verification = 'POISONED' | 'NON_POISONED' | 'INCONCLUSIVE';
/**
 * The last step of the feedback pipeline (trace → verify → enhance) that completed for an event,
 * persisted on its row: a retried or re-delivered job resumes after it.
 */
export type PipelineStep = 'traced' | 'verified' | 'enhanced';

export type JsonObject = Record<string, unknown>;

export interface CollectionRow {
  name: string;
  embedder: string;
  dimension: number;
  /**
   * The collection's vetted baseline (issue 33): texts registered before this instant are ones its operator vouches
   * for, so the decisions never take them out of serving on their own (their YES verdicts go to review, kept
   * served). Null or absent = no baseline (every text is decided as usual).
   */
  vettedBefore?: Date | null;
}

export interface DocumentRow {
  id: string;
  collection: string;
  externalId: string | null;
  textHash: string;
  text: string;
  /** The client's own metadata, stored as given. */
  metadata: JsonObject | null;
  status: DocumentStatus;
  /** When the text was registered (ingested, or first found in an attached store): the vetted baseline's clock. */
  createdAt: Date;
}
export type NewDocument = Omit<DocumentRow, 'status' | 'createdAt'>;

/** What the traceback stores on its event: progress while running, the outcome when done. */
export interface TraceRecord {
  state: TraceSummary;
  /** True while rounds are still being judged (progress written after each round). */
  inProgress?: boolean;
  rounds?: TraceRound[];
  boundReason?: string | null;
  /** The traceback's outcome, stored before the event moves on to verification. */
  outcome?: 'TRACED' | 'BOUNDED';
  judge?: { kind: string; model: string; promptVersion: string };
  lastRun?: { judgeCalls: number; cachedVerdicts: number };
  policy?: string;
  evidenceError?: string | null;
  /** Consensus check (issue 13): independent groups of the wider pool stating the reported answer, or its error. */
  consensus?: Record<string, unknown> | null;
  /** The consensus check marked the report a suspected false flag (nothing auto-quarantined). */
  suspectedFalseFlag?: boolean;
}

/** How verification reached its answer (RAGForensics arXiv 2504.21668, §6). */
export interface VerificationDetails {
  method: 'rerun-rag' | 'residual-support';
  servedIds?: string[];
  generator?: string;
  /** rerun-rag */
  answerAfter?: string;
  matchesWrongAnswer?: boolean;
  promptVersion?: string;
  /** residual-support */
  stillSupporting?: string[];
  undetermined?: string[];
  quarantinedByTrace?: number;
  /** residual-support, the judge-independent part (issue 13): removed / served texts stating the wrong answer, the removed share, consensus left. */
  removedStatingAnswer?: number;
  servedStatingAnswer?: number;
  removedShare?: number;
  consensusAfter?: { suspected: boolean; groups: number; reason: string };
  /** The check failed (then the verification is INCONCLUSIVE). */
  error?: string;
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
  /** Last completed pipeline step; null before the traceback finished. */
  step: PipelineStep | null;
  k: number;
  trace: TraceRecord | null;
  failureReason: string | null;
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  tracedAt: Date | null;
  answerId: string | null;
  verification: Verification | null;
  verificationDetails: VerificationDetails | null;
  /** Reporter trust (issue 13): absent on rows read without it (intake batch results) — treat as 'anonymous'. */
  trust?: TrustLevel;
  /** Who reported, for corroboration and caps: `addr:<hash>` (feedback token) or `key:<id>[/<reporter>]`. */
  reporterSource?: string | null;
  /** SHA-256 of the folded (query, wrong answer): the same report from another reporter has the same key. */
  reportKey?: string | null;
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
  /** Reporter trust (issue 13), set by the API from the credentials; unset = 'identified' (in-process callers: eval harness, CLI, tests). */
  trust?: TrustLevel;
  reporterSource?: string | null;
  reportKey?: string | null;
  /**
   * Status written with the row: RECEIVED (default), or QUEUED when the caller adds its job right
   * after (DispatchTracebackUseCase.dispatchNew, which sets it back to RECEIVED if that fails).
   */
  status?: 'RECEIVED' | 'QUEUED';
}

/** Fields of an event that change without a status transition. */
export type FeedbackPatch = Partial<Pick<FeedbackRow, 'step' | 'trace' | 'failureReason' | 'tracedAt' | 'verification' | 'verificationDetails' | 'correctAnswer'>>;

type JsonScalar = string | number | boolean | null;
/** Machine-readable signals behind a verdict (the offline judge's numbers, an LLM's token counts). */
export type JudgeSignals = Record<string, JsonScalar | JsonScalar[]>;
/** A character range [start, end) of a judged text that carries the claim (issue 35). */
export type ClaimSpan = TextSpan;
/** Retriever-side evidence stored on a verdict, or why it could not be computed. */
export type VerdictEvidence = CandidateEvidence | { error: string };

export interface VerdictRow {
  id: string;
  feedbackId: string;
  documentId: string;
  /** 0 = served texts, 1.. = retrieval rounds, -1 = verification's residual-support check. */
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
  signals: JudgeSignals | null;
  retrievalRank: number | null;
  retrievalScore: number | null;
  evidence: VerdictEvidence | null;
  /** Where the claim is in the document's text (issue 35); null/absent = none given or found. Offsets into the text as judged (same hash). */
  spans?: ClaimSpan[] | null;
  createdAt: Date;
}
export type NewVerdict = Omit<VerdictRow, 'id' | 'createdAt'>;

/** Why a text was quarantined or sent to review: the policy, its inputs, the judge, the evidence. */
export interface QuarantineEvidence {
  policy: { name: string; decision: string; withhold: boolean; reason: string; inputs: JsonObject };
  judge: { kind: string; model: string; promptVersion: string; label?: Label; reply?: string; signals: JudgeSignals | null; spans?: ClaimSpan[] | null };
  retrieval: { rank: number; score: number } | null;
  retrieverEvidence: VerdictEvidence | null;
}

export interface QuarantineRow {
  id: string;
  documentId: string;
  feedbackId: string | null;
  collection: string;
  reason: string;
  evidence: QuarantineEvidence;
  policy: string;
  state: QuarantineState;
  storeSynced: boolean;
  servedDuringReview: boolean;
  createdBy: string;
  createdAt: Date;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  note: string | null;
  /** The record's redaction (issue 35), when a reviewer redacted the claim instead of quarantining the whole text; null otherwise. */
  redaction?: RedactionState | null;
}

/**
 * A redaction (issue 35): the original text stays in Postgres (its document, out of serving) until
 * purged; the redacted version is a new document (`documentId`, its own text hash) served in its
 * place while `active`. A later approve / restore / purge of the record withdraws it (`active` false).
 */
export interface RedactionState {
  documentId: string;
  spans: ClaimSpan[];
  marker: string;
  removedChars: number;
  at: string;
  by: string;
  active: boolean;
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
  evidence: QuarantineEvidence;
  policy: string;
  createdBy: string;
}

export interface QuarantineFilter { feedbackId?: string; state?: QuarantineState; collection?: string; unsynced?: boolean; limit?: number }

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

/** PROPOSED: waits for a reviewer, not served (issues 54, 56); ACTIVE: served; DELETED: taken out (or a proposal rejected). */
export type EnhancementState = 'PROPOSED' | 'ACTIVE' | 'DELETED';
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
  state: EnhancementState;
  /** Why it is live or only proposed (the enhancement policy's reason). */
  reason: string | null;
  createdBy: string;
  createdAt: Date;
  /** A reviewer approved a proposal (PROPOSED → ACTIVE). */
  approvedAt: Date | null;
  approvedBy: string | null;
  deletedAt: Date | null;
  deletedBy: string | null;
}
/** A new enhancement: live (ACTIVE, the default) or proposed for a reviewer. */
export type NewEnhancement = Omit<EnhancementRow, 'id' | 'createdAt' | 'state' | 'reason' | 'approvedAt' | 'approvedBy' | 'deletedAt' | 'deletedBy'> & { state?: 'PROPOSED' | 'ACTIVE'; reason?: string | null };
export interface EnhancementFilter { collection?: string; feedbackId?: string; state?: EnhancementState }

export interface AuditEntry { actor: string; action: string; entityType: string; entityId: string; details?: JsonObject }
export type AuditRecord = AuditEntry & { at: Date };

/** Users, API keys and console sessions (issue 11). */
export type UserRole = 'admin' | 'reviewer' | 'viewer';
export type ServiceScope = 'ingest' | 'feedback' | 'answers';

export interface UserRow {
  id: string;
  name: string;
  role: UserRole;
  createdAt: Date;
  createdBy: string;
  disabledAt: Date | null;
  disabledBy: string | null;
}
export interface NewUser { name: string; role: UserRole; createdBy: string }

/** An API key as stored: a keyed hash of the key, never the key. `userId` null = a service key (scopes). */
export interface ApiKeyRow {
  id: string;
  userId: string | null;
  name: string;
  scopes: ServiceScope[];
  /** Service keys: the collections the key may address; empty = every collection (issue 56, item 7b). */
  collections: string[];
  prefix: string;
  hash: string;
  createdAt: Date;
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
}
export interface NewApiKey { userId: string | null; name: string; scopes: ServiceScope[]; collections?: string[]; prefix: string; hash: string; createdBy: string }
export interface ApiKeyFilter { userId?: string; includeRevoked?: boolean }

/** A console session; `id` is the SHA-256 of the cookie's token. */
export interface SessionRow {
  id: string;
  userId: string | null;
  keyId: string;
  name: string;
  role: UserRole;
  csrfSecret: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}
export type NewSession = Omit<SessionRow, 'createdAt' | 'lastSeenAt'>;
