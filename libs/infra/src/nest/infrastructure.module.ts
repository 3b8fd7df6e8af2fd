import { Global, Inject, Injectable, Logger, Module, Optional, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { join } from 'node:path';
import {
  ANSWERS, AUDIT_LOG, CLOCK, CORE_SETTINGS, DATABASE_HEALTH, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FAILPOINTS, FEEDBACK_EVENTS, GENERATOR, GRADIENT_PROBE,
  API_KEYS, IDENTITY_SETTINGS, SESSIONS, USERS,
  JUDGE, NEIGHBOUR_LISTS, NeighbourCache, DOMAIN_EVENTS, QUARANTINES, TRACEBACK_QUEUE, VECTOR_STORE, VERDICTS,
  type Clock, type Embedder, type Failpoints, type GradientProbeProvision, type Repositories, type Token, type TracebackQueue, type VectorStore,
} from '@forensics/core';
import type IORedis from 'ioredis';
import type { AppConfig } from '../config/app-config';
import { createGenerator } from '../generators';
import { applyMigrations } from '../prisma/migrator';
import { createPrismaClient, type PrismaClient } from '../prisma/prisma-client';
import { createPrismaRepositories } from '../prisma/repositories';
import { PrismaReviewRepository } from '../prisma/repositories/prisma-review.repository';
import { PrismaReporterActivityRepository } from '../prisma/repositories/prisma-reporter-activity.repository';
import { AUDIT_QUEUE, AUDIT_RUNS, AUDIT_SCHEDULES, REPORTER_ACTIVITY, REVIEW, REVIEW_SETTINGS } from '@forensics/core';
import { PrismaAuditRunRepository } from '../audits/prisma-audit-run.repository';
import { NoAuditQueue, NoAuditSchedules } from '../audits/bullmq-audit-queue';
import { startEmbeddedPostgres, startEmbeddedRedis, type EmbeddedService } from '../runtime/embedded-services';
import { startEmbeddedLocalLlm } from '../runtime/embedded-local-llm';
import { createVectorStore, PgVectorStore } from '../vector-store';
import { coreSettingsFor, embedderFor, feedbackTokenSecret, identitySettingsFor, judgeFor, probeFor } from './adapters';
import { QueueModule } from './queue.module';
import { createRedisConnection, stopReconnecting } from '../queue/redis-connection';
import { APP_CONFIG, ENDPOINTS, METRICS, PRISMA, REDIS_CONNECTION, REPOSITORIES, type Endpoints } from './infra.tokens';
import { ForensicsMetrics, MeteredJudge, registerDatabaseCollectors, registerQueueCollectors } from '../metrics';
import { QueueRegistry } from '../queue/queue-registry';
import { NO_FAILED_JOBS } from '../queue/dead-letters';
import { FAILED_JOBS } from '@forensics/core';
import { WEBHOOK_PROVIDERS, WEBHOOK_TOKENS, webhookDispatcherProvider } from '../webhooks/webhook.providers';

export interface InfrastructureOptions {
  /** Connect the BullMQ traceback queue (default true). The CLI's ingest and the eval harness run without one. */
  queue?: boolean;
  /** Crash-safety tests: kill points; a no-op by default. */
  failpoints?: Failpoints;
}

const QUARANTINE_METRICS = Symbol('QuarantineMetrics');
const QUEUE_METRICS = Symbol('QueueMetrics');

const NO_FAILPOINTS: Failpoints = { hit: () => {} };
const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** A process that runs no queue (ingest CLI, eval): enqueueing is a clear error, never a silent no-op. */
class NoTracebackQueue implements TracebackQueue {
  async enqueueTraceback(): Promise<void> { throw new Error('this process runs without the traceback queue'); }
  async ping(): Promise<void> { throw new Error('this process runs without the traceback queue'); }
  async close(): Promise<void> {}
}

/**
 * Resolves where Postgres and Redis are: the configured URLs, or embedded servers this process
 * starts (or reuses, when another process of the installation started them). Migrations are
 * applied before anything touches the database.
 */
async function resolveEndpoints(config: AppConfig, withQueue: boolean, log: (m: string) => void): Promise<Endpoints> {
  const services: EmbeddedService[] = [];
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres(config.dataDir, log);
      if (pg.owned) services.push(pg);
      databaseUrl = pg.url;
    }
    const applied = await applyMigrations(databaseUrl, join(config.projectRoot, 'prisma', 'migrations'), log);
    if (applied.length) log(`migrations applied: ${applied.join(', ')}`);
    let redisUrl = config.redisUrl ?? null;
    if (withQueue && !redisUrl) {
      const redis = await startEmbeddedRedis(config.dataDir, log);
      if (redis.owned) services.push(redis);
      redisUrl = redis.url;
    }
    let llmBaseURL: string | undefined;
    if (config.localLlm && (config.judge.kind === 'openai' || config.generator.kind === 'openai')) {
      const llm = await startEmbeddedLocalLlm(config.dataDir, config.localLlm, config.projectRoot, log);
      if (llm.owned) services.push(llm);
      llmBaseURL = llm.url;
    }
    return { databaseUrl, redisUrl, llmBaseURL, services };
  } catch (e) {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    throw e;
  }
}

