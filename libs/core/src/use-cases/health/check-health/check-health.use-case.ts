import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { DatabaseHealth } from '../../../ports/repositories';
import { DATABASE_HEALTH, EMBEDDER, JUDGE, TRACEBACK_QUEUE, VECTOR_STORE } from '../../../ports/tokens';
import type { TracebackQueue } from '../../../ports/traceback-queue.port';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';

export interface DependencyHealth { ok: boolean; error?: string; ms: number }
export interface HealthReport {
  ok: boolean;
  postgres: DependencyHealth;
  redis: DependencyHealth;
  vectorStore: DependencyHealth & { kind: string };
  judge: { kind: string; model: string };
  embedder: string;
}

export interface CheckHealthDeps { database: DatabaseHealth; queue: TracebackQueue; store: VectorStore; judge: Judge; embedder: Embedder }

/** A dependency that does not answer within this bound counts as down (health must not hang). */
export const HEALTH_CHECK_TIMEOUT_MS = 3000;

async function check(fn: () => Promise<unknown>): Promise<DependencyHealth> {
  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`timeout after ${HEALTH_CHECK_TIMEOUT_MS} ms`)), HEALTH_CHECK_TIMEOUT_MS); })]);
    return { ok: true, ms: Date.now() - t0 };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e), ms: Date.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}

/** Reachability of Postgres, Redis and the vector store, checked in parallel. */
export class CheckHealthUseCase {
  static readonly inject: InjectMap<CheckHealthDeps> = { database: DATABASE_HEALTH, queue: TRACEBACK_QUEUE, store: VECTOR_STORE, judge: JUDGE, embedder: EMBEDDER };
  constructor(private readonly deps: CheckHealthDeps) {}

  async execute(): Promise<HealthReport> {
    const [postgres, redis, vectorStore] = await Promise.all([
      check(() => this.deps.database.ping()), check(() => this.deps.queue.ping()), check(() => this.deps.store.health()),
    ]);
    return {
      ok: postgres.ok && redis.ok && vectorStore.ok,
      postgres, redis, vectorStore: { ...vectorStore, kind: this.deps.store.kind },
      judge: { kind: this.deps.judge.kind, model: this.deps.judge.model }, embedder: this.deps.embedder.id,
    };
  }
}
