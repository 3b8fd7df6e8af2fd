import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ANN_INDEX_KINDS, DEFAULT_ANN_INDEX, type AnnIndexKind } from '../vector-store/vector-store.common';
import { AUDIT_KINDS, DEFAULT_AUDIT_SETTINGS, DEFAULT_REASON_LABELS, parseReasonLabels, UNBUILT_AUDIT_KINDS, type AuditKind, type AuditSettings, type ReasonLabel } from '@forensics/core';
import {
  DEFAULT_BIRD_PARAMS,
  DEFAULT_DECISION_POLICY,
  DEFAULT_PROGRANK_PARAMS,
  DEFAULT_TOKEN_DROPOUT_RATE,
  DEFAULT_TRACE_PARAMS,
  tokenDropoutMask,
  validateBirdParams,
  validateDecisionPolicy,
  validateProgrankParams,
  validateTraceParams,
  type DecisionPolicyParams,
  type PolicyName,
  DEFAULT_TRUST_PARAMS,
  TRUST_LEVELS,
  validateTrustParams,
  type TrustParams,
  DEFAULT_CONSENSUS_PARAMS,
  type ConsensusParams,
} from '@forensics/algorithms';

export type { AppConfig, AuditScheduleSpec } from './app-config.types';
import type { AppConfig, AuditScheduleSpec } from './app-config.types';
import { LOCAL_LLM_DEFAULTS } from '../local-llm/local-llm.params';


/**
 * AUDIT_SCHEDULE: `;`-separated `kind[:collection]=cron` entries, e.g.
 * `reconcile=0 * * * *;cluster-scan:docs=30 3 * * *`. Empty string = no schedules. An entry without a
 * collection audits every collection there is at each tick (issue 57: it meant DEFAULT_COLLECTION, and
 * where the data lives in named collections the hourly reconcile was skipped every hour).
 */
export function parseAuditSchedule(raw: string): AuditScheduleSpec[] {
  const out: AuditScheduleSpec[] = [];
  for (const part of raw.split(';').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`AUDIT_SCHEDULE: '${part}' is not kind[:collection]=cron`);
    const [kind, collection] = part.slice(0, eq).trim().split(':', 2) as [string, string | undefined];
    const cron = part.slice(eq + 1).trim();
    if (!(AUDIT_KINDS as readonly string[]).includes(kind)) throw new Error(`AUDIT_SCHEDULE: unknown kind '${kind}' (one of ${AUDIT_KINDS.join(', ')})`);
    if (UNBUILT_AUDIT_KINDS.has(kind)) throw new Error(`AUDIT_SCHEDULE: the ${kind} audit is not available in this version`);
    const fields = cron.split(/\s+/).length;
    if (fields < 5 || fields > 6) throw new Error(`AUDIT_SCHEDULE: '${cron}' is not a cron pattern of 5 or 6 fields`);
    out.push({ kind: kind as AuditKind, collection: collection?.trim() || undefined, cron, entry: part });
  }
  return out;
}

export const DEV_API_KEY = 'dev-local-key';

/** Every problem found in the environment, one line each (`problems`), all reported at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// ---------------------------------------------------------------------------------------------
// The schema: every variable, its type, range, default and meaning, in one place.
// ---------------------------------------------------------------------------------------------

export interface ConfigVariableMeta {
  /** What a valid value is; the error line reads `NAME must be <expect>, got '<value>'`. */
  expect: string;
  /** One-line meaning. */
  doc: string;
  /** Never print the value (errors say `(hidden)`). */
  secret?: boolean;
}

/** Metadata of the variables of `ENV_SCHEMA` (zod registry, keyed by each variable's schema). */
export const CONFIG_VARIABLES = z.registry<ConfigVariableMeta>();

/** An empty variable counts as unset (as in a shell `VAR= cmd`). */
const unsetIfEmpty = (v: unknown): unknown => (v === '' ? undefined : v);

function variable<T extends z.ZodType>(schema: T, meta: ConfigVariableMeta) {
  const withUnset = z.preprocess(unsetIfEmpty, schema);
  CONFIG_VARIABLES.add(withUnset as z.ZodType, meta);
  return withUnset;
}

const integer = (min: number, max: number) => ({ schema: z.coerce.number().int().min(min).max(max), expect: `an integer in [${min}, ${max}]` });
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => ({ schema: z.enum(values), expect: `one of ${values.join(', ')}` });

function intVar(min: number, max: number, dflt: number, doc: string) {
  const { schema, expect } = integer(min, max);
  return variable(schema.default(dflt), { expect, doc });
}

function enumVar<const T extends readonly [string, ...string[]]>(values: T, dflt: T[number], doc: string) {
  const { schema, expect } = oneOf(values);
  return variable(schema.default(dflt as z.output<typeof schema>), { expect, doc });
}

/** No default here: `loadConfig` resolves it from other variables. */
function derivedEnumVar<const T extends readonly [string, ...string[]]>(values: T, doc: string) {
  const { schema, expect } = oneOf(values);
  return variable(schema.optional(), { expect, doc });
}

const text = (doc: string, secret = false) => variable(z.string().optional(), { expect: 'a string', doc, secret });
const textWithDefault = (dflt: string, doc: string) => variable(z.string().default(dflt), { expect: 'a string', doc });

const DEFAULT_LLM_MODEL = 'gpt-4o-mini';
/** The project folder (this file is libs/infra/src/config/): `npm run models` puts the models in its `.models`. */
const PROJECT_ROOT = resolve(__dirname, '..', '..', '..', '..');
/** The sub-folder of MODELS_DIR holding all-MiniLM-L6-v2 (scripts/models.manifest.json). */
export const MINILM_DIR = 'all-MiniLM-L6-v2';
/** The GGUF file of a local LLM laid out by `npm run models -- --llm NAME` (scripts/models.manifest.json). */
export const LOCAL_LLM_FILE = 'model.gguf';

/**
 * LOCAL_LLM: a path (it holds a '/' or ends in .gguf; the model's name is the file's, less .gguf) or a model name of
 * `npm run models` (MODELS_DIR/NAME/model.gguf).
 */
function localLlmOf(setting: string, modelsDirSetting: string | undefined): { model: string; modelPath: string; named: boolean } {
  if (setting.includes('/') || setting.endsWith('.gguf')) {
    const modelPath = resolve(setting);
    return { model: modelPath.split('/').pop()!.replace(/\.gguf$/, ''), modelPath, named: false };
  }
  return { model: setting, modelPath: join(modelsDirOf(modelsDirSetting), setting, LOCAL_LLM_FILE), named: true };
}
/** A listen address that only this machine reaches: localhost, 127.0.0.0/8, ::1 (and its IPv4-mapped form). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h) || /^::ffff:127(?:\.\d{1,3}){3}$/.test(h);
}

export function modelsDirOf(setting: string | undefined): string {
  return setting ? resolve(setting) : join(PROJECT_ROOT, '.models');
}
const DAY_SEC = 24 * 3600;

/** Decision-policy names, checked against the library's `PolicyName` (both directions) at compile time. */
const POLICY_NAMES = ['judge-only', 'corroborated'] as const satisfies readonly PolicyName[];
type MissingPolicyName = Exclude<PolicyName, (typeof POLICY_NAMES)[number]>;
const _allPolicyNames: [MissingPolicyName] extends [never] ? true : never = true;
void _allPolicyNames;
const REVIEW_SERVING = ['withhold', 'serve'] as const satisfies readonly DecisionPolicyParams['reviewServing'][];
const BAND_WITHHOLD = ['event', 'restated', 'always'] as const satisfies readonly DecisionPolicyParams['bandWithhold'][];
const LONE_YES = ['review', 'act'] as const satisfies readonly DecisionPolicyParams['loneYes'][];
const SIBLING_WITHHOLD = ['on', 'off'] as const satisfies readonly DecisionPolicyParams['siblingWithhold'][];