/** The config the OpenAI adapters read, pointed at the embedded local LLM when one runs (LOCAL_LLM). */
function withLlmEndpoint(config: AppConfig, e: Endpoints): AppConfig {
  return e.llmBaseURL ? { ...config, openai: { ...config.openai, baseURL: e.llmBaseURL } } : config;
}

/** Closes adapters, then the embedded services this process started, in that order, once. */
@Injectable()
class InfrastructureShutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(ENDPOINTS) private readonly endpoints: Endpoints,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(VECTOR_STORE) private readonly store: VectorStore,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(GRADIENT_PROBE) private readonly probe: GradientProbeProvision,
    @Optional() @Inject(REDIS_CONNECTION) private readonly redis?: IORedis,
  ) {}

  // Before the queue workers close (their hooks run in onApplicationShutdown): from here on a Redis that
  // goes away is not waited for, and no connection is left between two attempts (see stopReconnecting).
  async beforeApplicationShutdown(): Promise<void> {
    if (this.redis) await stopReconnecting(this.redis);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.probe.probe?.close().catch(() => {});
    await this.embedder.close().catch(() => {});
    await this.store.close().catch(() => {});
    await this.prisma.$disconnect().catch(() => {});
    this.redis?.disconnect();
    for (const s of [...this.endpoints.services].reverse()) await s.stop().catch(() => {});
  }
}

const fromRepositories = <K extends keyof Repositories>(token: Token<Repositories[K]>, key: K): Provider =>
  ({ provide: token, useFactory: (r: Repositories) => r[key], inject: [REPOSITORIES] });

