import { join } from 'node:path';
import type { Embedder, ForensicsRepository, Judge, TracebackQueue, VectorStore } from '@forensics/core';
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
    const queue = opts.withoutQueue ? (null as unknown as BullMqTracebackQueue) : new BullMqTracebackQueue(redisUrl, { attempts: config.queue.attempts, backoffMs: config.queue.backoffMs });

    return {
      config, databaseUrl, redisUrl, prisma, repo, store, embedder, judge, queue, services,
      close: async () => {
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
