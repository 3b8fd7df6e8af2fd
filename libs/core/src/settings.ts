import type { ConsensusParams, DecisionPolicyParams, TraceParams, TrustParams } from '@forensics/algorithms';
import type { EvidenceSettings } from './use-cases/traceback/run-traceback/collect-evidence';

/** Secret and lifetime of the feedback tokens handed out with each logged answer. */
export interface FeedbackTokenSettings {
  secret: string;
  ttlSec: number;
}

/**
 * What the use cases need from the configuration, in one object bound to CORE_SETTINGS. Algorithm
 * parameters are overrides only: a field left undefined takes the pure library's default
 * (its `*.params.ts`), so no default is restated here.
 */
export interface CoreSettings {
  /** Collection used when a request names none. */
  defaultCollection: string;
  /** K of a traceback when the feedback names none. */
  defaultK: number;
  trace: Partial<Omit<TraceParams, 'k'>> & { judgeConcurrency: number };
  evidence: Partial<EvidenceSettings>;
  policy: Partial<DecisionPolicyParams>;
  /** Reporter trust, corroboration and caps on automatic quarantines (issue 13); unset fields = the library's DEFAULT_TRUST_PARAMS. */
  trust?: Partial<TrustParams>;
  /** Consensus check before decisions (issue 13): unset fields = DEFAULT_CONSENSUS_PARAMS (on). */
  consensus?: Partial<ConsensusParams>;
  feedbackTokens: FeedbackTokenSettings;
  /** Database audits (issue 12); unset = DEFAULT_AUDIT_SETTINGS (findings go to review, never quarantine on their own). */
  audit?: Partial<AuditSettings>;
  /** Who the worker's automatic actions are recorded as in the audit log. */
  workerActor: string;
  /**
   * When an enhancement's benign text is served (issue 54): for its own question, or one at least this similar
   * (cosine of the questions' embeddings). Unset = the value measured for the encoder (ENHANCEMENT_QUERY_SIMILARITY).
   */
  enhancementServing?: { minQuerySimilarity?: number };
}

/** Database audits (issue 12): whether findings may quarantine on their own, and the admission check at ingestion. */
export interface AuditSettings {
  /**
   * Whether audit findings may quarantine on their own (AUDIT_AUTO_QUARANTINE). Default false: every
   * finding that points at texts goes to NEEDS_REVIEW, kept in serving, with its evidence.
   */
  autoQuarantine: boolean;
  /** The admission check at ingestion (ADMISSION_CHECK, ADMISSION_TOP_N): new texts against the watchlist of attacked queries. */
  admission: { enabled: boolean; topN: number; maxWatched: number; answerTopN?: number };
  /** Which reports the admission check, the sibling sweep and the re-trace watch (AUDIT_WATCH; see WatchScope in audits/watchlist.ts). Unset = 'reported'. */
  watch?: 'confirmed' | 'reported';
}

/** What identity needs from the configuration (bound to IDENTITY_SETTINGS). */
export interface IdentitySettings {
  /**
   * Server-side secret of the keyed key hash (HMAC-SHA256). Kept out of the database, so a copy of
   * the ApiKey table alone cannot even test a guess.
   */
  keyPepper: string;
  /** Absolute lifetime of a console session (enforced server-side; the cookie carries the same Max-Age). */
  sessionTtlMs: number;
  /** lastUsedAt of a key (and lastSeenAt of a session) is written at most this often. */
  touchIntervalMs: number;
}