/**
 * The adapters behind every port, bound to core's injection tokens by configuration: embedded
 * Postgres / Redis / LanceDB by default, the configured servers in production. Global, so the
 * core module's use cases and the apps see the same instances. Import it once per process.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(config: AppConfig, opts: InfrastructureOptions = {}): DynamicModule {
    const withQueue = opts.queue !== false;
    const log = new Logger('infra');
    const providers: Provider[] = [
      { provide: APP_CONFIG, useValue: config },
      { provide: ENDPOINTS, useFactory: () => resolveEndpoints(config, withQueue, (m) => log.log(m)) },
      { provide: PRISMA, useFactory: (e: Endpoints) => createPrismaClient(e.databaseUrl), inject: [ENDPOINTS] },
      { provide: REPOSITORIES, useFactory: (prisma: PrismaClient) => createPrismaRepositories(prisma), inject: [PRISMA] },
      fromRepositories(DOCUMENTS, 'documents'), fromRepositories(FEEDBACK_EVENTS, 'feedback'), fromRepositories(VERDICTS, 'verdicts'),
      fromRepositories(QUARANTINES, 'quarantines'), fromRepositories(ANSWERS, 'answers'), fromRepositories(ENHANCEMENTS, 'enhancements'),
      fromRepositories(AUDIT_LOG, 'audit'), fromRepositories(DATABASE_HEALTH, 'health'),
      fromRepositories(USERS, 'users'), fromRepositories(API_KEYS, 'apiKeys'), fromRepositories(SESSIONS, 'sessions'),
      { provide: VECTOR_STORE, useFactory: () => {
        const store = createVectorStore({
          qdrantUrl: config.qdrantUrl, qdrantApiKey: config.qdrantApiKey, dir: join(config.dataDir, 'vectors'),
          indexMinRows: config.vectorStore.indexMinRows, annNprobes: config.vectorStore.annNprobes, annRefine: config.vectorStore.annRefine, annIndex: config.vectorStore.annIndex, annEf: config.vectorStore.annEf, attach: config.vectorStore.attach,
          kind: config.vectorStore.kind, pgvector: config.vectorStore.pgvector,
        });
        // pgvector: say at start when the server is too small for our HNSW indexes (not fatal; an unreachable
        // database is reported by the health check, not here).
        if (store instanceof PgVectorStore) void store.servingAdvice().then((lines) => lines.forEach((l) => log.warn(l)), () => undefined);
        return store;
      } },
      { provide: EMBEDDER, useFactory: () => embedderFor(config) },
      { provide: METRICS, useFactory: () => new ForensicsMetrics() },
      // Every judge call counted and timed (forensics_judge_calls_total), whichever adapter is configured.
      { provide: JUDGE, useFactory: (m: ForensicsMetrics, e: Endpoints) => new MeteredJudge(judgeFor(withLlmEndpoint(config, e)), m), inject: [METRICS, ENDPOINTS] },
      { provide: QUARANTINE_METRICS, useFactory: (m: ForensicsMetrics, prisma: PrismaClient) => { registerDatabaseCollectors(m, prisma); return true; }, inject: [METRICS, PRISMA] },
      { provide: GENERATOR, useFactory: (e: Endpoints) => createGenerator(withLlmEndpoint(config, e)), inject: [ENDPOINTS] },
      { provide: GRADIENT_PROBE, useFactory: (e: Embedder) => probeFor(config, e.id), inject: [EMBEDDER] },
      // BiRD neighbour lists, cached per store revision (process-wide).
      { provide: NEIGHBOUR_LISTS, useFactory: () => new NeighbourCache() },
      { provide: CLOCK, useValue: SYSTEM_CLOCK },
      // DOMAIN_EVENTS = the webhook outbox (issue 14), with its repository, URL guard, transport and metrics.
      ...WEBHOOK_PROVIDERS(config),
      { provide: FAILPOINTS, useValue: opts.failpoints ?? NO_FAILPOINTS },
      // Review console queries, claims, decisions (issue 11).
      { provide: REVIEW, useFactory: (prisma: PrismaClient) => new PrismaReviewRepository(prisma), inject: [PRISMA] },
      { provide: REVIEW_SETTINGS, useValue: { claimTtlMs: config.reviewClaimTtlSec * 1000, reasons: config.reviewReasons } },
      // Corroboration and per-reporter caps of the decision policy (issue 13).
      { provide: REPORTER_ACTIVITY, useFactory: (prisma: PrismaClient) => new PrismaReporterActivityRepository(prisma), inject: [PRISMA] },
      { provide: AUDIT_RUNS, useFactory: (prisma: PrismaClient) => new PrismaAuditRunRepository(prisma), inject: [PRISMA] },
      // ENDPOINTS first: the secret file lives in DATA_DIR, which the embedded services create.
      { provide: CORE_SETTINGS, useFactory: () => coreSettingsFor(config, feedbackTokenSecret(config, (m) => log.warn(m))), inject: [ENDPOINTS] },
      { provide: IDENTITY_SETTINGS, useFactory: (core: { feedbackTokens: { secret: string } }) => identitySettingsFor(config, core.feedbackTokens.secret), inject: [CORE_SETTINGS] },
      InfrastructureShutdown,
    ];
    const exported: (symbol | DynamicModule)[] = [APP_CONFIG, ENDPOINTS, PRISMA, REPOSITORIES, DOCUMENTS, FEEDBACK_EVENTS, VERDICTS, QUARANTINES, ANSWERS, ENHANCEMENTS, AUDIT_LOG, DATABASE_HEALTH,
      VECTOR_STORE, EMBEDDER, JUDGE, METRICS, GENERATOR, GRADIENT_PROBE, NEIGHBOUR_LISTS, CLOCK, FAILPOINTS, CORE_SETTINGS, DOMAIN_EVENTS, ...WEBHOOK_TOKENS,
      USERS, API_KEYS, SESSIONS, IDENTITY_SETTINGS, REVIEW, REVIEW_SETTINGS, REPORTER_ACTIVITY, AUDIT_RUNS];
    if (withQueue) {
      providers.push({ provide: REDIS_CONNECTION, useFactory: (e: Endpoints) => createRedisConnection(e.redisUrl!), inject: [ENDPOINTS] });
      // Job counts of every registered queue (discovered on each scrape).
      providers.push({ provide: QUEUE_METRICS, useFactory: (m: ForensicsMetrics, registry: QueueRegistry) => { registerQueueCollectors(m, () => registry.all()); return true; }, inject: [METRICS, QueueRegistry] });
      exported.push(REDIS_CONNECTION);
      providers.push(webhookDispatcherProvider(config, true));
    } else {
      providers.push({ provide: TRACEBACK_QUEUE, useValue: new NoTracebackQueue() });
      providers.push({ provide: FAILED_JOBS, useValue: NO_FAILED_JOBS });
      providers.push({ provide: AUDIT_QUEUE, useValue: new NoAuditQueue() }, { provide: AUDIT_SCHEDULES, useValue: new NoAuditSchedules() });
      exported.push(TRACEBACK_QUEUE, FAILED_JOBS, AUDIT_QUEUE, AUDIT_SCHEDULES);
      providers.push(webhookDispatcherProvider(config, false));
    }
    return {
      module: InfrastructureModule,
      imports: withQueue ? [QueueModule.forRoot(config)] : [],
      providers,
      // With a queue, TRACEBACK_QUEUE is QueueModule's, re-exported with it.
      exports: withQueue ? [...exported, QueueModule] : exported,
    };
  }
}
