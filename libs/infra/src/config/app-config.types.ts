import type { LocalLlmParams } from '../local-llm/local-llm.params';
import type { AuditKind, ReasonLabel } from '@forensics/core';
import type { ConsensusParams, DecisionPolicyParams, PolicyName, TrustParams } from '@forensics/algorithms';
import type { AnnIndexKind } from '../vector-store/vector-store.common';

/**
 * The whole configuration, read once from the environment by the apps (never deep inside libraries).
 * Every setting has a default that works on one machine with no setup (embedded defaults).
 *
 * `loadConfig` returns it deeply frozen, so the type is read-only all the way down: derived values
 * (e.g. a local feedback-token secret) belong to the composition root, not to this object.
 *
 * Algorithm settings (`trace`, `evidence.birdK`, `evidence.progrank*`, `policy`) are always filled:
 * when the variable is unset the value is the pure library's default (`DEFAULT_TRACE_PARAMS`,
 * `DEFAULT_BIRD_PARAMS`, `DEFAULT_PROGRANK_PARAMS`, `DEFAULT_TOKEN_DROPOUT_RATE`,
 * `DEFAULT_DECISION_POLICY` in `@forensics/algorithms`), read here, never restated. Filled rather
 * than optional because consumers spread these values over other settings objects, where an
 * `undefined` would silently erase a default.
 */
