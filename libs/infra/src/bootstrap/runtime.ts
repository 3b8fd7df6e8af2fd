import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder, ForensicsRepository, Generator, GradientProbe, Judge, TracebackQueue, VectorStore } from '@forensics/core';
import { NeighbourCache } from '@forensics/core';
import { createGenerator } from '../generators';
import type { AppConfig } from '../config/app-config';
import { createEmbedder } from '../embedders';
import { OfflineJudge } from '../judges/offline-judge.adapter';
import { OpenAiJudge } from '../judges/openai-judge.adapter';
import { applyMigrations } from '../prisma/migrator';
import { createPrismaClient, type PrismaClient } from '../prisma/prisma-client';
import { PrismaForensicsRepository } from '../prisma/prisma-forensics.repository';
import { BullMqTracebackQueue } from '../queue/bullmq-traceback-queue';
import { startEmbeddedPostgres, startEmbeddedRedis, type EmbeddedService } from '../runtime/embedded-services';
import { createVectorStore } from '../vector-store';

/**
 * The composition root shared by the API, the worker, the CLI and the tests: it resolves the
 * embedded defaults (Postgres, Redis, on-disk vector store) or the production endpoints from the
 * config, applies migrations, and builds the adapters behind every port.
 */
export interface Runtime {
  config: AppConfig;
  databaseUrl: string;
  redisUrl: string;
  prisma: PrismaClient;
  repo: ForensicsRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  generator: Generator;
  /** ProGRank's gradient probe, or null with the reason in `probeUnavailableReason`. */
  probe: GradientProbe | null;
  probeUnavailableReason?: string;
  /** BiRD neighbour lists, cached per store revision (process-wide). */
  neighbourCache: NeighbourCache;
  queue: BullMqTracebackQueue;
  /** Embedded services this process started (stopped by close()). */
  services: EmbeddedService[];
  close(): Promise<void>;
}

export interface RuntimeOptions {
  log?: (msg: string) => void;
  /** Skip the queue (e.g. the eval harness runs the traceback use case directly). */
  withoutQueue?: boolean;
}

export async function createRuntime(config: AppConfig, opts: RuntimeOptions = {}): Promise<Runtime> {
  const log = opts.log ?? (() => {});
  const services: EmbeddedService[] = [];
  const cleanup = async () => { for (const s of services.reverse()) await s.stop().catch(() => {}); };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres(config.dataDir, log);
      if (pg.owned) services.push(pg);
      databaseUrl = pg.url;
    }
    const applied = await applyMigrations(databaseUrl, join(config.projectRoot, 'prisma', 'migrations'), log);
    if (applied.length) log(`migrations applied: ${applied.join(', ')}`);

    let redisUrl = config.redisUrl ?? '';
    if (!opts.withoutQueue && !redisUrl) {
      const redis = await startEmbeddedRedis(config.dataDir, log);
      if (redis.owned) services.push(redis);
      redisUrl = redis.url;
    }

    const prisma = createPrismaClient(databaseUrl);
    const repo = new PrismaForensicsRepository(prisma);
    const store = createVectorStore({ qdrantUrl: config.qdrantUrl, qdrantApiKey: config.qdrantApiKey, dir: join(config.dataDir, 'vectors') });
    const embedder = createEmbedder({
      kind: config.embedder.kind,
      onnxModelDir: config.embedder.onnxModelDir,
      openai: config.embedder.kind === 'openai' ? { baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1', apiKey: config.openai.apiKey ?? '', model: config.embedder.model ?? 'text-embedding-3-small', dimension: config.embedder.dimension } : undefined,
    });
    const judge = createJudge(config);
    const generator = createGenerator(config);
    const { probe, reason: probeUnavailableReason } = await createProbe(config, embedder.id);
    if (!config.feedbackTokenSecret) config.feedbackTokenSecret = localSecret(config.dataDir, log);
    const queue = opts.withoutQueue ? (null as unknown as BullMqTracebackQueue) : new BullMqTracebackQueue(redisUrl, { attempts: config.queue.attempts, backoffMs: config.queue.backoffMs, prefix: config.queue.prefix });

    return {
      config, databaseUrl, redisUrl, prisma, repo, store, embedder, judge, generator, probe, probeUnavailableReason,
      neighbourCache: new NeighbourCache(), queue, services,
      close: async () => {
        await probe?.close().catch(() => {});
        await queue?.close().catch(() => {});
        await embedder.close().catch(() => {});
        await store.close().catch(() => {});
        await prisma.$disconnect().catch(() => {});
        await cleanup();
      },
    };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

export function createJudge(config: AppConfig): Judge {
  if (config.judge.kind === 'openai') {
    return new OpenAiJudge({
      baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1',
      apiKey: config.openai.apiKey ?? '',
      model: config.judge.model,
      timeoutMs: config.judge.timeoutMs,
      maxReasks: config.judge.maxReasks,
    });
  }
  return new OfflineJudge();
}

export type { TracebackQueue };

/**
 * ProGRank needs a white-box encoder it can take gradients through (algorithms.md §4).
 * 'auto': the embedder's own encoder when it can be probed (USE-lite; an ONNX model dir exposing
 * `last_ln_input`), else the ONNX surrogate in PROBE_MODEL_DIR, else none (recorded as skipped).
 */
async function createProbe(config: AppConfig, embedderId: string): Promise<{ probe: GradientProbe | null; reason?: string }> {
  const kind = config.probe.kind;
  if (kind === 'none') return { probe: null, reason: 'ProGRank disabled (PROBE=none)' };
  try {
    const probes = await import('../probe');
    if (kind === 'use-lite' || (kind === 'auto' && embedderId === 'use-lite' && probes.UseLiteGradientProbe)) {
      if (!probes.UseLiteGradientProbe) return { probe: null, reason: 'the USE-lite gradient probe is not available in this build' };
      return { probe: new probes.UseLiteGradientProbe({}) };
    }
    const dir = config.probe.modelDir ?? (kind === 'auto' && config.embedder.kind === 'onnx' ? config.embedder.onnxModelDir : undefined);
    if (dir) return { probe: new probes.OnnxGradientProbe({ modelDir: dir, layerNorm: 'from-model' }) };
    return { probe: null, reason: `encoder '${embedderId}' cannot be probed and no ONNX surrogate is configured (PROBE_MODEL_DIR)` };
  } catch (e) {
    return { probe: null, reason: `gradient probe unavailable: ${(e as Error).message}` };
  }
}

/**
 * With FEEDBACK_TOKEN_SECRET unset, a random per-installation secret is kept in DATA_DIR (created
 * once, mode 0600) so API processes on this machine agree. Several hosts must set the variable.
 */
function localSecret(dataDir: string, log: (m: string) => void): string {
  const file = join(dataDir, 'feedback-token.secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch {
    return readFileSync(file, 'utf8').trim(); // another process created it first
  }
  log(`FEEDBACK_TOKEN_SECRET not set: generated a local secret in ${file} (set the variable when API processes run on several hosts)`);
  return secret;
}
