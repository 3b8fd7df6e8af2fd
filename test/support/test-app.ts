import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client as PgClient } from 'pg';
import type { DestinationStream } from 'pino';
import { EMBEDDER, VECTOR_STORE, type Embedder, type Failpoints, type Repositories, type Token, type VectorStore } from '@forensics/core';
import { CoreModule, InfrastructureModule, loadConfig, PRISMA, REPOSITORIES, type AppConfig, type PrismaClient } from '@forensics/infra';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { requireServices, ROOT, TEST_API_KEY, uniqueName } from './test-runtime';

/**
 * The service composed exactly as in production (InfrastructureModule + CoreModule, and the API
 * and/or worker modules), on the real test Postgres + Redis with a private on-disk vector store.
 */
export interface TestApp {
  config: AppConfig;
  dataDir: string;
  app: INestApplicationContext;
  /** Base URL when the API is part of the app (listening on a free loopback port). */
  url: string;
  repos: Repositories;
  store: VectorStore;
  embedder: Embedder;
  prisma: PrismaClient;
  /** Any provider: a use case by its class, a port by its token. */
  get<T>(key: Token<T> | Type<T> | (abstract new (...args: never[]) => T)): T;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Environment overrides (on top of the test services and a unique queue prefix). */
  env?: Record<string, string>;
  /** Serve the HTTP API (default false). */
  api?: boolean;
  /** Run the traceback worker in this process (default false). */
  worker?: boolean;
  /** Connect the queue (default true; always true with a worker). */
  queue?: boolean;
  failpoints?: Failpoints;
  /** With `api`: the process's log lines as JSON (LOG_FORMAT=json) go here; default: no logs. */
  logs?: DestinationStream;
}

/** The configuration a test app uses (exported for tests that spawn the worker as a child process). */
export function testConfig(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'forensics-app-'))): AppConfig {
  const { databaseUrl, redisUrl } = requireServices();
  return loadConfig({
    DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: dataDir, API_KEYS: TEST_API_KEY, QUEUE_BACKOFF_MS: '200', PROBE: 'none',
    QUEUE_PREFIX: uniqueName('q'), SWEEP_EVERY_MS: '1000',
    // No scheduled audits unless a test sets them (test/audits.test.ts).
    AUDIT_SCHEDULE: 'none',
    // Rate limits off (tests flood intake from one address on purpose); test/rate-limit.test.ts sets its own.
    RATE_LIMIT_FEEDBACK_PER_MIN: '0', RATE_LIMIT_REPORTER_PER_MIN: '0', RATE_LIMIT_ADDRESS_PER_MIN: '0', RATE_LIMIT_KEY_PER_MIN: '0', RATE_LIMIT_ANSWERS_PER_MIN: '0',
    ...env,
  }, ROOT);
}

/**
 * When this test file started: jest evaluates this module once per test file, and the integration
 * project runs its files one at a time (--runInBand).
 */
const FILE_STARTED = new Date();

/**
 * Feedback left pending by earlier test files (their apps and queues are gone, their collections
 * unknown to this app's vector store) is marked FAILED (and their pending webhook deliveries DEAD), so this app's reconciler — which re-drives
 * every pending event of the shared test database — does not pick it up and disturb this file.
 */
async function failOrphanedFeedback(databaseUrl: string): Promise<void> {
  const db = new PgClient({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `UPDATE "FeedbackEvent" SET "status" = 'FAILED', "failureReason" = 'orphaned: left pending by an earlier test file', "updatedAt" = (now() AT TIME ZONE 'UTC')
       WHERE "status" IN ('RECEIVED', 'QUEUED', 'TRACING') AND "createdAt" < ($1::timestamptz AT TIME ZONE 'UTC')`,
      [FILE_STARTED.toISOString()],
    );
    // The same for webhook deliveries: an earlier file's PENDING rows (its receivers gone) would be re-driven
    // by this app's outbox sweep and retried against closed ports beside this file's own deliveries.
    await db.query(
      `UPDATE "WebhookDelivery" SET "status" = 'DEAD', "lastError" = 'orphaned: left pending by an earlier test file', "nextAttemptAt" = NULL
       WHERE "status" = 'PENDING' AND "createdAt" < ($1::timestamptz AT TIME ZONE 'UTC')`,
      [FILE_STARTED.toISOString()],
    );
  } catch (e) {
    // A fresh database has no table yet (the app's start-up migrates it): nothing is orphaned then.
    if ((e as { code?: string }).code !== '42P01') throw e;
  } finally {
    await db.end();
  }
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  if (opts.logs && !opts.api) throw new Error('createTestApp: logs are captured through the API app (api: true)');
  const config = testConfig(opts.logs ? { LOG_FORMAT: 'json', ...opts.env } : opts.env);
  await failOrphanedFeedback(config.databaseUrl!);
  const infrastructure = InfrastructureModule.forRoot(config, { queue: opts.queue !== false || !!opts.worker, failpoints: opts.failpoints });
  const extra: DynamicModule[] = opts.worker ? [WorkerModule.forRoot(config, infrastructure)] : [];
  let app: INestApplicationContext;
  let url = '';
  if (opts.api) {
    const http = await createApiApp(config, opts.logs ? { infrastructure, with: extra, logDestination: opts.logs } : { logger: false, infrastructure, with: extra });
    await http.listen(0, '127.0.0.1');
    url = (await http.getUrl()).replace('[::1]', '127.0.0.1');
    app = http;
  } else {
    app = await NestFactory.createApplicationContext({ module: class TestAppModule {}, imports: [infrastructure, CoreModule, ...extra] }, { logger: false, abortOnError: false });
    await app.init();
  }
  const get = <T>(key: Token<T> | Type<T> | (abstract new (...args: never[]) => T)): T => app.get(key as never, { strict: false }) as T;
  return {
    config, dataDir: config.dataDir, app, url,
    repos: get<Repositories>(REPOSITORIES), store: get<VectorStore>(VECTOR_STORE), embedder: get<Embedder>(EMBEDDER), prisma: get<PrismaClient>(PRISMA),
    get,
    close: async () => {
      await app.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
