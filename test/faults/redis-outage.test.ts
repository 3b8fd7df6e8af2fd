/**
 * Fault: Redis killed (SIGKILL) mid-intake and mid-trace, then started again EMPTY (no
 * persistence: every queued job, the job scheduler and the locks are gone — the harsher case).
 * A dedicated `redis-server` on its own port; the API and the worker run in this process on the
 * shared test Postgres. Reports keep arriving before, during and after the outage, and the
 * scripted judge is slow so traces are in flight when Redis dies.
 *
 * The product promises: every POST /v1/feedback answers 202 within its bound whether Redis is up
 * or not (persisted first; `queued:false` while Redis is down, enqueue bounded by
 * QUEUE_ENQUEUE_TIMEOUT_MS and refused at once by the producer's connection, which has no offline
 * queue); after Redis is back the reconciler gives every pending event a job again and all of them
 * complete; nothing is quarantined twice.
 */
import { IngestCorpusUseCase } from '@forensics/core';
import { TRACEBACK_QUEUE_NAME, tracebackJobId } from '@forensics/infra';
import { DedicatedRedis } from '../support/faults/fault-services';
import { assertInvariants, CORPUS, eventually, judgeEnv, printFaultLine, report, scriptJudge, timedRequest, waitTerminal, type Timed } from '../support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openai-test-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { uniqueName } from '../support/test-runtime';

const ENQUEUE_TIMEOUT_MS = 500;
/** Every 202 within this bound, Redis up or down (persisting + enqueueing on a loaded 2-core machine). */
const REQUEST_BOUND_MS = 5_000;
/** While Redis is down: the enqueue is refused at once (or cut at ENQUEUE_TIMEOUT_MS), so well under this. */
const DOWN_BOUND_MS = 3_000;
const OUTAGE_MS = 10_000;

describe('fault: redis killed and restarted (empty) mid-intake and mid-trace', () => {
  let redis: DedicatedRedis;
  let server: OpenAiTestServer;
  let t: TestApp;
  const collection = uniqueName('fault_redis');

  beforeAll(async () => {
    redis = await DedicatedRedis.start();
    server = await startOpenAiTestServer();
    scriptJudge(server, 150);
    t = await createTestApp({
      api: true, worker: true,
      env: { ...judgeEnv(server), REDIS_URL: redis.url, QUEUE_ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS), SWEEP_EVERY_MS: '500', WORKER_CONCURRENCY: '2', WORKER_LOCK_MS: '3000' },
    });
    await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
  }, 120_000);

  afterAll(async () => {
    // Close with Redis up (BullMQ's close waits for its connections), then stop it.
    await redis?.restart().catch(() => {});
    await t?.close();
    await server?.close();
    await redis?.kill();
  }, 60_000);

  it('answers every report 202 within its bound and completes all of them after Redis returns', async () => {
    const timings: (Timed & { phase: string })[] = [];
    const accepted: string[] = [];
    let phase = 'before';
    let n = 0;
    const submit = async () => {
      const i = n++;
      const p = phase;
      const r = await timedRequest(`${t.url}/v1/feedback`, { body: report(collection, i) }, REQUEST_BOUND_MS * 5);
      timings.push({ ...r, phase: p });
      if (r.status === 202) accepted.push(String(r.body!.id));
      return r;
    };
    /** A steady stream of reports: `count` requests, one every `everyMs`, each not awaited before the next starts. */
    const stream = async (count: number, everyMs: number) => {
      const inflight: Promise<Timed>[] = [];
      for (let i = 0; i < count; i++) { inflight.push(submit()); await new Promise((r) => setTimeout(r, everyMs)); }
      return Promise.all(inflight);
    };

    await stream(8, 100);
    // Mid-trace: the judge is being asked while Redis dies.
    await eventually(async () => server.chatRequests().length >= 3, 60_000, 20);
    const intake = stream(20, 400); // keeps going through the kill and the restart
    await new Promise((r) => setTimeout(r, 1000));
    phase = 'down';
    const killedAt = Date.now();
    await redis.kill();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await redis.restart();
    const restartedAt = Date.now();
    phase = 'after';
    await intake;
    await stream(4, 100);

    const down = timings.filter((r) => r.phase === 'down');
    expect(down.length).toBeGreaterThanOrEqual(10);
    expect(timings.filter((r) => r.status !== 202).map((r) => `${r.phase}:${r.status}:${r.error ?? JSON.stringify(r.body)}`)).toEqual([]);
    // While Redis was down the events were persisted, not queued.
    expect(down.some((r) => r.body!.queued === false)).toBe(true);

    const waited = await waitTerminal(t, accepted, 150_000);
    const recoverSeconds = (Date.now() - restartedAt) / 1000;
    const inv = await assertInvariants(t, collection, accepted);
    const maxRequestMs = Math.round(Math.max(...timings.map((r) => r.ms)));
    printFaultLine({
      fault: `redis-kill-${Math.round((restartedAt - killedAt) / 1000)}s-restart-empty`, accepted: inv.accepted, completed: inv.completed, failed: inv.failedPermanent, lost: inv.lost,
      acceptedWhileDown: down.length, queuedFalseWhileDown: down.filter((r) => r.body?.queued === false).length,
      recoverSeconds: Math.round(recoverSeconds * 10) / 10, maxRequestMs, maxRequestMsWhileDown: Math.round(Math.max(...down.map((r) => r.ms))),
    });
    expect(waited.done).toBe(true);
    expect(inv.lost).toBe(0);
    expect(inv.failedPermanent).toBe(0);
    expect(maxRequestMs).toBeLessThan(REQUEST_BOUND_MS);
    expect(Math.max(...down.map((r) => r.ms))).toBeLessThan(DOWN_BOUND_MS);
  }, 300_000);
});

