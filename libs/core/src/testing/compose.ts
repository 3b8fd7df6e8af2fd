import { NO_DOMAIN_EVENTS, type DomainEventPublisher } from '../ports/domain-events.port';
import type { Embedder } from '../ports/embedder.port';
import type { Generator } from '../ports/generator.port';
import type { Judge } from '../ports/judge.port';
import type { Repositories } from '../ports/repositories';
import type { Clock, Failpoints, NeighbourLists } from '../ports/runtime.port';
import {
  ANSWERS, AUDIT_LOG, CLOCK, CORE_SETTINGS, DATABASE_HEALTH, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FAILPOINTS, FEEDBACK_EVENTS, GENERATOR,
  GRADIENT_PROBE, JUDGE, NEIGHBOUR_LISTS, DOMAIN_EVENTS, QUARANTINES, TRACEBACK_QUEUE, VECTOR_STORE, VERDICTS,
  type GradientProbeProvision, type Token,
} from '../ports/tokens';
import { API_KEYS, IDENTITY_SETTINGS, SESSIONS, USERS } from '../ports/tokens';
import { DEFAULT_TOUCH_INTERVAL_MS, type IdentitySettings } from '../use-cases/identity/manage-keys/identity';
import type { TracebackQueue } from '../ports/traceback-queue.port';
import type { VectorStore } from '../ports/vector-store.port';
import type { CoreSettings } from '../settings';
import type { InjectionKey, UseCaseClass } from '../use-case';
import { NeighbourCache } from '../use-cases/traceback/run-traceback/collect-evidence';
import { InMemoryTracebackQueue } from './in-memory-traceback-queue';
import { FAILED_JOBS, type FailedJobs } from '../ports/dead-letters.port';
import { InMemoryFailedJobs } from './in-memory-failed-jobs';
import {
  WEBHOOK_DISPATCHER, WEBHOOK_SETTINGS, WEBHOOK_TRANSPORT, WEBHOOK_URL_GUARD, WEBHOOKS,
  type WebhookDispatcher, type WebhookRepository, type WebhookSettings, type WebhookTransport, type WebhookUrlGuard,
} from '../ports/repositories/webhook.port';
import { InMemoryWebhookRepository } from './in-memory-webhook.repository';
import { InMemoryReviewRepository } from './in-memory-review.repository';
import { InMemoryReporterActivityRepository } from './in-memory-reporter-activity.repository';
import { REPORTER_ACTIVITY, type ReporterActivityRepository } from '../ports/repositories/reporter-activity.port';
import type { InMemoryState } from './in-memory-state';
import { AUDIT_RUNS, type AuditRunRepository } from '../ports/audits.port';
import { AUDIT_QUEUE, AUDIT_SCHEDULES, type AuditQueue, type AuditSchedules } from '../use-cases/audits/audit-queue.port';
import { InMemoryAuditRunRepository } from './in-memory-audit-runs';
import { DEFAULT_REVIEW_SETTINGS, REVIEW, REVIEW_SETTINGS, type ReviewRepository } from '../ports/repositories/review.port';

/** The ports a harness supplies; everything else gets a test default (see `composeUseCases`). */
export interface ComposePorts {
  repos: Repositories;
  /** Audits (issue 12). Defaults: an InMemoryAuditRunRepository, a queue that accepts and runs nothing (call RunAuditUseCase yourself). */
  auditRuns?: AuditRunRepository;
  auditQueue?: AuditQueue;
  auditSchedules?: AuditSchedules;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  /** Default: a generator that fails when called (no use case needs it unless it answers or enhances). */
  generator?: Generator;
  /** Default: no probe, with the reason 'no probe in this harness' (ProGRank is then skipped and says so). */
  probe?: GradientProbeProvision;
  /** Overrides of TEST_CORE_SETTINGS; `trace`, `evidence`, `policy` and `feedbackTokens` are merged field by field. */
  settings?: Partial<CoreSettings>;
  /** Default: a fresh InMemoryTracebackQueue (records the enqueued ids, runs nothing). */
  queue?: TracebackQueue;
  /** Default: the system clock. */
  clock?: Clock;
  /** Default: no-op failpoints. */
  failpoints?: Failpoints;
  /** Default: a fresh NeighbourCache (as in production, one per composition). */
  neighbours?: NeighbourLists;
  /** Default: publishes nowhere. */
  events?: DomainEventPublisher;
  /** Webhooks (issue 14). Defaults: an InMemoryWebhookRepository, a transport that reports every send as failed, a URL guard that allows all, a dispatcher that enqueues nothing, TEST_WEBHOOK_SETTINGS. */
  webhooks?: WebhookRepository;
  webhookTransport?: WebhookTransport;
  webhookGuard?: WebhookUrlGuard;
  webhookDispatcher?: WebhookDispatcher;
  webhookSettings?: Partial<WebhookSettings>;
  /** Default: the in-memory review repository over `repos`' state (when `repos` is in-memory). */
  review?: ReviewRepository;
  /** Default: the in-memory reporter-activity repository over `repos`' state (issue 13: corroboration and caps). */
  reporterActivity?: ReporterActivityRepository;
  /** Failed jobs of the queues (dead letters). Default: an empty InMemoryFailedJobs. */
  failedJobs?: FailedJobs;
  /** Overrides of TEST_IDENTITY_SETTINGS (key pepper, session lifetime). */
  identity?: Partial<IdentitySettings>;
}

