import {
  DEFAULT_BIRD_PARAMS,
  DEFAULT_DECISION_POLICY,
  DEFAULT_PROGRANK_PARAMS,
  DEFAULT_TOKEN_DROPOUT_RATE,
  DEFAULT_TRACE_PARAMS,
  validateBirdParams,
  validateProgrankParams,
  validateTraceParams,
} from '@forensics/algorithms';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_AUDIT_SETTINGS } from '@forensics/core';
import { coreSettingsFor } from '../../nest/adapters';
import { CONFIG_VARIABLES, ConfigError, DEV_API_KEY, ENV_SCHEMA, loadConfig } from '../app-config';

const ROOT = '/srv/forensics';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env, ROOT);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('loadConfig did not throw');
}

function messageOf(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env, ROOT);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('loadConfig did not throw');
}

describe('loadConfig defaults', () => {
  const config = loadConfig({}, ROOT);

  it('takes every algorithm default from the pure library', () => {
    expect({ k: config.trace.k, maxRounds: config.trace.maxRounds, maxJudgeCalls: config.trace.maxJudgeCalls }).toEqual({ ...DEFAULT_TRACE_PARAMS });
    expect(config.evidence.birdK).toBe(DEFAULT_BIRD_PARAMS.k);
    expect(config.evidence.progrankRuns).toBe(DEFAULT_PROGRANK_PARAMS.runs);
    expect(config.evidence.progrankTokenDropout).toBe(DEFAULT_TOKEN_DROPOUT_RATE);
    expect({ ...config.policy }).toEqual({ ...DEFAULT_DECISION_POLICY });
  });

  it('keeps the service defaults of a one-machine setup', () => {
    expect(config).toMatchObject({
      projectRoot: ROOT,
      dataDir: `${ROOT}/.data`,
      host: '127.0.0.1',
      port: 3000,
      apiKeys: [DEV_API_KEY],
      devApiKey: true,
      bodyLimit: '256kb',
      embedder: { kind: 'use-lite' },
      judge: { kind: 'offline', model: 'gpt-4o-mini', timeoutMs: 60_000, maxReasks: 2 },
      openai: {},
      trace: { judgeConcurrency: 4 },
      queue: { attempts: 5, backoffMs: 2000, workerConcurrency: 2, workerProcesses: 1, prefix: 'forensics' },
      defaultCollection: 'default',
      evidence: { enabled: true },
      probe: { kind: 'auto' },
      generator: { kind: 'offline', model: 'gpt-4o-mini' },
      feedbackTokenTtlSec: 7 * 24 * 3600,
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.feedbackTokenSecret).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    const c = loadConfig({ TRACE_K: '', PORT: '', API_KEYS: '', FEEDBACK_TOKEN_SECRET: '', JUDGE: '' }, ROOT);
    expect(c.trace.k).toBe(DEFAULT_TRACE_PARAMS.k);
    expect(c.port).toBe(3000);
    expect(c.devApiKey).toBe(true);
    expect(c.feedbackTokenSecret).toBeUndefined();
    expect(c.judge.kind).toBe('offline');
  });

  it('is frozen, nested objects included', () => {
    expect(Object.isFrozen(config)).toBe(true);
    for (const key of ['embedder', 'judge', 'openai', 'trace', 'queue', 'evidence', 'probe', 'policy', 'generator', 'apiKeys'] as const) {
      expect(Object.isFrozen(config[key])).toBe(true);
    }
    expect(() => {
      (config as { feedbackTokenSecret?: string }).feedbackTokenSecret = 'x';
    }).toThrow(TypeError);
    expect(() => {
      (config.trace as { k: number }).k = 99;
    }).toThrow(TypeError);
  });
});

describe('loadConfig overrides', () => {
  it('applies variables over the defaults', () => {
    const c = loadConfig(
      {
        TRACE_K: '7', TRACE_MAX_ROUNDS: '3', TRACE_MAX_JUDGE_CALLS: '70', BIRD_K: '30', PROGRANK_RUNS: '8', PROGRANK_TOKEN_DROPOUT: '0.25',
        DECISION_POLICY: 'corroborated', REVIEW_SERVING: 'serve', BAND_WITHHOLD: 'always', LONE_YES: 'act', SIBLING_WITHHOLD: 'off', EVIDENCE: 'off', PORT: '8080', API_KEYS: ' a , b ,', DATA_DIR: '/var/data',
        FEEDBACK_TOKEN_SECRET: 'a-long-enough-secret', JUDGE_MODEL: 'm1',
      },
      ROOT,
    );
    expect(c.trace).toEqual({ k: 7, maxRounds: 3, maxJudgeCalls: 70, judgeConcurrency: 4 });
    expect(c.evidence).toEqual({ enabled: false, birdK: 30, progrankRuns: 8, progrankTokenDropout: 0.25 });
    expect(c.policy).toEqual({ name: 'corroborated', reviewServing: 'serve', bandWithhold: 'always', loneYes: 'act', siblingWithhold: 'off' });
    expect(loadConfig({}, ROOT).policy.bandWithhold).toBe('restated');
    expect(loadConfig({ BAND_WITHHOLD: 'event' }, ROOT).policy.bandWithhold).toBe('event');
    expect(loadConfig({}, ROOT).policy.loneYes).toBe('act');
    expect(problemsOf({ BAND_WITHHOLD: 'never' })[0]).toMatch(/BAND_WITHHOLD/);
    expect(problemsOf({ LONE_YES: 'sometimes' })[0]).toMatch(/LONE_YES/);
    expect(loadConfig({}, ROOT).policy.siblingWithhold).toBe('on');
    expect(problemsOf({ SIBLING_WITHHOLD: 'maybe' })[0]).toMatch(/SIBLING_WITHHOLD/);
    expect(c.port).toBe(8080);
    expect(c.apiKeys).toEqual(['a', 'b']);
    expect(c.devApiKey).toBe(false);
    expect(c.dataDir).toBe('/var/data');
    expect(c.feedbackTokenSecret).toBe('a-long-enough-secret');
    expect(c.generator.model).toBe('m1');
    expect(loadConfig({ WORKER_PROCESSES: '2' }, ROOT).queue.workerProcesses).toBe(2);
    expect(problemsOf({ WORKER_PROCESSES: '0' })).toEqual(["WORKER_PROCESSES must be an integer in [1, 16], got '0'"]);
  });

  it('TRUST_PROXY: off by default (forwarded headers ignored), else a number of proxy hops', () => {
    expect(loadConfig({}, ROOT).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: 'off' }, ROOT).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '0' }, ROOT).trustProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: '2' }, ROOT).trustProxyHops).toBe(2);
    // Not Express's `true` (every hop trusted: the client would choose its own address), nor a list of addresses.
    for (const bad of ['true', '11', '1.5', '10.0.0.0/8']) expect(problemsOf({ TRUST_PROXY: bad })).toEqual([`TRUST_PROXY must be off or a number of proxy hops in [0, 10], got '${bad}'`]);
  });

  it('picks the OpenAI judge and generator when an endpoint is configured', () => {
    const c = loadConfig({ OPENAI_BASE_URL: 'http://localhost:8000/v1' }, ROOT);
    expect(c.judge.kind).toBe('openai');
    expect(c.generator.kind).toBe('openai');
    expect(c.openai).toEqual({ baseURL: 'http://localhost:8000/v1', apiKey: 'not-needed' });
  });

  it("defaults the embedder to 'onnx' when ONNX_MODEL_DIR is set", () => {
    expect(loadConfig({ ONNX_MODEL_DIR: '/models/x' }, ROOT).embedder).toEqual({ kind: 'onnx', onnxModelDir: '/models/x' });
  });
});