/**
 * The producer's connection has no offline queue: while Redis is down an enqueue is refused at once
 * (not after QUEUE_ENQUEUE_TIMEOUT_MS), and nothing is buffered to be replayed when Redis returns —
 * only the reconciler enqueues the event (there is none here: API only), so it stays RECEIVED.
 */
describe('fault: redis down — the producer neither waits nor buffers', () => {
  let redis: DedicatedRedis;
  let t: TestApp;
  const collection = uniqueName('fault_producer');

  beforeAll(async () => {
    redis = await DedicatedRedis.start();
    // A long enqueue bound: an answer well under it shows the enqueue was refused, not timed out.
    t = await createTestApp({ api: true, env: { REDIS_URL: redis.url, QUEUE_ENQUEUE_TIMEOUT_MS: '8000', TRACE_K: '3', RATE_LIMIT_REPORTER_PER_MIN: '0' } });
    await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
  }, 120_000);

  afterAll(async () => {
    await redis?.restart().catch(() => {});
    await t?.close();
    await redis?.kill();
  }, 60_000);

  it('answers 202 queued:false at once while Redis is down, and no buffered add reaches Redis later', async () => {
    // Warm the producer connection while Redis is up.
    const up = await timedRequest(`${t.url}/v1/feedback`, { body: report(collection, 0) });
    expect(up.status).toBe(202);
    expect(up.body!.queued).toBe(true);

    await redis.kill();
    const down = await Promise.all(Array.from({ length: 5 }, (_, i) => timedRequest(`${t.url}/v1/feedback`, { body: report(collection, i + 1) })));
    expect(down.map((r) => [r.status, r.body?.queued])).toEqual(down.map(() => [202, false]));
    const maxDownMs = Math.max(...down.map((r) => r.ms));
    expect(maxDownMs).toBeLessThan(3_000);

    await redis.restart();
    // Give a buffered command every chance to be replayed on reconnect.
    await new Promise((r) => setTimeout(r, 4_000));
    const { Queue } = await import('bullmq');
    const queue = new Queue(TRACEBACK_QUEUE_NAME, { connection: { url: redis.url }, prefix: t.config.queue.prefix });
    try {
      const jobs = await Promise.all(down.map((r) => queue.getJob(tracebackJobId(String(r.body!.id)))));
      expect(jobs.filter(Boolean)).toHaveLength(0);
    } finally {
      await queue.close();
    }
    const rows = await t.prisma.feedbackEvent.findMany({ where: { id: { in: down.map((r) => String(r.body!.id)) } }, select: { status: true } });
    expect(rows.map((r) => r.status)).toEqual(down.map(() => 'RECEIVED'));
    printFaultLine({ fault: 'redis-down-producer-no-buffer', accepted: down.length, queuedFalse: down.length, maxRequestMsWhileDown: Math.round(maxDownMs), enqueueTimeoutMs: 8000, replayedAfterRestart: 0 });
  }, 120_000);
});