export interface AppConfig {
  readonly projectRoot: string;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly redisUrl?: string;
  readonly qdrantUrl?: string;
  readonly qdrantApiKey?: string;
  /**
   * Vector store tuning and Qdrant attach mode (issue 15): the embedded store's switch from the exact
   * snapshot to an ANN index (row threshold, probes, refine), and — with QDRANT_URL — the RAG app's
   * existing collection to work on instead of our own (README "Attach to an existing Qdrant collection").
   */
  readonly vectorStore: Readonly<{
    indexMinRows: number;
    annNprobes: number;
    /** 0 = the index kind's default. */
    annRefine: number;
    annIndex: AnnIndexKind;
    annEf: number;
    attach?: Readonly<{ collection: string; serviceCollection?: string; textKey: string; vectorName?: string; idType: 'uuid' | 'integer'; quarantineKey: string }>;
    /** VECTOR_STORE: 'auto' = Qdrant when QDRANT_URL is set, else the embedded store (docs/vector-stores.md). */
    kind: 'auto' | 'lancedb' | 'qdrant' | 'pgvector';
    /** VECTOR_STORE=pgvector: connection (PGVECTOR_URL, else DATABASE_URL), schema, HNSW knobs, attach mode. */
    pgvector: Readonly<{
      url?: string;
      schema: string;
      efSearch: number;
      hnswM: number;
      hnswEfConstruction: number;
      attach?: Readonly<{
        layout: 'langchain' | 'table'; table?: string; langchainCollection?: string; idColumn?: string; contentColumn?: string;
        embeddingColumn?: string; idType: 'uuid' | 'integer'; serviceCollection?: string;
      }>;
    }>;
  }>;
  readonly host: string;
  readonly port: number;
  readonly apiKeys: readonly string[];
  /** True when API_KEYS was not set and the development key is in use. */
  readonly devApiKey: boolean;
  readonly bodyLimit: string;
  /** JSON bodies nested deeper (arrays / objects) are refused with a 400 before they are parsed (apps/api/src/http/json-depth.ts). */
  readonly jsonMaxDepth: number;
  /** SHUTDOWN_DRAIN_MS: how long in-flight requests get to finish after SIGTERM/SIGINT before they are cut (apps/api/src/http/http-drain.ts). */
  readonly shutdownDrainMs: number;
  /**
   * TRUST_PROXY: reverse proxies in front of the API (Express's `trust proxy` hop count); 0 = none,
   * forwarded headers ignored. Sets what `req.ip`, `req.protocol` and `req.host` report.
   */
  readonly trustProxyHops: number;
  /** POST /v1/feedback served by the intake's fast path (apps/api/src/http/fast-intake.ts) instead of the express + Nest chain. */
  readonly intakeFastPath: boolean;
  readonly embedder: Readonly<{ kind: 'use-lite' | 'minilm' | 'onnx' | 'openai'; onnxModelDir?: string; model?: string; dimension?: number }>;
  /** MODELS_DIR resolved: where `npm run models` lays the model files. */
  readonly modelsDir: string;
  readonly judge: Readonly<{ kind: 'reader' | 'offline' | 'openai'; /** kind 'reader': the encoder's folder. */ readerModelDir?: string; model: string; timeoutMs: number; maxReasks: number; prompt: 'rf-v1' | 'rf-v1-quote' | 'rf-v2' }>;
  readonly openai: Readonly<{ baseURL?: string; apiKey?: string }>;
  /** LOCAL_LLM without OPENAI_BASE_URL: the GGUF the embedded mode serves to the OpenAI adapters (../local-llm). */
  readonly localLlm?: Readonly<LocalLlmParams>;
  readonly trace: Readonly<{ k: number; maxRounds: number; maxJudgeCalls: number; judgeConcurrency: number }>;
  readonly queue: Readonly<{ attempts: number; backoffMs: number; workerConcurrency: number; workerProcesses: number; prefix: string; lockMs: number; /** WORKER_DRAIN_MS: how long active jobs get to finish after SIGTERM/SIGINT (apps/worker/src/worker-drain.ts). */ drainMs: number; sweepEveryMs: number; enqueueTimeoutMs: number }>;
  readonly defaultCollection: string;
  /** Retriever-side evidence and the quarantine decision policy (BiRD arXiv 2605.20123 §4; GRADA arXiv 2505.07546 §3; ProGRank arXiv 2603.22934 §3). */
  readonly evidence: Readonly<{ enabled: boolean; birdK: number; progrankRuns: number; progrankTokenDropout: number }>;
  /** Gradient probe for ProGRank: 'auto' = the embedder's own encoder when it can be probed, else the ONNX surrogate in PROBE_MODEL_DIR. */
  readonly probe: Readonly<{ kind: 'auto' | 'use-lite' | 'onnx' | 'none'; modelDir?: string }>;
  readonly policy: Readonly<{ name: PolicyName; reviewServing: DecisionPolicyParams['reviewServing']; bandWithhold: DecisionPolicyParams['bandWithhold']; loneYes: DecisionPolicyParams['loneYes']; siblingWithhold: DecisionPolicyParams['siblingWithhold'] }>;
  /** Generator for the built-in RAG answer, verification and BTE: 'openai' when an endpoint is configured, else 'offline'. */
  readonly generator: Readonly<{ kind: 'offline' | 'openai'; model: string }>;
  /**
   * HMAC secret of feedback tokens (browser feedback without an API key). `undefined` when
   * FEEDBACK_TOKEN_SECRET is unset: the composition root then resolves a local secret itself.
   */
  readonly feedbackTokenSecret?: string;
  readonly feedbackTokenTtlSec: number;
  /** NODE_ENV=production: refuses weak secrets at start-up and /metrics without METRICS_TOKEN. */
  readonly production: boolean;
  /** Bearer token of GET /metrics; unset = open (refused in production). */
  readonly metricsToken?: string;
  /** A separately running worker serves GET /metrics on this port (same token rule); unset = none. */
  readonly workerMetricsPort?: number;
  /** 'json' (pino, one JSON object per line) or 'pretty' (Nest's console logger). */
  readonly logFormat: 'json' | 'pretty';
  /** Webhook delivery (issue 14). */
  readonly webhooks: Readonly<{ timeoutMs: number; attempts: number; backoffMs: number; disableAfter: number; allowPrivate: boolean; secretsKey?: string }>;
  /** Pepper of the API keys' keyed hash; unset = derived from the feedback-token secret by the composition root. */
  readonly apiKeyPepper?: string;
  /** Lifetime of a console session (minutes). */
  readonly sessionTtlMinutes: number;
  /** Review console: how long opening an item claims it (seconds). */
  readonly reviewClaimTtlSec: number;
  /** Reason labels of review decisions (REVIEW_REASONS; issue 35). */
  readonly reviewReasons: readonly ReasonLabel[];
  /**
   * Rate limits (issue 13, item 2) of POST /v1/feedback, POST /v1/answers and POST /v1/rag/answer,
   * requests per minute per scope; 0 = that limit is off (apps/api/src/http/rate-limit.ts).
   */
  /** Reporter trust, corroboration and caps on automatic quarantines (issue 13, item 1; library default DEFAULT_TRUST_PARAMS). */
  readonly trust: Readonly<TrustParams>;
  /** ENHANCEMENT_MIN_QUERY_SIMILARITY: unset = the value measured for the encoder (issue 54). */
  readonly enhancementMinQuerySimilarity?: number;
  /** Consensus check before decisions (issue 13, item 1; library default DEFAULT_CONSENSUS_PARAMS). */
  readonly consensus: Readonly<ConsensusParams>;
  /** `onStoreDown` (RATE_LIMIT_ON_REDIS_DOWN): limited requests let through (`open`) or refused with 503 (`closed`) while Redis does not answer. */
  readonly rateLimits: Readonly<{ feedbackPerToken: number; feedbackPerReporter: number; feedbackPerAddress: number; feedbackPerKey: number; answersPerKey: number; onStoreDown: 'open' | 'closed' }>;
  /** Database audits (issue 12): schedules from AUDIT_SCHEDULE, worker concurrency, whether findings may quarantine. */
  readonly audits: Readonly<{ schedules: readonly AuditScheduleSpec[]; concurrency: number; autoQuarantine: boolean; admission: { enabled: boolean; topN: number; answerTopN: number }; watch: 'confirmed' | 'reported' }>;
}

/** One scheduled audit: kind, collection (undefined = every collection), cron pattern (UTC), and the entry as written in AUDIT_SCHEDULE (for the logs). */
export interface AuditScheduleSpec { kind: AuditKind; collection?: string; cron: string; entry: string }