/** Identity settings of a test composition: a fixed test pepper, 8 h sessions. */
export const TEST_IDENTITY_SETTINGS: Readonly<IdentitySettings> = Object.freeze({
  keyPepper: 'test-key-pepper-not-for-production', sessionTtlMs: 8 * 3600_000, touchIntervalMs: DEFAULT_TOUCH_INTERVAL_MS,
});

/** Webhook settings of a test composition. */
export const TEST_WEBHOOK_SETTINGS: Readonly<WebhookSettings> = Object.freeze({ timeoutMs: 2000, attempts: 3, disableAfter: 5 });

export interface ComposedUseCases {
  /** The use case of this class, built once (dependencies shared: one instance per class). */
  get<U>(useCase: abstract new (...args: never[]) => U): U;
  /** The port bound to a token. */
  port<T>(token: Token<T>): T;
  /** The settings the use cases see (defaults merged with the overrides). */
  readonly settings: CoreSettings;
  /** The queue the use cases enqueue into. */
  readonly queue: TracebackQueue;
}

/**
 * Settings of a test composition. Algorithm parameters are left empty so the pure library's
 * defaults apply (as with an unset environment in production); the token secret is a fixed test value.
 */
export const TEST_CORE_SETTINGS: Readonly<CoreSettings> = Object.freeze({
  defaultCollection: 'default',
  defaultK: 5,
  trace: { judgeConcurrency: 4 },
  evidence: {},
  policy: {},
  feedbackTokens: { secret: 'test-feedback-token-secret-not-for-production', ttlSec: 3600 },
  workerActor: 'traceback-worker',
});

const NO_FAILPOINTS: Failpoints = { hit: () => {} };

/** The review fake shares the in-memory repositories' state (as Prisma shares one database); other repos get one that says what is missing. */
function reviewFake(repos: Repositories, clock: Clock): ReviewRepository {
  const state = (repos as Repositories & { state?: InMemoryState }).state;
  if (state) return new InMemoryReviewRepository(state, () => clock.now());
  return new Proxy({} as ReviewRepository, { get: () => { throw new Error('composeUseCases: pass `review` (a ReviewRepository) when `repos` is not in-memory'); } });
}
/** Like the review fake: over the in-memory state, or a stand-in that says what is missing. */
function reporterActivityFake(repos: Repositories): ReporterActivityRepository {
  const state = (repos as Repositories & { state?: InMemoryState }).state;
  if (state) return new InMemoryReporterActivityRepository(state);
  return new Proxy({} as ReporterActivityRepository, { get: () => { throw new Error('composeUseCases: pass `reporterActivity` when `repos` is not in-memory'); } });
}
const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** Stands in when a harness binds no generator: building works, calling says what is missing. */
class MissingGenerator implements Generator {
  readonly kind = 'none';
  readonly model = 'none';
  async generate(): Promise<never> { throw new Error('no generator in this harness: pass `generator` to composeUseCases'); }
  async benignText(): Promise<never> { throw new Error('no generator in this harness: pass `generator` to composeUseCases'); }
}

function mergeSettings(o: Partial<CoreSettings> = {}): CoreSettings {
  const d = TEST_CORE_SETTINGS;
  return {
    ...d, ...o,
    trace: { ...d.trace, ...o.trace },
    evidence: { ...d.evidence, ...o.evidence },
    policy: { ...d.policy, ...o.policy },
    feedbackTokens: { ...d.feedbackTokens, ...o.feedbackTokens },
  };
}

const nameOf = (key: InjectionKey<unknown>): string => (typeof key === 'symbol' ? String(key) : key.name);

/**
 * Every use case over the given ports, without Nest: each class is built from its `static inject`
 * map — the mechanism of libs/infra's CoreModule — with a token resolved to the port bound here
 * and a class to that use case, built recursively and once (a dependency is the same instance
 * wherever it is injected). For use-case tests and the evaluation harness.
 */