/**
 * The environment. Variables marked "library default" take their default from the params objects
 * of `@forensics/algorithms`; their ranges are the library's (or, where today's service limit is
 * tighter, that limit), and the assembled values are also run through the library's validators.
 * `undefined` defaults (JUDGE, EMBEDDER, GENERATOR, GENERATOR_MODEL) are resolved from other
 * variables in `loadConfig`.
 */
export const ENV_SCHEMA = z.object({
  DATA_DIR: textWithDefault('.data', 'where embedded services keep their data (relative to the project root)'),
  DATABASE_URL: text('Postgres connection string; unset = embedded PostgreSQL'),
  REDIS_URL: text('Redis for the BullMQ queue; unset = embedded redis-server'),
  QDRANT_URL: text('Qdrant server; unset = embedded on-disk vector store'),
  QDRANT_API_KEY: text('API key of the Qdrant server', true),
  VECTOR_INDEX_MIN_ROWS: intVar(0, 1_000_000_000, 50_000, 'embedded store: rows from which a collection is served by an ANN index (VECTOR_ANN_INDEX) instead of the exact in-process snapshot; 0 = never'),
  VECTOR_ANN_NPROBES: intVar(1, 4096, 128, 'embedded store ANN search: IVF partitions probed per query (recall vs latency)'),
  VECTOR_ANN_REFINE: intVar(0, 1000, 0, 'embedded store ANN search: refine factor (limit × this many candidates re-scored exactly); 0 = the index kind\'s default (2 for ivf_rq, 10 for ivf_pq, 4 for hnsw_sq)'),
  VECTOR_ANN_INDEX: enumVar(ANN_INDEX_KINDS, DEFAULT_ANN_INDEX, 'embedded store: the ANN index built at VECTOR_INDEX_MIN_ROWS (ivf_rq: RaBitQ 4-bit codes, every partition scanned — high recall on any vectors, cost linear in rows; hnsw_sq: faster searches, but LanceDB rebuilds it whole to merge new rows — for collections that are mostly read)'),
  VECTOR_ANN_EF: intVar(1, 10000, 100, 'embedded store, hnsw_sq index: candidates explored per graph search'),
  QDRANT_ATTACH_COLLECTION: text("attach mode (needs QDRANT_URL): the RAG app's existing Qdrant collection to read, search and flag instead of our own"),
  QDRANT_ATTACH_AS: text('attach mode: the service\'s name for that collection (feedback\'s `collection`); unset = QDRANT_ATTACH_COLLECTION'),
  QDRANT_ATTACH_TEXT_KEY: textWithDefault('text', 'attach mode: payload key of the text (dotted path for nested keys)'),
  QDRANT_ATTACH_VECTOR: text('attach mode: named vector to search; unset = the default (unnamed) vector'),
  QDRANT_ATTACH_ID_TYPE: enumVar(['uuid', 'integer'], 'uuid', 'attach mode: type of the app\'s point ids (integers map to deterministic UUIDs)'),
  VECTOR_STORE: enumVar(['auto', 'lancedb', 'qdrant', 'pgvector'], 'auto', 'the vector store: auto = Qdrant when QDRANT_URL is set, else the embedded on-disk store; pgvector = PostgreSQL with the pgvector extension (docs/vector-stores.md)'),
  PGVECTOR_URL: text('VECTOR_STORE=pgvector: Postgres (with the vector extension) holding the vectors; unset = DATABASE_URL', true),
  PGVECTOR_SCHEMA: textWithDefault('rf_vectors', 'VECTOR_STORE=pgvector: schema of our tables (collections, attach_quarantine)'),
  PGVECTOR_EF_SEARCH: intVar(1, 1000, 200, 'VECTOR_STORE=pgvector: hnsw.ef_search, HNSW candidates per search (recall vs latency; 200 keeps recall@10 ≥ 0.98 at 1M texts)'),
  PGVECTOR_HNSW_M: intVar(2, 100, 16, 'VECTOR_STORE=pgvector: HNSW graph degree m of new collections'),
  PGVECTOR_HNSW_EF_CONSTRUCTION: intVar(4, 1000, 64, 'VECTOR_STORE=pgvector: HNSW ef_construction of new collections'),
  PGVECTOR_ATTACH_LAYOUT: derivedEnumVar(['langchain', 'table'], "pgvector attach mode: the app's table layout (langchain = langchain_pg_embedding/langchain_pg_collection; table = a plain (id, content, embedding) table); unset = no attach"),
  PGVECTOR_ATTACH_TABLE: text("pgvector attach mode: the app's table ('name' or 'schema.name'); default for langchain: langchain_pg_embedding"),
  PGVECTOR_ATTACH_COLLECTION: text('pgvector attach mode, langchain layout: the LangChain collection name (langchain_pg_collection.name)'),
  PGVECTOR_ATTACH_ID_COLUMN: text('pgvector attach mode, table layout: id column (default id)'),
  PGVECTOR_ATTACH_CONTENT_COLUMN: text('pgvector attach mode, table layout: text column (default content; langchain: document)'),
  PGVECTOR_ATTACH_EMBEDDING_COLUMN: text('pgvector attach mode: vector column (default embedding)'),
  PGVECTOR_ATTACH_ID_TYPE: enumVar(['uuid', 'integer'], 'uuid', "pgvector attach mode: type of the app's ids (integers map to deterministic UUIDs)"),
  PGVECTOR_ATTACH_AS: text("pgvector attach mode: the service's name for the attached table (feedback's `collection`); default the LangChain collection or the table name"),
  QDRANT_ATTACH_QUARANTINE_KEY: textWithDefault('rf_quarantined', 'attach mode: payload flag set on quarantined points; the app excludes it with a must_not filter'),
  HOST: textWithDefault('127.0.0.1', 'API listen address; an address beyond this machine needs NODE_ENV=production (or EXPOSE_DEVELOPMENT=true)'),
  EXPOSE_DEVELOPMENT: enumVar(['false', 'true'], 'false', 'true = let a development-mode service (NODE_ENV not production: the development key, /metrics without a token, weak secrets) listen on a non-loopback HOST; for a trusted lab network only'),
  PORT: intVar(0, 65535, 3000, 'API listen port'),
  SHUTDOWN_DRAIN_MS: intVar(0, 600_000, 20_000, 'on SIGTERM/SIGINT the API stops accepting connections, answers /health with 503 draining and gives in-flight requests this long to finish (ms) before it cuts them and closes; keep it below the stop grace period (compose: 30 s)'),
  API_KEYS: variable(
    z.string().transform((s) => s.split(',').map((k) => k.trim()).filter(Boolean)).pipe(z.array(z.string()).min(1)).optional(),
    { expect: 'a comma-separated list of at least one API key', doc: `API keys; unset = the development key '${DEV_API_KEY}' (with a warning)`, secret: true },
  ),
  BODY_LIMIT: variable(z.string().regex(/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i).default('256kb'), {
    expect: 'a size such as 256kb or 1mb',
    doc: 'request body limit (413 above)',
  }),
  JSON_MAX_DEPTH: intVar(2, 1000, 32, 'deepest nesting of arrays / objects in a JSON request body; deeper bodies are refused with a 400 before parsing (docs/security.md)'),
  // Behind a reverse proxy (issue 56, item 3): without it every client is the proxy's one address to the rate limits.
  TRUST_PROXY: variable(z.union([z.literal('off').transform(() => 0), integer(0, 10).schema]).default(0), {
    expect: 'off or a number of proxy hops in [0, 10]',
    doc: "reverse proxies in front of the API that each append the client's address to X-Forwarded-For: the client address (rate limits, login throttle) is the one the outermost of them appended, the scheme and host those it sent in X-Forwarded-Proto / X-Forwarded-Host (Express's `trust proxy` = hops); off (= 0) = the connection's own address and scheme, forwarded headers ignored. More hops than proxies lets a client choose its address",
  }),
  INTAKE_FAST_PATH: enumVar(['true', 'false'], 'true', 'true = POST /v1/feedback is answered by a lean handler on the HTTP server (same authentication, permission, rate limits, validation, use case, headers, metrics and logs as the Nest route, ~0.3 ms less CPU per request); false = by the Nest route'),
  EMBEDDER: derivedEnumVar(['use-lite', 'minilm', 'onnx', 'openai'], "text embedder; unset = 'onnx' when ONNX_MODEL_DIR is set, else 'use-lite'; 'minilm' = all-MiniLM-L6-v2 from MODELS_DIR (`npm run models`)"),
  MODELS_DIR: text('folder of the model files (`npm run models` lays them there; or your own copy in the Hugging Face layout, one sub-folder per model, e.g. all-MiniLM-L6-v2/model.onnx + tokenizer.json); unset = .models in the project folder'),
  ONNX_MODEL_DIR: text('sentence-transformers ONNX export (model.onnx + tokenizer.json)'),
  EMBEDDING_MODEL: text('embedding model name for EMBEDDER=openai (adapter default text-embedding-3-small)'),
  EMBEDDING_DIMENSION: variable(integer(1, 65536).schema.optional(), { expect: integer(1, 65536).expect, doc: 'embedding dimension for EMBEDDER=openai' }),
  JUDGE: derivedEnumVar(['offline', 'reader', 'openai'], "relevance judge; unset = 'openai' when OPENAI_BASE_URL, OPENAI_API_KEY or LOCAL_LLM is set, else 'offline' (the rules, no LLM); 'reader' = the rules + all-MiniLM-L6-v2's reading (`npm run models`; measured no better than the rules yet, decision 0410)"),
  OPENAI_BASE_URL: text('any OpenAI-compatible endpoint (vLLM, llama.cpp server, Ollama, OpenAI)'),
  OPENAI_API_KEY: text('API key of the OpenAI-compatible endpoint', true),
  JUDGE_MODEL: text(`judge model name; unset = LOCAL_LLM's model name, else ${DEFAULT_LLM_MODEL}`),
  LOCAL_LLM: text("a local GGUF model behind the OpenAI judge and generator when OPENAI_BASE_URL is unset: a model name of `npm run models -- --llm NAME` (smollm2-135m, qwen2.5-0.5b, qwen2.5-1.5b; MODELS_DIR/NAME/model.gguf) or the path of a .gguf file. The service runs it in a process of its own on a loopback port (node-llama-cpp, CPU), loaded once, one request at a time, the rest queued"),
  LOCAL_LLM_THREADS: intVar(0, 256, LOCAL_LLM_DEFAULTS.threads, "LOCAL_LLM: CPU threads of llama.cpp; 0 = llama.cpp's choice (the machine's cores)"),
  LOCAL_LLM_CONTEXT: intVar(256, 131_072, LOCAL_LLM_DEFAULTS.contextSize, 'LOCAL_LLM: context size in tokens (prompt + reply of one request)'),
  LOCAL_LLM_TIMEOUT_MS: intVar(100, 3_600_000, LOCAL_LLM_DEFAULTS.requestTimeoutMs, "LOCAL_LLM: one request's budget from its arrival, queue wait included; past it the endpoint answers 504 (transient: the client and the queue retry)"),
  LOCAL_LLM_MAX_TOKENS: intVar(1, 32_768, LOCAL_LLM_DEFAULTS.defaultMaxTokens, 'LOCAL_LLM: reply tokens when a request sets no max_tokens (the adapters set none)'),
  JUDGE_TIMEOUT_MS: intVar(100, 600_000, 60_000, 'timeout of one judge request (ms); with LOCAL_LLM unset = LOCAL_LLM_TIMEOUT_MS + 5 s'),
  JUDGE_MAX_REASKS: intVar(0, 10, 2, 're-asks after an unlabelled judge reply'),
  JUDGE_PROMPT: enumVar(['rf-v1-quote', 'rf-v1', 'rf-v2'], 'rf-v1-quote', "LLM judge prompt: rf-v1-quote = the paper's rf-v1 plus one sentence asking for the claim's sentences as [Quote: …] (claim spans on the review page); rf-v1 = the paper's prompt verbatim, no spans; rf-v2 = rf-v1-quote with the question, the wrong answer and the text each between tags, said to be data and never instructions (docs/security.md)"),
  JUDGE_CONCURRENCY: intVar(1, 64, 4, 'judge calls in flight within a round'),
  // RAGForensics bounds: ranges as in TraceParams (validateTraceParams), defaults DEFAULT_TRACE_PARAMS.
  TRACE_K: intVar(1, 100, DEFAULT_TRACE_PARAMS.k, 'K of RAGForensics: texts per retrieval round (library default)'),
  TRACE_MAX_ROUNDS: intVar(1, 1000, DEFAULT_TRACE_PARAMS.maxRounds, 'retrieval rounds per event before BOUNDED (library default)'),
  TRACE_MAX_JUDGE_CALLS: intVar(1, 100_000, DEFAULT_TRACE_PARAMS.maxJudgeCalls, 'judge calls per event before BOUNDED, ≥ TRACE_K (library default)'),
  QUEUE_ATTEMPTS: intVar(1, 100, 5, 'attempts of a traceback job (exponential backoff between them)'),
  QUEUE_BACKOFF_MS: intVar(0, 3_600_000, 2000, 'first retry delay of a failed job (ms)'),
  WORKER_CONCURRENCY: intVar(1, 64, 2, 'jobs per worker process'),
  WORKER_PROCESSES: intVar(1, 16, 1, '`npm start`: worker processes it runs beside the API (each WORKER_CONCURRENCY jobs; see Performance for when a second one pays)'),
  WORKER_LOCK_MS: intVar(1000, 600_000, 60_000, 'job lock of a worker (renewed every 5 s at most): a Redis pause or a blocked worker shorter than about this minus 5 s re-runs no job; a job whose worker died is taken over after about this long'),
  WORKER_DRAIN_MS: intVar(0, 600_000, 90_000, 'on SIGTERM/SIGINT the worker takes no new job and gives its active jobs this long (ms) to finish; then a traceback job is stopped at its next safe point and handed back to the queue for another worker; keep it 10 s or more below the stop grace period (compose and npm start: 120 s)'),
  REVIEW_CLAIM_TTL_SEC: intVar(10, 3600, 300, 'review console: how long opening an item claims it for its reviewer (renewed while open; expires by itself)'),
  REVIEW_REASONS: variable(z.string().default('').superRefine((v, ctx) => {
    try { if (v.trim()) parseReasonLabels(v); } catch (e) { ctx.addIssue({ code: 'custom', message: (e as Error).message }); }
  }), {
    expect: '`;`-separated key=Label entries (1..20; key a-z 0-9 -)',
    doc: `review console: the reason labels a reviewer attaches to a decision (keys 1–9 for the first nine; stored, exported, counted in /metrics). Default: ${DEFAULT_REASON_LABELS.map((r) => r.key).join(', ')}`,
  }),
  SWEEP_EVERY_MS: intVar(100, 3_600_000, 30_000, 'how often the worker reconciles: re-enqueues pending feedback that has no live job (persisted while the queue was unreachable, or failed during an outage)'),
  QUEUE_ENQUEUE_TIMEOUT_MS: intVar(50, 60_000, 500, 'bound on enqueueing a traceback at intake (ms): past it the request answers 202 with queued:false and the reconciler enqueues later'),
  QUEUE_PREFIX: textWithDefault('forensics', 'Redis key prefix of the queues (services sharing a Redis keep their jobs apart)'),
  AUDIT_SCHEDULE: variable(z.string().default('reconcile=0 * * * *;re-trace=30 */6 * * *').superRefine((v, ctx) => {
    try { if (v.trim() !== 'none') parseAuditSchedule(v); } catch (e) { ctx.addIssue({ code: 'custom', message: (e as Error).message }); }
  }), {
    expect: '`;`-separated kind[:collection]=cron entries, or "none"',
    doc: 'scheduled database audits (worker): e.g. "reconcile=0 * * * *;cluster-scan=30 3 * * *" (cron in UTC; an entry without a collection audits every collection); "none" = no schedules. Default: reconcile hourly, re-trace every 6 hours',
  }),
  ADMISSION_CHECK: enumVar(['on', 'off'], 'on', 'admission check at ingestion: new texts that would rank in the top ADMISSION_TOP_N for a watched question (see AUDIT_WATCH) are judged against its wrong answer and held for review, never served'),
  AUDIT_WATCH: enumVar(['reported', 'confirmed'], 'reported', 'which reports the admission check, the sibling sweep and the re-trace watch: reported = every traced report from a reporter at or above AUTO_QUARANTINE_MIN_TRUST not cleared by a reviewer, and reports whose texts were taken out; confirmed = only reports whose texts were taken out of serving'),
  ADMISSION_TOP_N: intVar(1, 1000, 50, 'admission check: a new text is judged when it would enter this many top results of a watched question (or is a paraphrase of its taken-out texts stating its wrong answer)'),
  ADMISSION_ANSWER_TOP_N: intVar(0, 10_000, DEFAULT_AUDIT_SETTINGS.admission.answerTopN!, 'admission check: below the top ADMISSION_TOP_N, a new text that would enter this many top results of a watched question AND states its wrong answer is judged too (0 = no such route)'),
  AUDIT_CONCURRENCY: intVar(1, 8, 1, 'audit runs per worker process at a time (audits are background work)'),
  AUDIT_AUTO_QUARANTINE: enumVar(['false', 'true'], 'false', 'true = audit findings may quarantine on their own; default false: they go to review (NEEDS_REVIEW, kept in serving) with their evidence'),
  WEBHOOK_TIMEOUT_MS: intVar(100, 60_000, 10_000, 'timeout of one webhook delivery attempt (ms)'),
  WEBHOOK_ATTEMPTS: intVar(1, 20, 8, 'attempts per webhook delivery (exponential backoff with jitter between them)'),
  WEBHOOK_BACKOFF_MS: intVar(10, 3_600_000, 30_000, 'base delay of webhook retries (ms): the n-th retry waits between base*2^(n-1)/2 and base*2^(n-1)'),
  WEBHOOK_DISABLE_AFTER: intVar(1, 1000, 5, 'consecutive failed webhook deliveries (all attempts spent) that disable an endpoint'),
  WEBHOOK_ALLOW_PRIVATE: enumVar(['false', 'true'], 'false', 'true = webhook URLs may use http and loopback / private / link-local addresses (same-network receivers, tests)'),
  WEBHOOK_SECRETS_KEY: variable(z.string().min(32).optional(), {
    expect: 'a string of at least 32 characters',
    doc: 'key that encrypts webhook signing secrets at rest (AES-256-GCM via HKDF); unset = derived from the feedback-token secret',
    secret: true,
  }),
  DEFAULT_COLLECTION: textWithDefault('default', 'collection used when a request names none (not by scheduled audits: an AUDIT_SCHEDULE entry without a collection audits every collection)'),
  EVIDENCE: enumVar(['on', 'off'], 'on', 'BiRD / GRADA / ProGRank on every judged candidate'),
  // Service limits (cost per event), tighter than BirdParams.k / ProgrankParams.runs accept; the
  // values are still checked by validateBirdParams / validateProgrankParams.
  BIRD_K: intVar(2, 1000, DEFAULT_BIRD_PARAMS.k, 'BiRD k: forward and backward ranking depth (library default)'),
  PROGRANK_RUNS: intVar(1, 200, DEFAULT_PROGRANK_PARAMS.runs, 'ProGRank perturbation runs R (library default)'),
  PROGRANK_TOKEN_DROPOUT: variable(z.coerce.number().min(0).lt(1).default(DEFAULT_TOKEN_DROPOUT_RATE), {
    expect: 'a number in [0, 1)',
    doc: 'ProGRank token dropout rate (library default)',
  }),
  PROBE: enumVar(['auto', 'use-lite', 'onnx', 'none'], 'auto', "ProGRank gradient probe; 'auto' = the embedder's encoder if probe-able, else the ONNX surrogate in PROBE_MODEL_DIR"),
  PROBE_MODEL_DIR: text('ONNX surrogate encoder for the gradient probe'),
  DECISION_POLICY: enumVar(POLICY_NAMES, DEFAULT_DECISION_POLICY.name, 'quarantine decision policy (library default)'),
  REVIEW_SERVING: enumVar(REVIEW_SERVING, DEFAULT_DECISION_POLICY.reviewServing, 'whether YES texts awaiting review stay served (library default)'),
  BAND_WITHHOLD: enumVar(BAND_WITHHOLD, DEFAULT_DECISION_POLICY.bandWithhold, 'band verdicts of the judge are withheld (YES or NO) when their report has a clear YES and served otherwise (event); also a band YES restating the question in a report without one (restated); or band YES always withheld (always) (library default)'),
  LONE_YES: enumVar(LONE_YES, DEFAULT_DECISION_POLICY.loneYes, "a report's only clear YES, when it does not restate the question, waits for review kept in serving (review) or is quarantined (act) (library default)"),
  SIBLING_WITHHOLD: enumVar(SIBLING_WITHHOLD, DEFAULT_DECISION_POLICY.siblingWithhold, "in a report with two or more clear YES, a text judged NO that shares its wording with two of them is withheld for review (on) or served (off) (library default)"),
  GENERATOR: derivedEnumVar(['offline', 'openai'], "answer/verification/benign-text generator; unset = 'openai' when an endpoint (or LOCAL_LLM) is set, else 'offline'"),
  GENERATOR_MODEL: text('generator model name; unset = JUDGE_MODEL'),
  FEEDBACK_TOKEN_SECRET: variable(z.string().min(16).optional(), {
    expect: 'a string of at least 16 characters',
    doc: 'HMAC secret of feedback tokens; unset = a local secret resolved by the composition root',
    secret: true,
  }),
  NODE_ENV: textWithDefault('development', "'production' = production mode: weak API keys / token secrets refused at start-up, /metrics needs METRICS_TOKEN, JSON logs"),
  WORKER_METRICS_PORT: variable(integer(0, 65535).schema.optional(), { expect: integer(0, 65535).expect, doc: 'a worker running as its own process (npm run start:worker) serves GET /metrics on this port, on HOST, with the METRICS_TOKEN rule (0 = a free port, logged at start); unset = the worker serves no metrics' }),
  METRICS_TOKEN: text('bearer token of GET /metrics (Authorization: Bearer <token>); unset = no auth (refused in production)', true),
  LOG_FORMAT: derivedEnumVar(['json', 'pretty'], "log output; unset = 'json' in production, else 'pretty'"),
  FEEDBACK_TOKEN_TTL_SEC: intVar(60, 365 * DAY_SEC, 7 * DAY_SEC, 'lifetime of feedback tokens (s)'),
  API_KEY_PEPPER: variable(z.string().min(32).optional(), {
    expect: 'a string of at least 32 characters',
    doc: 'server-side secret of the API keys\' keyed hash (HMAC-SHA256); unset = derived from the feedback-token secret',
    secret: true,
  }),
  SESSION_TTL_MINUTES: intVar(1, 7 * 24 * 60, 480, 'lifetime of a console session (minutes; enforced server-side)'),
  // Reporter trust (issue 13, item 1): library defaults (DEFAULT_TRUST_PARAMS), checked by validateTrustParams.
  AUTO_QUARANTINE_MIN_TRUST: enumVar(TRUST_LEVELS, DEFAULT_TRUST_PARAMS.minTrust, 'lowest reporter trust whose YES verdicts quarantine on their own (anonymous = feedback token, identified = API key/session, reviewer = may decide); below it they go to review unless corroborated (library default)'),
  CORROBORATION_MIN_REPORTERS: intVar(1, 1000, DEFAULT_TRUST_PARAMS.corroborationMinReporters, 'distinct reporters (by address or key) of the same question and wrong answer that let a low-trust report quarantine (library default)'),
  AUTO_QUARANTINE_MAX_PER_EVENT: intVar(0, 100_000, DEFAULT_TRUST_PARAMS.maxPerEvent, 'automatic quarantines per feedback event; further YES verdicts go to review; 0 = no cap (library default)'),
  AUTO_QUARANTINE_MAX_PER_REPORTER_DAY: intVar(0, 10_000_000, DEFAULT_TRUST_PARAMS.maxPerReporterDay, 'automatic quarantines per reporter (address or key) in 24 h; further YES verdicts go to review; 0 = no cap (library default)'),
  TRUST_HELD_SERVING: enumVar(['serve', 'withhold'], DEFAULT_TRUST_PARAMS.heldServing, 'whether texts held for review by trust, corroboration or a cap stay served (library default)'),
  ENHANCEMENT_MIN_QUERY_SIMILARITY: variable(z.coerce.number().min(-1).max(1).optional(), {
    expect: 'a number in [-1, 1]',
    doc: 'an enhancement\'s benign text is served for its own question (compared folded) or one at least this similar (cosine of the questions\' embeddings); unset = the value measured for the encoder (use-lite 0.9, others 0.95); -1 = any question that retrieves it',
  }),
  // Consensus check (issue 13, item 1): library defaults (DEFAULT_CONSENSUS_PARAMS).
  CONSENSUS_CHECK: enumVar(['on', 'off'], 'on', 'consensus check before decisions: when many independent texts (not near-duplicates) of the question\'s wider pool state the reported answer, the event is a suspected false flag and nothing is auto-quarantined'),
  CONSENSUS_POOL: intVar(5, 500, DEFAULT_CONSENSUS_PARAMS.pool, 'texts retrieved for the question by the consensus check (library default)'),
  CONSENSUS_SUSPECTS: enumVar(['include', 'exclude'], DEFAULT_CONSENSUS_PARAMS.suspects, 'whether the texts the judge found inducing the answer count as supporters in the consensus check (library default)'),
  CONSENSUS_SOURCE_KEY: textWithDefault(DEFAULT_CONSENSUS_PARAMS.sourceKey, 'metadata key naming a text\'s source (URL → its host) for the consensus check: texts from different known sources are independent however alike they read, one source is one voice; `off` = ignore sources. Only for a key your ingestion pipeline writes, not the text\'s author'),
  CONSENSUS_RESTATED_COVERAGE: variable(z.coerce.number().min(0).max(1).default(DEFAULT_CONSENSUS_PARAMS.restatedCoverage), {
    doc: 'consensus check (issue 33): texts stating the answer whose answer window restates at least this share of the question\'s terms are one voice (a planted group written for the question, judged or not), however worded; 0 = off (library default)',
    expect: 'a number in [0, 1]',
  }),
  CONSENSUS_MIN_CLUSTERS: intVar(2, 100, DEFAULT_CONSENSUS_PARAMS.minClusters, 'independent groups stating the reported answer that make a suspected false flag (library default)'),
  // Rate limits (issue 13, item 2): requests per minute; 0 = off. Redis-backed when the queue's Redis is configured.
  RATE_LIMIT_FEEDBACK_PER_MIN: intVar(0, 1_000_000, 10, 'POST /v1/feedback: requests per minute per feedback token (answer id); 0 = off'),
  RATE_LIMIT_REPORTER_PER_MIN: intVar(0, 1_000_000, 60, 'POST /v1/feedback naming a `reporter` in its body: requests per minute per reporter name; 0 = off'),
  RATE_LIMIT_ADDRESS_PER_MIN: intVar(0, 1_000_000, 120, 'POST /v1/feedback with a feedback token (browsers): requests per minute per client address (req.ip); 0 = off'),
  RATE_LIMIT_KEY_PER_MIN: intVar(0, 1_000_000, 6000, 'POST /v1/feedback with an API key or session: requests per minute per key; 0 = off'),
  RATE_LIMIT_ANSWERS_PER_MIN: intVar(0, 1_000_000, 6000, 'POST /v1/answers and /v1/rag/answer: requests per minute per API key (each answer mints a feedback token); 0 = off'),
  // Issue 57 item 4: what the limits do while their store (Redis) does not answer was a silent fail-open.
  RATE_LIMIT_ON_REDIS_DOWN: enumVar(['open', 'closed'], 'open', 'while the rate limits\' store (Redis) does not answer: open = limited requests are let through unchecked (a report must not be lost because Redis is slow: it is persisted in Postgres and traced once Redis is back); closed = they are refused with 503 and Retry-After. Logged at warn once per outage, at info when Redis answers again'),
});

