import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { READER_JUDGE_FIT } from '@forensics/algorithms';
import { DEFAULT_TOUCH_INTERVAL_MS, type CoreSettings, type Embedder, type GradientProbeProvision, type IdentitySettings, type Judge } from '@forensics/core';
import { auditSettingsFor, type AppConfig } from '../config/app-config';
import { createEmbedder } from '../embedders';
import { OfflineJudge } from '../judges/offline-judge.adapter';
import { OpenAiJudge } from '../judges/openai-judge.adapter';
import { MiniLmReader } from '../judges/minilm-reader';
import { ReaderJudge } from '../judges/reader-judge.adapter';
import { MINILM_ID } from '../embedders/embedder.factory';
import { OnnxEmbedder } from '../embedders/onnx-embedder.adapter';

import { OnnxGradientProbe, UseLiteGradientProbe } from '../probe';

/** Builds the adapter behind each port from the configuration (embedded default or production part). */

export function embedderFor(config: AppConfig): Embedder {
  return createEmbedder({
    kind: config.embedder.kind,
    onnxModelDir: config.embedder.onnxModelDir,
    openai: config.embedder.kind === 'openai'
      ? { baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1', apiKey: config.openai.apiKey ?? '', model: config.embedder.model ?? 'text-embedding-3-small', dimension: config.embedder.dimension }
      : undefined,
  });
}

export function judgeFor(config: AppConfig): Judge {
  if (config.judge.kind === 'openai') {
    return new OpenAiJudge({
      baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1',
      apiKey: config.openai.apiKey ?? '',
      model: config.judge.model,
      timeoutMs: config.judge.timeoutMs,
      maxReasks: config.judge.maxReasks,
      prompt: config.judge.prompt,
    });
  }
  if (config.judge.kind === 'reader') {
    const modelDir = config.judge.readerModelDir ?? join(config.modelsDir, MINILM_ID);
    return new ReaderJudge(new MiniLmReader(new OnnxEmbedder({ modelDir, id: MINILM_ID })), READER_JUDGE_FIT);
  }
  return new OfflineJudge();
}

/**
 * ProGRank needs a white-box encoder it can take gradients through (ProGRank, arXiv 2603.22934, §3).
 * 'auto': the embedder's own encoder when it can be probed (USE-lite; an ONNX model dir exposing
 * `last_ln_input`), else the ONNX surrogate in PROBE_MODEL_DIR, else none — with the reason, which
 * every evidence record then states.
 */
export function probeFor(config: AppConfig, embedderId: string): GradientProbeProvision {
  const kind = config.probe.kind;
  if (kind === 'none') return { probe: null, reason: 'ProGRank disabled (PROBE=none)' };
  if (kind === 'use-lite' || (kind === 'auto' && embedderId === 'use-lite')) return { probe: new UseLiteGradientProbe({}) };
  const dir = config.probe.modelDir ?? (kind === 'auto' && config.embedder.kind === 'onnx' ? config.embedder.onnxModelDir : undefined);
  if (dir) return { probe: new OnnxGradientProbe({ modelDir: dir, layerNorm: 'from-model' }) };
  return { probe: null, reason: `encoder '${embedderId}' cannot be probed and no ONNX surrogate is configured (PROBE_MODEL_DIR)` };
}

/**
 * With FEEDBACK_TOKEN_SECRET unset, a random per-installation secret is kept in DATA_DIR (created
 * once, mode 0600) so API processes on this machine agree. Several hosts must set the variable.
 */
export function feedbackTokenSecret(config: AppConfig, log: (m: string) => void): string {
  if (config.feedbackTokenSecret) return config.feedbackTokenSecret;
  const file = join(config.dataDir, 'feedback-token.secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch {
    return readFileSync(file, 'utf8').trim(); // another process created it first
  }
  log(`FEEDBACK_TOKEN_SECRET not set: generated a local secret in ${file} (set the variable when API processes run on several hosts)`);
  return secret;
}

/**
 * Identity settings (issue 11). The API keys' pepper is API_KEY_PEPPER, or else derived from the
 * feedback-token secret (HMAC with a fixed label), which production already requires to be strong and
 * shared by every API process — so no second secret has to be distributed, and the CLI (same
 * DATA_DIR / environment) hashes keys exactly as the API does. Set API_KEY_PEPPER to rotate the token
 * secret without invalidating the keys.
 */
export function identitySettingsFor(config: AppConfig, tokenSecret: string): IdentitySettings {
  return {
    keyPepper: config.apiKeyPepper ?? createHmac('sha256', tokenSecret).update('forensics/api-key-pepper/v1').digest('base64url'),
    sessionTtlMs: config.sessionTtlMinutes * 60_000,
    touchIntervalMs: DEFAULT_TOUCH_INTERVAL_MS,
  };
}

/** The use cases' view of the configuration. Algorithm parameters pass through as overrides only. */
export function coreSettingsFor(config: AppConfig, tokenSecret: string): CoreSettings {
  return {
    defaultCollection: config.defaultCollection,
    defaultK: config.trace.k,
    trace: { maxRounds: config.trace.maxRounds, maxJudgeCalls: config.trace.maxJudgeCalls, judgeConcurrency: config.trace.judgeConcurrency },
    evidence: { enabled: config.evidence.enabled, birdK: config.evidence.birdK, progrankRuns: config.evidence.progrankRuns, progrankTokenDropout: config.evidence.progrankTokenDropout },
    policy: config.policy,
    trust: config.trust,
    consensus: config.consensus,
    audit: auditSettingsFor(config),
    feedbackTokens: { secret: tokenSecret, ttlSec: config.feedbackTokenTtlSec },
    workerActor: 'traceback-worker',
    ...(config.enhancementMinQuerySimilarity !== undefined ? { enhancementServing: { minQuerySimilarity: config.enhancementMinQuerySimilarity } } : {}),
  };
}