export function composeUseCases(ports: ComposePorts): ComposedUseCases {
  const settings = mergeSettings(ports.settings);
  const queue = ports.queue ?? new InMemoryTracebackQueue();
  const { repos } = ports;
  const bound = new Map<symbol, unknown>([
    [DOCUMENTS, repos.documents], [FEEDBACK_EVENTS, repos.feedback], [VERDICTS, repos.verdicts], [QUARANTINES, repos.quarantines],
    [ANSWERS, repos.answers], [ENHANCEMENTS, repos.enhancements], [AUDIT_LOG, repos.audit], [DATABASE_HEALTH, repos.health],
    [VECTOR_STORE, ports.store], [EMBEDDER, ports.embedder], [JUDGE, ports.judge], [GENERATOR, ports.generator ?? new MissingGenerator()],
    [GRADIENT_PROBE, ports.probe ?? { probe: null, reason: 'no probe in this harness' }], [TRACEBACK_QUEUE, queue],
    [NEIGHBOUR_LISTS, ports.neighbours ?? new NeighbourCache()], [CLOCK, ports.clock ?? SYSTEM_CLOCK],
    [FAILPOINTS, ports.failpoints ?? NO_FAILPOINTS], [CORE_SETTINGS, settings], [DOMAIN_EVENTS, ports.events ?? NO_DOMAIN_EVENTS],
    [REVIEW, ports.review ?? reviewFake(repos, ports.clock ?? SYSTEM_CLOCK)], [REVIEW_SETTINGS, DEFAULT_REVIEW_SETTINGS],
    [USERS, repos.users], [API_KEYS, repos.apiKeys], [SESSIONS, repos.sessions], [IDENTITY_SETTINGS, { ...TEST_IDENTITY_SETTINGS, ...ports.identity }],
    [WEBHOOKS, ports.webhooks ?? new InMemoryWebhookRepository((repos as { state?: ConstructorParameters<typeof InMemoryWebhookRepository>[0] }).state)],
    [WEBHOOK_TRANSPORT, ports.webhookTransport ?? { send: async () => ({ statusCode: null, error: 'no webhook transport in this harness', durationMs: 0 }) }],
    [WEBHOOK_URL_GUARD, ports.webhookGuard ?? { check: async () => {} }],
    [WEBHOOK_DISPATCHER, ports.webhookDispatcher ?? { enqueue: async () => {}, redrive: async () => 'live' as const }],
    [WEBHOOK_SETTINGS, { ...TEST_WEBHOOK_SETTINGS, ...ports.webhookSettings }],
    [FAILED_JOBS, ports.failedJobs ?? new InMemoryFailedJobs()],
    [REPORTER_ACTIVITY, ports.reporterActivity ?? reporterActivityFake(repos)],
    [AUDIT_RUNS, ports.auditRuns ?? new InMemoryAuditRunRepository()],
    [AUDIT_QUEUE, ports.auditQueue ?? { enqueue: async () => {} }],
    [AUDIT_SCHEDULES, ports.auditSchedules ?? { list: async () => [], upsert: async () => { throw new Error('no scheduler in this harness'); }, remove: async () => false }],
  ]);
  const built = new Map<Function, unknown>();
  const building = new Set<Function>();

  const build = (cls: Function, path: readonly string[]): unknown => {
    if (built.has(cls)) return built.get(cls);
    const useCase = cls as UseCaseClass<Record<string, unknown>, unknown>;
    if (!useCase.inject || typeof useCase.inject !== 'object') throw new Error(`composeUseCases: ${[...path, cls.name].join(' → ')} is not a use case (no static inject)`);
    if (building.has(cls)) throw new Error(`composeUseCases: dependency cycle ${[...path, cls.name].join(' → ')}`);
    building.add(cls);
    const here = [...path, cls.name];
    const deps = Object.fromEntries(Object.entries(useCase.inject).map(([field, key]) => {
      if (typeof key === 'symbol') {
        if (!bound.has(key)) throw new Error(`composeUseCases: nothing bound to ${nameOf(key)} (${here.join(' → ')}.${field})`);
        return [field, bound.get(key)];
      }
      return [field, build(key as Function, here)];
    }));
    const instance = new useCase(deps);
    building.delete(cls);
    built.set(cls, instance);
    return instance;
  };

  return {
    get: <U>(useCase: abstract new (...args: never[]) => U) => build(useCase, []) as U,
    port: <T>(token: Token<T>) => {
      if (!bound.has(token)) throw new Error(`composeUseCases: nothing bound to ${nameOf(token)}`);
      return bound.get(token) as T;
    },
    settings,
    queue,
  };
}