describe('loadConfig errors', () => {
  it('lists every problem at once, one line each, naming the variable and the value', () => {
    const message = messageOf({ TRACE_K: 'abc', PORT: '70000', PROBE: 'gpu' });
    expect(message).toBe(
      [
        'invalid configuration:',
        "  - PORT must be an integer in [0, 65535], got '70000'",
        "  - TRACE_K must be an integer in [1, 100], got 'abc'",
        "  - PROBE must be one of auto, use-lite, onnx, none, got 'gpu'",
      ].join('\n'),
    );
    expect(problemsOf({ TRACE_K: 'abc', PORT: '70000', PROBE: 'gpu' })).toHaveLength(3);
  });

  it('checks types: non-integers, fractions out of range, bad sizes', () => {
    expect(problemsOf({ BIRD_K: '2.5', PROGRANK_TOKEN_DROPOUT: '1', BODY_LIMIT: 'lots', EMBEDDING_DIMENSION: '0' })).toEqual([
      "BODY_LIMIT must be a size such as 256kb or 1mb, got 'lots'",
      "EMBEDDING_DIMENSION must be an integer in [1, 65536], got '0'",
      "BIRD_K must be an integer in [2, 1000], got '2.5'",
      "PROGRANK_TOKEN_DROPOUT must be a number in [0, 1), got '1'",
    ]);
  });

  it('never prints the value of a secret variable', () => {
    const secrets = { API_KEYS: ' , ,', FEEDBACK_TOKEN_SECRET: 'short-secret', OPENAI_API_KEY: 'sk-do-not-print', QDRANT_API_KEY: 'qdrant-do-not-print' };
    const message = messageOf({ ...secrets, TRACE_K: '0' });
    expect(message).toContain('API_KEYS must be a comma-separated list of at least one API key, got (hidden)');
    expect(message).toContain('FEEDBACK_TOKEN_SECRET must be a string of at least 16 characters, got (hidden)');
    expect(message).toContain("TRACE_K must be an integer in [1, 100], got '0'");
    for (const value of Object.values(secrets)) expect(message).not.toContain(value);
  });

  it('cuts long values to 80 characters and escapes control characters', () => {
    const long = 'x'.repeat(200);
    expect(problemsOf({ DECISION_POLICY: long })).toEqual([`DECISION_POLICY must be one of judge-only, corroborated, got '${'x'.repeat(80)}…' (200 chars)`]);
    expect(problemsOf({ EVIDENCE: 'on\noff' })).toEqual(["EVIDENCE must be one of on, off, got 'on\\x0aoff'"]);
  });

  it('keeps the cross-variable rules in the same list', () => {
    expect(problemsOf({ EMBEDDER: 'onnx', JUDGE: 'openai', PORT: '-1' })).toEqual([
      "PORT must be an integer in [0, 65535], got '-1'",
      "EMBEDDER='onnx' needs ONNX_MODEL_DIR (a folder with model.onnx and tokenizer.json)",
      "JUDGE='openai' needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint), or LOCAL_LLM (a local GGUF model)",
    ]);
    expect(problemsOf({ EMBEDDER: 'openai', GENERATOR: 'openai' })).toEqual([
      "EMBEDDER='openai', GENERATOR='openai' need OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint)",
    ]);
    expect(() => loadConfig({ EMBEDDER: 'openai', JUDGE: 'openai', OPENAI_API_KEY: 'sk-x' }, ROOT)).not.toThrow();
    expect(() => loadConfig({ EMBEDDER: 'onnx', ONNX_MODEL_DIR: '/m' }, ROOT)).not.toThrow();
  });

  describe('LOCAL_LLM', () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-llm-config-'));
    mkdirSync(join(dir, 'tiny'));
    writeFileSync(join(dir, 'tiny', 'model.gguf'), 'GGUF');
    writeFileSync(join(dir, 'own.gguf'), 'GGUF');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('by name: MODELS_DIR/NAME/model.gguf; the judge and generator default to openai and to the model, the settings pass through', () => {
      const config = loadConfig({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, LOCAL_LLM_THREADS: '2', LOCAL_LLM_CONTEXT: '2048', LOCAL_LLM_TIMEOUT_MS: '5000' }, ROOT);
      expect(config.judge).toMatchObject({ kind: 'openai', model: 'tiny', timeoutMs: 10_000 });
      expect(config.generator).toEqual({ kind: 'openai', model: 'tiny' });
      expect(config.openai).toEqual({ baseURL: undefined, apiKey: 'not-needed' });
      expect(config.localLlm).toEqual({ model: 'tiny', modelPath: join(dir, 'tiny', 'model.gguf'), threads: 2, contextSize: 2048, requestTimeoutMs: 5000, defaultMaxTokens: 256, maxQueue: 64 });
    });

    it('an explicit JUDGE_TIMEOUT_MS stays', () => {
      expect(loadConfig({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, JUDGE_TIMEOUT_MS: '7000' }, ROOT).judge.timeoutMs).toBe(7000);
    });

    it('by path: the model is named after the file', () => {
      expect(loadConfig({ LOCAL_LLM: join(dir, 'own.gguf') }, ROOT).localLlm).toMatchObject({ model: 'own', modelPath: join(dir, 'own.gguf') });
    });

    it('refuses a missing model, a second endpoint, another model name and an OpenAI embedder on it', () => {
      expect(problemsOf({ LOCAL_LLM: 'absent', MODELS_DIR: dir })).toEqual([`LOCAL_LLM='absent': ${join(dir, 'absent', 'model.gguf')} is missing: run \`npm run models -- --llm absent\` (or point MODELS_DIR at your own copy)`]);
      expect(problemsOf({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toEqual(['LOCAL_LLM and OPENAI_BASE_URL are both set: the OpenAI adapters talk to one endpoint; unset one']);
      expect(problemsOf({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, JUDGE_MODEL: 'gpt-4o-mini' })).toEqual(["JUDGE_MODEL='gpt-4o-mini' but LOCAL_LLM serves 'tiny': unset JUDGE_MODEL or set it to 'tiny'"]);
      expect(problemsOf({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, EMBEDDER: 'openai' })).toEqual(["EMBEDDER='openai' needs OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint)"]);
    });

    it('JUDGE=offline keeps the local model for the generator only', () => {
      const config = loadConfig({ LOCAL_LLM: 'tiny', MODELS_DIR: dir, JUDGE: 'offline' }, ROOT);
      expect(config.judge.kind).toBe('offline');
      expect(config.generator.kind).toBe('openai');
    });
  });

  it("reports the library's cross-field rules (maxJudgeCalls ≥ k) with the variables that were set", () => {
    expect(problemsOf({ TRACE_K: '60' })).toEqual([
      "TRACE_K='60' rejected by validateTraceParams: TraceParams.maxJudgeCalls (50) must be ≥ k (60)",
    ]);
  });
});

describe('schema', () => {
  it('describes every variable', () => {
    for (const [name, schema] of Object.entries(ENV_SCHEMA.shape)) {
      const meta = CONFIG_VARIABLES.get(schema);
      expect(meta && meta.expect && meta.doc ? name : `${name}: no description`).toBe(name);
    }
  });

  it("keeps the algorithm variables' ranges inside the library's", () => {
    // Ends of the ranges in ENV_SCHEMA: TRACE_K [1, 100], TRACE_MAX_ROUNDS [1, 1000], TRACE_MAX_JUDGE_CALLS [1, 100000],
    // BIRD_K [2, 1000], PROGRANK_RUNS [1, 200]; the library must accept each end.
    for (const k of [1, 100]) expect(() => validateTraceParams({ k, maxJudgeCalls: 100_000 })).not.toThrow();
    for (const maxRounds of [1, 1000]) expect(() => validateTraceParams({ maxRounds })).not.toThrow();
    for (const maxJudgeCalls of [1, 100_000]) expect(() => validateTraceParams({ k: 1, maxJudgeCalls })).not.toThrow();
    for (const k of [2, 1000]) expect(() => validateBirdParams({ k })).not.toThrow();
    for (const runs of [1, 200]) expect(() => validateProgrankParams({ runs })).not.toThrow();
    const ends = { TRACE_K: [1, 100], TRACE_MAX_ROUNDS: [1, 1000], TRACE_MAX_JUDGE_CALLS: [1, 100_000], BIRD_K: [2, 1000], PROGRANK_RUNS: [1, 200] } as const;
    for (const [name, [lo, hi]] of Object.entries(ends)) {
      expect(CONFIG_VARIABLES.get(ENV_SCHEMA.shape[name as keyof typeof ends])?.expect).toBe(`an integer in [${lo}, ${hi}]`);
    }
  });
});

describe('core settings', () => {
  // Until 2026-11-24 ADMISSION_CHECK, ADMISSION_TOP_N and AUDIT_AUTO_QUARANTINE were parsed here but never
  // handed to the use cases (coreSettingsFor left `audit` out): the defaults always applied.
  it('hands the audit variables to the use cases', () => {
    const off = coreSettingsFor(loadConfig({ ADMISSION_CHECK: 'off', ADMISSION_TOP_N: '120', ADMISSION_ANSWER_TOP_N: '0', AUDIT_AUTO_QUARANTINE: 'true', AUDIT_WATCH: 'confirmed' }, ROOT), 'secret');
    expect(off.audit).toEqual({ autoQuarantine: true, admission: { enabled: false, topN: 120, answerTopN: 0, maxWatched: DEFAULT_AUDIT_SETTINGS.admission.maxWatched }, watch: 'confirmed' });
    const defaults = coreSettingsFor(loadConfig({}, ROOT), 'secret');
    expect(defaults.audit).toEqual({ autoQuarantine: false, admission: DEFAULT_AUDIT_SETTINGS.admission, watch: 'reported' });
    expect(problemsOf({ AUDIT_WATCH: 'everything' }).join('\n')).toMatch(/AUDIT_WATCH/);
  });
});

describe('AUDIT_SCHEDULE and RATE_LIMIT_ON_REDIS_DOWN (issue 57 item 4)', () => {
  it('an entry without a collection is every collection (collection undefined), never DEFAULT_COLLECTION; each entry keeps its text for the logs', () => {
    const c = loadConfig({ DEFAULT_COLLECTION: 'kb', AUDIT_SCHEDULE: 'reconcile=0 * * * *; cluster-scan:docs=30 3 * * *' }, ROOT);
    expect(c.audits.schedules).toEqual([
      { kind: 'reconcile', collection: undefined, cron: '0 * * * *', entry: 'reconcile=0 * * * *' },
      { kind: 'cluster-scan', collection: 'docs', cron: '30 3 * * *', entry: 'cluster-scan:docs=30 3 * * *' },
    ]);
    expect(loadConfig({ AUDIT_SCHEDULE: 'none' }, ROOT).audits.schedules).toEqual([]);
  });

  it('the limits fail open by default; closed on request; anything else refused naming the variable', () => {
    expect(loadConfig({}, ROOT).rateLimits.onStoreDown).toBe('open');
    expect(loadConfig({ RATE_LIMIT_ON_REDIS_DOWN: 'closed' }, ROOT).rateLimits.onStoreDown).toBe('closed');
    expect(problemsOf({ RATE_LIMIT_ON_REDIS_DOWN: 'ajar' }).join('\n')).toMatch(/RATE_LIMIT_ON_REDIS_DOWN/);
  });
});