export type ConfigEnv = z.output<typeof ENV_SCHEMA>;

function trustOf(e: ConfigEnv): TrustParams {
  return {
    minTrust: e.AUTO_QUARANTINE_MIN_TRUST, corroborationMinReporters: e.CORROBORATION_MIN_REPORTERS, maxPerEvent: e.AUTO_QUARANTINE_MAX_PER_EVENT,
    maxPerReporterDay: e.AUTO_QUARANTINE_MAX_PER_REPORTER_DAY, heldServing: e.TRUST_HELD_SERVING,
  };
}
type VariableName = keyof ConfigEnv & string;

const MAX_SHOWN = 80;

/** A variable's value as printed in errors: quoted, control characters escaped, long values cut, secrets hidden. */
function shown(name: string, raw: string | undefined): string {
  const meta = CONFIG_VARIABLES.get(ENV_SCHEMA.shape[name as VariableName]);
  if (meta?.secret) return '(hidden)';
  if (raw === undefined) return '(unset)';
  const escaped = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return raw.length > MAX_SHOWN ? `'${escaped(raw.slice(0, MAX_SHOWN))}…' (${raw.length} chars)` : `'${escaped(raw)}'`;
}

/** Runs one of the library's validators; a RangeError becomes a problem naming the variables that were set. */
function libraryCheck(problems: string[], env: NodeJS.ProcessEnv, names: readonly VariableName[], validator: string, check: () => unknown): void {
  try {
    check();
  } catch (e) {
    const set = names.filter((n) => env[n] !== undefined && env[n] !== '');
    problems.push(`${(set.length ? set : names).map((n) => `${n}=${shown(n, env[n])}`).join(', ')} rejected by ${validator}: ${(e as Error).message}`);
  }
}

