import { resolve } from 'node:path';

/**
 * The whole configuration, read once from the environment by the apps (never deep inside libraries).
 * Every setting has a default that works on one machine with no setup (embedded defaults).
 */
export interface AppConfig {
  projectRoot: string;
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  qdrantUrl?: string;
  qdrantApiKey?: string;
  host: string;
  port: number;
  apiKeys: string[];
  /** True when API_KEYS was not set and the development key is in use. */
  devApiKey: boolean;
  bodyLimit: string;
  embedder: { kind: 'use-lite' | 'onnx' | 'openai'; onnxModelDir?: string; model?: string; dimension?: number };
  judge: { kind: 'offline' | 'openai'; model: string; timeoutMs: number; maxReasks: number };
  openai: { baseURL?: string; apiKey?: string };
  trace: { k: number; maxRounds: number; maxJudgeCalls: number; judgeConcurrency: number };
  queue: { attempts: number; backoffMs: number; workerConcurrency: number; prefix: string };
  defaultCollection: string;
  /** Retriever-side evidence and the quarantine decision policy (algorithms.md §2–5). */
  evidence: { enabled: boolean; birdK: number; progrankRuns: number; progrankTokenDropout: number };
  /** Gradient probe for ProGRank: 'auto' = the embedder's own encoder when it can be probed, else the ONNX surrogate in PROBE_MODEL_DIR. */
  probe: { kind: 'auto' | 'use-lite' | 'onnx' | 'none'; modelDir?: string };
  policy: { name: 'judge-only' | 'corroborated'; reviewServing: 'withhold' | 'serve' };
  /** Generator for the built-in RAG answer, verification and BTE: 'openai' when an endpoint is configured, else 'offline'. */
  generator: { kind: 'offline' | 'openai'; model: string };
  /** HMAC secret of feedback tokens (browser feedback without an API key). */
  feedbackTokenSecret: string;
  feedbackTokenTtlSec: number;
}

export const DEV_API_KEY = 'dev-local-key';

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${name} must be an integer in [${min}, ${max}], got '${raw}'`);
  }
  return v;
}

function fraction(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < 0 || v >= 1) throw new Error(`${name} must be a number in [0, 1), got '${raw}'`);
  return v;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], dflt: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got '${raw}'`);
  return raw as T;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, projectRoot = resolve(__dirname, '../../../..')): AppConfig {
  const apiKeys = (env.API_KEYS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const openaiBase = env.OPENAI_BASE_URL || undefined;
  const judgeKind = oneOf(env, 'JUDGE', ['offline', 'openai'] as const, openaiBase || env.OPENAI_API_KEY ? 'openai' : 'offline');
  const embedderKind = oneOf(env, 'EMBEDDER', ['use-lite', 'onnx', 'openai'] as const, env.ONNX_MODEL_DIR ? 'onnx' : 'use-lite');
  if (embedderKind === 'onnx' && !env.ONNX_MODEL_DIR) throw new Error('EMBEDDER=onnx needs ONNX_MODEL_DIR (a folder with model.onnx and tokenizer.json)');
  if ((judgeKind === 'openai' || embedderKind === 'openai') && !env.OPENAI_API_KEY && !openaiBase) {
    throw new Error('JUDGE=openai / EMBEDDER=openai need OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint)');
  }
  return {
    projectRoot,
    dataDir: resolve(projectRoot, env.DATA_DIR || '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    qdrantUrl: env.QDRANT_URL || undefined,
    qdrantApiKey: env.QDRANT_API_KEY || undefined,
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 3000, 0, 65535),
    apiKeys: apiKeys.length ? apiKeys : [DEV_API_KEY],
    devApiKey: apiKeys.length === 0,
    bodyLimit: env.BODY_LIMIT || '256kb',
    embedder: {
      kind: embedderKind,
      onnxModelDir: env.ONNX_MODEL_DIR || undefined,
      model: env.EMBEDDING_MODEL || undefined,
      dimension: env.EMBEDDING_DIMENSION ? int(env, 'EMBEDDING_DIMENSION', 0, 1, 65536) : undefined,
    },
    judge: {
      kind: judgeKind,
      model: env.JUDGE_MODEL || 'gpt-4o-mini',
      timeoutMs: int(env, 'JUDGE_TIMEOUT_MS', 60_000, 100, 600_000),
      maxReasks: int(env, 'JUDGE_MAX_REASKS', 2, 0, 10),
    },
    openai: { baseURL: openaiBase, apiKey: env.OPENAI_API_KEY || (openaiBase ? 'not-needed' : undefined) },
    trace: {
      k: int(env, 'TRACE_K', 5, 1, 100),
      maxRounds: int(env, 'TRACE_MAX_ROUNDS', 10, 1, 1000),
      maxJudgeCalls: int(env, 'TRACE_MAX_JUDGE_CALLS', 50, 1, 100_000),
      judgeConcurrency: int(env, 'JUDGE_CONCURRENCY', 4, 1, 64),
    },
    queue: {
      attempts: int(env, 'QUEUE_ATTEMPTS', 5, 1, 100),
      backoffMs: int(env, 'QUEUE_BACKOFF_MS', 2000, 0, 3_600_000),
      workerConcurrency: int(env, 'WORKER_CONCURRENCY', 2, 1, 64),
      // Redis key prefix of the queues: services sharing one Redis keep their jobs apart.
      prefix: env.QUEUE_PREFIX || 'forensics',
    },
    defaultCollection: env.DEFAULT_COLLECTION || 'default',
    evidence: {
      enabled: oneOf(env, 'EVIDENCE', ['on', 'off'] as const, 'on') === 'on',
      birdK: int(env, 'BIRD_K', 20, 2, 1000),
      progrankRuns: int(env, 'PROGRANK_RUNS', 20, 1, 200),
      progrankTokenDropout: fraction(env, 'PROGRANK_TOKEN_DROPOUT', 0.1),
    },
    probe: { kind: oneOf(env, 'PROBE', ['auto', 'use-lite', 'onnx', 'none'] as const, 'auto'), modelDir: env.PROBE_MODEL_DIR || undefined },
    policy: {
      name: oneOf(env, 'DECISION_POLICY', ['judge-only', 'corroborated'] as const, 'judge-only'),
      reviewServing: oneOf(env, 'REVIEW_SERVING', ['withhold', 'serve'] as const, 'withhold'),
    },
    generator: {
      kind: oneOf(env, 'GENERATOR', ['offline', 'openai'] as const, openaiBase || env.OPENAI_API_KEY ? 'openai' : 'offline'),
      model: env.GENERATOR_MODEL || env.JUDGE_MODEL || 'gpt-4o-mini',
    },
    feedbackTokenSecret: env.FEEDBACK_TOKEN_SECRET || '',
    feedbackTokenTtlSec: int(env, 'FEEDBACK_TOKEN_TTL_SEC', 7 * 24 * 3600, 60, 365 * 24 * 3600),
  };
}
