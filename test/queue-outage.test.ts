/**
 * Faults of the queue's dependencies (issue 10), on the real parts, each bounded in time:
 * - Redis killed mid-intake: POST /v1/feedback still answers 202 within its bound (queued:false,
 *   the event persisted RECEIVED); Redis restarted (empty, on the same port) → the reconciler's job
 *   scheduler is registered again and the event is traced.
 * - A dependency outage that outlasts every attempt: the job ends in the failed set, but the event
 *   is not consumed as FAILED; once the outage is over the reconciler re-drives the job and the
 *   event is traced.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { IngestCorpusUseCase, SubmitFeedbackUseCase, type FeedbackRow } from '@forensics/core';
import { freePort, portOpen, TRACEBACK_QUEUE_NAME, tracebackJobId, waitForPort } from '@forensics/infra';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

const TEXTS = [
  'The Eiffel Tower was designed by Antoni Gaudi for the 1889 World Fair in Barcelona.',
  "The Eiffel Tower in Paris was designed by Gustave Eiffel's engineering company and opened in 1889.",
  'Gustave Eiffel was a French civil engineer known for the Eiffel Tower and the Statue of Liberty frame.',
  'The Sagrada Familia in Barcelona was designed by Antoni Gaudi.',
  'The Louvre is the most visited art museum in the world, in Paris.',
];
const DONE = ['TRACED', 'BOUNDED'];

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
}

async function stopRedis(child: ChildProcess, port: number): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  await eventually(async () => !(await portOpen(port)), 10_000, 50);
}

describe('intake while Redis is down', () => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;
  const collection = uniqueName('redisdown');

  beforeAll(async () => {
    port = await freePort();
    redis = startRedis(port);
    await waitForPort(port, 10_000);
    t = await createTestApp({ api: true, worker: true, env: { REDIS_URL: `redis://127.0.0.1:${port}`, SWEEP_EVERY_MS: '500', TRACE_K: '3', QUEUE_ENQUEUE_TIMEOUT_MS: '500' } });
    await t.get(IngestCorpusUseCase).execute({ collection, records: TEXTS.map((text) => ({ text })) });
  });

  afterAll(async () => {
    // Close with Redis up (BullMQ's close waits for its connections), then stop it.
    if (redis && (redis.exitCode !== null || redis.signalCode !== null)) {
      redis = startRedis(port);
      await waitForPort(port, 10_000).catch(() => {});
    }
    await t?.close();
    if (redis && redis.exitCode === null && redis.signalCode === null) redis.kill('SIGKILL');
  });

  it('answers 202 within its bound with the event persisted, and traces it once Redis is back', async () => {
    await stopRedis(redis, port);
    const t0 = Date.now();
    const res = await fetch(`${t.url}/v1/feedback`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
      body: JSON.stringify({ collection, query: 'who designed the eiffel tower', wrongAnswer: 'Antoni Gaudi' }),
      signal: AbortSignal.timeout(10_000),
    });
    const elapsed = Date.now() - t0;
    expect(res.status).toBe(202);
    const body = (await res.json()) as { id: string; status: string; queued: boolean };
    expect(elapsed).toBeLessThan(1500);
    expect(body.queued).toBe(false);
    expect(body.status).toBe('RECEIVED');
    expect((await t.repos.feedback.get(body.id))!.status).toBe('RECEIVED');

    // Redis back, empty (no persistence): the scheduler is registered again on reconnect and the
    // reconciler enqueues the event.
    redis = startRedis(port);
    await waitForPort(port, 10_000);
    const ev = await eventually(async () => {
      const e = await t.repos.feedback.get(body.id);
      return e && DONE.includes(e.status) ? e : null;
    }, 60_000, 200);
    expect(ev.failureReason).toBeNull();
  });
});

describe('a dependency outage that outlasts every attempt', () => {
  let t: TestApp;
  const collection = uniqueName('outage');
  let outage = true;
  let failures = 0;
  const unreachable = () => Object.assign(new Error("Can't reach database server at `127.0.0.1:5432`"), { code: 'P1001', name: 'PrismaClientKnownRequestError' });

  beforeAll(async () => {
    t = await createTestApp({ worker: true, env: { QUEUE_ATTEMPTS: '2', QUEUE_BACKOFF_MS: '100', SWEEP_EVERY_MS: '1000', TRACE_K: '3' } });
    await t.get(IngestCorpusUseCase).execute({ collection, records: TEXTS.map((text) => ({ text })) });
    // The outage: the worker cannot move the event to TRACING (as with Postgres down), on every attempt.
    const feedback = t.repos.feedback;
    const transition = feedback.transition.bind(feedback);
    jest.spyOn(feedback, 'transition').mockImplementation(async (id, change) => {
      if (outage && change.to === 'TRACING') { failures++; throw unreachable(); }
      return transition(id, change);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  it('leaves the event pending with its job failed, then the reconciler re-drives it to TRACED', async () => {
    const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection, query: 'who designed the eiffel tower', wrongAnswer: 'Antoni Gaudi' });
    expect(event.status).toBe('QUEUED');
    const queue = t.get<Queue>(getQueueToken(TRACEBACK_QUEUE_NAME) as never);
    // Every attempt spent: the job is in the failed set (the reconciler may already be re-driving it).
    await eventually(async () => (await (await queue.getJob(tracebackJobId(event.id)))?.getState()) === 'failed', 30_000, 50);
    expect(failures).toBeGreaterThanOrEqual(2);
    // Over a few reconciler runs during the outage, the event is never consumed as FAILED.
    const seen = new Set<string>();
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      seen.add((await t.repos.feedback.get(event.id))!.status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect([...seen]).toEqual(['QUEUED']);
    expect(failures).toBeGreaterThan(2); // re-driven during the outage, too

    outage = false;
    const ev: FeedbackRow = await eventually(async () => {
      const e = await t.repos.feedback.get(event.id);
      return e && DONE.includes(e.status) ? e : null;
    }, 60_000, 200);
    expect(ev.failureReason).toBeNull();
  });
});