/** Keys and secrets that are public (shipped in examples and docs) and so never acceptable in production. */
export const KNOWN_WEAK_SECRETS: readonly string[] = [DEV_API_KEY, 'change-me', 'changeme', 'secret', 'password', 'test', 'example'];
/** Minimum lengths of production secrets. */
export const MIN_PRODUCTION_API_KEY_LENGTH = 24;
export const MIN_PRODUCTION_SECRET_LENGTH = 32;

function weakness(value: string, min: number): string | null {
  if (KNOWN_WEAK_SECRETS.includes(value.toLowerCase()) || /^change[-_]?me/i.test(value)) return 'a known placeholder';
  if (value.length < min) return `shorter than ${min} characters`;
  return null;
}

/**
 * NODE_ENV=production: the deployment's secrets must be set and strong (values are never printed,
 * only which variable and why).
 */
function productionProblems(problems: string[], v: Partial<ConfigEnv>): void {
  const where = '(NODE_ENV=production)';
  if ('API_KEYS' in v) {
    if (v.API_KEYS === undefined) problems.push(`API_KEYS must be set in production ${where}: the development key '${DEV_API_KEY}' is refused; use keys of at least ${MIN_PRODUCTION_API_KEY_LENGTH} random characters (e.g. openssl rand -hex 24)`);
    else v.API_KEYS.forEach((key, i) => {
      const why = weakness(key, MIN_PRODUCTION_API_KEY_LENGTH);
      if (why) problems.push(`API_KEYS key #${i + 1} is ${why} ${where}: use keys of at least ${MIN_PRODUCTION_API_KEY_LENGTH} random characters (e.g. openssl rand -hex 24)`);
    });
  }
  if ('FEEDBACK_TOKEN_SECRET' in v) {
    const secret = v.FEEDBACK_TOKEN_SECRET;
    const why = secret === undefined ? 'not set' : weakness(secret, MIN_PRODUCTION_SECRET_LENGTH);
    if (why) problems.push(`FEEDBACK_TOKEN_SECRET is ${why} ${where}: set at least ${MIN_PRODUCTION_SECRET_LENGTH} random characters (e.g. openssl rand -hex 32), the same on every API process`);
  }
  if ('API_KEY_PEPPER' in v && v.API_KEY_PEPPER !== undefined) {
    const why = weakness(v.API_KEY_PEPPER, MIN_PRODUCTION_SECRET_LENGTH);
    if (why) problems.push(`API_KEY_PEPPER is ${why} ${where}: set at least ${MIN_PRODUCTION_SECRET_LENGTH} random characters (e.g. openssl rand -hex 32), or leave it unset to derive it from FEEDBACK_TOKEN_SECRET`);
  }
  if ('METRICS_TOKEN' in v && v.METRICS_TOKEN !== undefined) {
    const why = weakness(v.METRICS_TOKEN, MIN_PRODUCTION_API_KEY_LENGTH);
    if (why) problems.push(`METRICS_TOKEN is ${why} ${where}: use at least ${MIN_PRODUCTION_API_KEY_LENGTH} random characters`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Reads and validates the environment. Collects every problem (bad values, cross-variable rules,
 * the algorithm library's own checks) and throws one `ConfigError` listing them all. The result is
 * deeply frozen.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, projectRoot = resolve(__dirname, '../../../..')): AppConfig {
  const problems: string[] = [];
  const parsed: Partial<Record<VariableName, unknown>> = {};
  for (const name of Object.keys(ENV_SCHEMA.shape) as VariableName[]) {
    const result = ENV_SCHEMA.shape[name].safeParse(env[name]);
    if (result.success) parsed[name] = result.data;
    else problems.push(`${name} must be ${CONFIG_VARIABLES.get(ENV_SCHEMA.shape[name])!.expect}, got ${shown(name, env[name])}`);
  }
  const v = parsed as Partial<ConfigEnv>;
  const ok = (...names: VariableName[]) => names.every((n) => n in parsed);
  if (v.VECTOR_STORE === 'pgvector' && !v.PGVECTOR_URL && !v.DATABASE_URL) problems.push('VECTOR_STORE=pgvector needs PGVECTOR_URL or DATABASE_URL (a PostgreSQL with the pgvector extension; the embedded PostgreSQL has none)');
  if (v.VECTOR_STORE === 'qdrant' && !v.QDRANT_URL) problems.push('VECTOR_STORE=qdrant needs QDRANT_URL');
  if (v.PGVECTOR_ATTACH_LAYOUT && v.VECTOR_STORE !== 'pgvector') problems.push('PGVECTOR_ATTACH_LAYOUT needs VECTOR_STORE=pgvector');
  if (v.PGVECTOR_ATTACH_LAYOUT === 'langchain' && !v.PGVECTOR_ATTACH_COLLECTION) problems.push('PGVECTOR_ATTACH_LAYOUT=langchain needs PGVECTOR_ATTACH_COLLECTION (the LangChain collection name)');
  if (v.PGVECTOR_ATTACH_LAYOUT === 'table' && !v.PGVECTOR_ATTACH_TABLE) problems.push('PGVECTOR_ATTACH_LAYOUT=table needs PGVECTOR_ATTACH_TABLE');
  if (v.PGVECTOR_SCHEMA && !/^[a-z_][a-z0-9_]{0,62}$/.test(v.PGVECTOR_SCHEMA)) problems.push(`PGVECTOR_SCHEMA must be a lower-case identifier, got ${shown('PGVECTOR_SCHEMA', v.PGVECTOR_SCHEMA)}`);
  if (v.QDRANT_ATTACH_COLLECTION && !v.QDRANT_URL) problems.push('QDRANT_ATTACH_COLLECTION needs QDRANT_URL (attach mode works on a Qdrant server)');
  if (v.QDRANT_ATTACH_AS && !/^[A-Za-z0-9_-]{1,57}$/.test(v.QDRANT_ATTACH_AS)) {
    problems.push(`QDRANT_ATTACH_AS must be 1-57 characters from A-Z, a-z, 0-9, '_' and '-', got ${shown('QDRANT_ATTACH_AS', v.QDRANT_ATTACH_AS)}`);
  } else if (v.QDRANT_ATTACH_COLLECTION && !v.QDRANT_ATTACH_AS && !/^[A-Za-z0-9_-]{1,57}$/.test(v.QDRANT_ATTACH_COLLECTION)) {
    problems.push('QDRANT_ATTACH_COLLECTION is not a valid service collection name (1-57 characters from A-Z, a-z, 0-9, \'_\', \'-\'): set QDRANT_ATTACH_AS to the name the service should use');
  }

  // Cross-variable rules.
  const openaiBase = v.OPENAI_BASE_URL;
  const hostedEndpoint = Boolean(openaiBase || v.OPENAI_API_KEY);
  const localLlm = v.LOCAL_LLM ? localLlmOf(v.LOCAL_LLM, v.MODELS_DIR) : undefined;
  const openaiEndpoint = hostedEndpoint || Boolean(localLlm);
  if (localLlm && openaiBase) problems.push('LOCAL_LLM and OPENAI_BASE_URL are both set: the OpenAI adapters talk to one endpoint; unset one');
  if (localLlm && !existsSync(localLlm.modelPath)) {
    problems.push(`LOCAL_LLM=${shown('LOCAL_LLM', v.LOCAL_LLM)}: ${localLlm.modelPath} is missing: ${localLlm.named ? `run \`npm run models -- --llm ${v.LOCAL_LLM}\` (or point MODELS_DIR at your own copy)` : 'give the path of a .gguf file or a model name of `npm run models`'}`);
  }
  if (localLlm && !openaiBase) {
    // The endpoint serves one model and refuses other names: a verdict records the model that gave it.
    for (const n of ['JUDGE_MODEL', 'GENERATOR_MODEL'] as const) {
      if (v[n] !== undefined && v[n] !== localLlm.model) problems.push(`${n}=${shown(n, v[n])} but LOCAL_LLM serves '${localLlm.model}': unset ${n} or set it to '${localLlm.model}'`);
    }
  }
  const embedderKind = v.EMBEDDER ?? (v.ONNX_MODEL_DIR ? 'onnx' : 'use-lite');
  const minilmPresent = existsSync(join(modelsDirOf(v.MODELS_DIR), MINILM_DIR, 'model.onnx'));
  const judgeKind = v.JUDGE ?? (openaiEndpoint ? 'openai' : 'offline');
  if (ok('JUDGE') && v.JUDGE === 'reader' && !minilmPresent) {
    problems.push(`JUDGE='reader' needs ${join(modelsDirOf(v.MODELS_DIR), MINILM_DIR)}/model.onnx: run \`npm run models\` (or point MODELS_DIR at your own copy), or set JUDGE=offline`);
  }
  const generatorKind = v.GENERATOR ?? (openaiEndpoint ? 'openai' : 'offline');
  if (ok('EMBEDDER') && embedderKind === 'minilm' && !minilmPresent) {
    problems.push(`EMBEDDER='minilm' needs ${join(modelsDirOf(v.MODELS_DIR), MINILM_DIR)}/model.onnx: run \`npm run models\` (or point MODELS_DIR at your own copy)`);
  }
  if (ok('EMBEDDER') && embedderKind === 'onnx' && !v.ONNX_MODEL_DIR) {
    problems.push("EMBEDDER='onnx' needs ONNX_MODEL_DIR (a folder with model.onnx and tokenizer.json)");
  }
  // The local LLM serves chat completions only: an OpenAI embedder needs a hosted endpoint.
  const wantOpenai = (['JUDGE', 'EMBEDDER', 'GENERATOR'] as const).filter((n) => ok(n) && v[n] === 'openai' && !(n === 'EMBEDDER' ? hostedEndpoint : openaiEndpoint));
  if (wantOpenai.length) {
    problems.push(`${wantOpenai.map((n) => `${n}='openai'`).join(', ')} need${wantOpenai.length === 1 ? 's' : ''} OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint)${wantOpenai.includes('EMBEDDER') ? '' : ', or LOCAL_LLM (a local GGUF model)'}`);
  }

  // The algorithm library's own checks (cross-field rules such as maxJudgeCalls ≥ k, and any range the library tightens).
  if (ok('TRACE_K', 'TRACE_MAX_ROUNDS', 'TRACE_MAX_JUDGE_CALLS')) {
    libraryCheck(problems, env, ['TRACE_K', 'TRACE_MAX_ROUNDS', 'TRACE_MAX_JUDGE_CALLS'], 'validateTraceParams', () =>
      validateTraceParams({ k: v.TRACE_K, maxRounds: v.TRACE_MAX_ROUNDS, maxJudgeCalls: v.TRACE_MAX_JUDGE_CALLS }));
  }
  if (ok('BIRD_K')) libraryCheck(problems, env, ['BIRD_K'], 'validateBirdParams', () => validateBirdParams({ k: v.BIRD_K }));
  if (ok('PROGRANK_RUNS')) libraryCheck(problems, env, ['PROGRANK_RUNS'], 'validateProgrankParams', () => validateProgrankParams({ runs: v.PROGRANK_RUNS }));
  if (ok('PROGRANK_TOKEN_DROPOUT')) {
    // The library has no params validator for the rate; tokenDropoutMask range-checks it before drawing.
    libraryCheck(problems, env, ['PROGRANK_TOKEN_DROPOUT'], 'tokenDropoutMask', () => tokenDropoutMask([], v.PROGRANK_TOKEN_DROPOUT, () => 0));
  }
  if (ok('DECISION_POLICY', 'REVIEW_SERVING', 'BAND_WITHHOLD', 'LONE_YES', 'SIBLING_WITHHOLD')) {
    libraryCheck(problems, env, ['DECISION_POLICY', 'REVIEW_SERVING', 'BAND_WITHHOLD', 'LONE_YES', 'SIBLING_WITHHOLD'], 'validateDecisionPolicy', () =>
      validateDecisionPolicy({ name: v.DECISION_POLICY, reviewServing: v.REVIEW_SERVING, bandWithhold: v.BAND_WITHHOLD, loneYes: v.LONE_YES, siblingWithhold: v.SIBLING_WITHHOLD }));
  }

  if (ok('AUTO_QUARANTINE_MIN_TRUST', 'CORROBORATION_MIN_REPORTERS', 'AUTO_QUARANTINE_MAX_PER_EVENT', 'AUTO_QUARANTINE_MAX_PER_REPORTER_DAY', 'TRUST_HELD_SERVING')) {
    libraryCheck(problems, env, ['AUTO_QUARANTINE_MIN_TRUST', 'CORROBORATION_MIN_REPORTERS', 'AUTO_QUARANTINE_MAX_PER_EVENT', 'AUTO_QUARANTINE_MAX_PER_REPORTER_DAY', 'TRUST_HELD_SERVING'], 'validateTrustParams', () =>
      validateTrustParams(trustOf(v as ConfigEnv)));
  }

  const production = v.NODE_ENV === 'production';
  if (production) productionProblems(problems, v);
  // Development mode is for this machine (issue 56 item 6): listening beyond it without production settings is refused.
  if (!production && ok('HOST') && v.HOST !== undefined && !isLoopbackHost(v.HOST) && v.EXPOSE_DEVELOPMENT !== 'true') {
    problems.push(
      `HOST=${v.HOST} listens beyond this machine, but the service is in development mode (NODE_ENV is not 'production': the development key, /metrics without a token and weak secrets are accepted). ` +
      `Set NODE_ENV=production with API_KEYS (at least ${MIN_PRODUCTION_API_KEY_LENGTH} characters each) and FEEDBACK_TOKEN_SECRET (docs/operations.md, "Deploying"), or HOST=127.0.0.1; EXPOSE_DEVELOPMENT=true accepts the risk on a trusted network`,
    );
  }

  if (problems.length) throw new ConfigError(problems);
  const e = v as ConfigEnv;
  const judgeModel = e.JUDGE_MODEL ?? (localLlm && !openaiBase ? localLlm.model : DEFAULT_LLM_MODEL);
  // The local endpoint queues the worker's JUDGE_CONCURRENCY calls one behind the other, and a client timeout counts the
  // queue wait: a 60 s client timeout over a slow CPU model gave up on queued calls and retried them into the same
  // queue. Unless JUDGE_TIMEOUT_MS is set, the client waits past the endpoint's own budget, whose 504 says what ran out.
  const llmTimeoutMs = localLlm && !openaiBase && env.JUDGE_TIMEOUT_MS === undefined ? e.LOCAL_LLM_TIMEOUT_MS + 5_000 : e.JUDGE_TIMEOUT_MS;

  const config: AppConfig = {
    projectRoot,
    dataDir: resolve(projectRoot, e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    qdrantUrl: e.QDRANT_URL,
    qdrantApiKey: e.QDRANT_API_KEY,
    vectorStore: {
      indexMinRows: e.VECTOR_INDEX_MIN_ROWS,
      annNprobes: e.VECTOR_ANN_NPROBES,
      annRefine: e.VECTOR_ANN_REFINE,
      annIndex: e.VECTOR_ANN_INDEX,
      annEf: e.VECTOR_ANN_EF,
      attach: e.QDRANT_ATTACH_COLLECTION
        ? {
            collection: e.QDRANT_ATTACH_COLLECTION,
            serviceCollection: e.QDRANT_ATTACH_AS,
            textKey: e.QDRANT_ATTACH_TEXT_KEY,
            vectorName: e.QDRANT_ATTACH_VECTOR,
            idType: e.QDRANT_ATTACH_ID_TYPE,
            quarantineKey: e.QDRANT_ATTACH_QUARANTINE_KEY,
          }
        : undefined,
      kind: e.VECTOR_STORE,
      pgvector: {
        url: e.PGVECTOR_URL ?? e.DATABASE_URL,
        schema: e.PGVECTOR_SCHEMA,
        efSearch: e.PGVECTOR_EF_SEARCH,
        hnswM: e.PGVECTOR_HNSW_M,
        hnswEfConstruction: e.PGVECTOR_HNSW_EF_CONSTRUCTION,
        attach: e.PGVECTOR_ATTACH_LAYOUT
          ? {
              layout: e.PGVECTOR_ATTACH_LAYOUT, table: e.PGVECTOR_ATTACH_TABLE, langchainCollection: e.PGVECTOR_ATTACH_COLLECTION,
              idColumn: e.PGVECTOR_ATTACH_ID_COLUMN, contentColumn: e.PGVECTOR_ATTACH_CONTENT_COLUMN, embeddingColumn: e.PGVECTOR_ATTACH_EMBEDDING_COLUMN,
              idType: e.PGVECTOR_ATTACH_ID_TYPE, serviceCollection: e.PGVECTOR_ATTACH_AS,
            }
          : undefined,
      },
    },
    host: e.HOST,
    port: e.PORT,
    apiKeys: e.API_KEYS ?? [DEV_API_KEY],
    devApiKey: e.API_KEYS === undefined,
    bodyLimit: e.BODY_LIMIT,
    jsonMaxDepth: e.JSON_MAX_DEPTH,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    intakeFastPath: e.INTAKE_FAST_PATH === 'true',
    trustProxyHops: e.TRUST_PROXY,
    embedder: { kind: embedderKind, onnxModelDir: embedderKind === 'minilm' ? join(modelsDirOf(e.MODELS_DIR), MINILM_DIR) : e.ONNX_MODEL_DIR, model: e.EMBEDDING_MODEL, dimension: e.EMBEDDING_DIMENSION },
    modelsDir: modelsDirOf(e.MODELS_DIR),
    judge: { kind: judgeKind, ...(judgeKind === 'reader' ? { readerModelDir: join(modelsDirOf(e.MODELS_DIR), MINILM_DIR) } : {}), model: judgeModel, timeoutMs: llmTimeoutMs, maxReasks: e.JUDGE_MAX_REASKS, prompt: e.JUDGE_PROMPT },
    openai: { baseURL: openaiBase, apiKey: e.OPENAI_API_KEY ?? (openaiBase || localLlm ? 'not-needed' : undefined) },
    // The embedded mode starts it and points the OpenAI adapters at it (infrastructure.module.ts); absent with OPENAI_BASE_URL.
    localLlm: localLlm && !openaiBase
      ? { model: localLlm.model, modelPath: localLlm.modelPath, threads: e.LOCAL_LLM_THREADS, contextSize: e.LOCAL_LLM_CONTEXT, requestTimeoutMs: e.LOCAL_LLM_TIMEOUT_MS, defaultMaxTokens: e.LOCAL_LLM_MAX_TOKENS, maxQueue: LOCAL_LLM_DEFAULTS.maxQueue }
      : undefined,
    trace: { k: e.TRACE_K, maxRounds: e.TRACE_MAX_ROUNDS, maxJudgeCalls: e.TRACE_MAX_JUDGE_CALLS, judgeConcurrency: e.JUDGE_CONCURRENCY },
    queue: { attempts: e.QUEUE_ATTEMPTS, backoffMs: e.QUEUE_BACKOFF_MS, workerConcurrency: e.WORKER_CONCURRENCY, workerProcesses: e.WORKER_PROCESSES, prefix: e.QUEUE_PREFIX, lockMs: e.WORKER_LOCK_MS, drainMs: e.WORKER_DRAIN_MS, sweepEveryMs: e.SWEEP_EVERY_MS, enqueueTimeoutMs: e.QUEUE_ENQUEUE_TIMEOUT_MS },
    defaultCollection: e.DEFAULT_COLLECTION,
    evidence: { enabled: e.EVIDENCE === 'on', birdK: e.BIRD_K, progrankRuns: e.PROGRANK_RUNS, progrankTokenDropout: e.PROGRANK_TOKEN_DROPOUT },
    probe: { kind: e.PROBE, modelDir: e.PROBE_MODEL_DIR },
    policy: { name: e.DECISION_POLICY, reviewServing: e.REVIEW_SERVING, bandWithhold: e.BAND_WITHHOLD, loneYes: e.LONE_YES, siblingWithhold: e.SIBLING_WITHHOLD },
    generator: { kind: generatorKind, model: e.GENERATOR_MODEL ?? judgeModel },
    feedbackTokenSecret: e.FEEDBACK_TOKEN_SECRET,
    feedbackTokenTtlSec: e.FEEDBACK_TOKEN_TTL_SEC,
    production,
    metricsToken: e.METRICS_TOKEN,
    workerMetricsPort: e.WORKER_METRICS_PORT,
    logFormat: e.LOG_FORMAT ?? (production ? 'json' : 'pretty'),
    webhooks: {
      timeoutMs: e.WEBHOOK_TIMEOUT_MS, attempts: e.WEBHOOK_ATTEMPTS, backoffMs: e.WEBHOOK_BACKOFF_MS, disableAfter: e.WEBHOOK_DISABLE_AFTER,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true', secretsKey: e.WEBHOOK_SECRETS_KEY,
    },
    apiKeyPepper: e.API_KEY_PEPPER,
    sessionTtlMinutes: e.SESSION_TTL_MINUTES,
    reviewClaimTtlSec: e.REVIEW_CLAIM_TTL_SEC,
    reviewReasons: e.REVIEW_REASONS.trim() ? parseReasonLabels(e.REVIEW_REASONS) : DEFAULT_REASON_LABELS,
    trust: trustOf(e),
    enhancementMinQuerySimilarity: e.ENHANCEMENT_MIN_QUERY_SIMILARITY,
    consensus: { ...DEFAULT_CONSENSUS_PARAMS, enabled: e.CONSENSUS_CHECK === 'on', pool: e.CONSENSUS_POOL, minClusters: e.CONSENSUS_MIN_CLUSTERS, restatedCoverage: e.CONSENSUS_RESTATED_COVERAGE, suspects: e.CONSENSUS_SUSPECTS, sourceKey: e.CONSENSUS_SOURCE_KEY.trim() === 'off' ? '' : e.CONSENSUS_SOURCE_KEY.trim() },
    audits: {
      schedules: e.AUDIT_SCHEDULE.trim() === 'none' ? [] : parseAuditSchedule(e.AUDIT_SCHEDULE),
      concurrency: e.AUDIT_CONCURRENCY, autoQuarantine: e.AUDIT_AUTO_QUARANTINE === 'true',
      admission: { enabled: e.ADMISSION_CHECK === 'on', topN: e.ADMISSION_TOP_N, answerTopN: e.ADMISSION_ANSWER_TOP_N },
      watch: e.AUDIT_WATCH,
    },
    rateLimits: {
      feedbackPerToken: e.RATE_LIMIT_FEEDBACK_PER_MIN, feedbackPerReporter: e.RATE_LIMIT_REPORTER_PER_MIN, feedbackPerAddress: e.RATE_LIMIT_ADDRESS_PER_MIN,
      feedbackPerKey: e.RATE_LIMIT_KEY_PER_MIN, answersPerKey: e.RATE_LIMIT_ANSWERS_PER_MIN, onStoreDown: e.RATE_LIMIT_ON_REDIS_DOWN,
    },
  };
  return deepFreeze(config);
}

/**
 * The use cases' audit settings from the configuration (ADMISSION_CHECK, ADMISSION_TOP_N,
 * ADMISSION_ANSWER_TOP_N, AUDIT_AUTO_QUARANTINE, AUDIT_WATCH): the service (`coreSettingsFor`) and the
 * evaluation harness read them through this one mapping. (Until 2026-11-24 the service left them out:
 * the first three were parsed and documented but the defaults always applied.)
 */
export function auditSettingsFor(config: Pick<AppConfig, 'audits'>): AuditSettings {
  const a = config.audits;
  return {
    autoQuarantine: a.autoQuarantine,
    admission: { ...DEFAULT_AUDIT_SETTINGS.admission, enabled: a.admission.enabled, topN: a.admission.topN, answerTopN: a.admission.answerTopN },
    watch: a.watch,
  };
}
