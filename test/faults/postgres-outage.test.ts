/**
 * Fault: PostgreSQL stopped mid-batch and started again (issue 10, finding 1), on a DEDICATED
 * embedded PostgreSQL (never the shared test database), with the API and the worker in this
 * process and the scripted judge slow enough that the batch is mid-trace when Postgres stops.
 *
 * The outage is shorter than the 45 s of the report, but spans the whole retry budget: with
 * QUEUE_ATTEMPTS=3 and QUEUE_BACKOFF_MS=300 (exponential: 0.3 s + 0.6 s between attempts) every job
 * that runs during the outage spends all its attempts inside it — the test asserts that jobs
 * reached the failed set while Postgres was down (what stranded events before), and that the
 * after-last-attempt handler did not consume them as FAILED. Requests made during the outage are
 * answered (not 202: nothing can be persisted) within their bound.
 */
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { IngestCorpusUseCase } from '@forensics/core';
import { TRACEBACK_QUEUE_NAME } from '@forensics/infra';
import { DedicatedPostgres } from '../support/faults/fault-services';
import { assertInvariants, CORPUS, eventually, judgeEnv, printFaultLine, report, scriptJudge, timedRequest, waitTerminal, type Timed } from '../support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openai-test-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { uniqueName } from '../support/test-runtime';

const BATCH = 16;
const OUTAGE_MS = 15_000;
/** Every request answered within this bound (the first batch meets a cold app on a loaded 2-core machine). */
const REQUEST_BOUND_MS = 15_000;
/** During the outage (an error: nothing can be persisted) and after it (202): within this bound. */
const OUTAGE_BOUND_MS = 5_000;

describe('fault: postgres stopped and restarted mid-batch', () => {
  let pg: DedicatedPostgres;
  let server: OpenAiTestServer;
  let t: TestApp;
  const collection = uniqueName('fault_pg');

  beforeAll(async () => {
    pg = await DedicatedPostgres.start();
    server = await startOpenAiTestServer();
    scriptJudge(server, 120);
    t = await createTestApp({
      api: true, worker: true,
      env: { ...judgeEnv(server), DATABASE_URL: pg.url, QUEUE_ATTEMPTS: '3', QUEUE_BACKOFF_MS: '300', SWEEP_EVERY_MS: '1000', WORKER_CONCURRENCY: '2', QUEUE_ENQUEUE_TIMEOUT_MS: '1000' },
    });
    await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
  }, 150_000);

  afterAll(async () => {
    await pg?.restart().catch(() => {});
    await t?.close();
    await server?.close();
    await pg?.destroy();
  }, 60_000);

  it('every accepted report completes after the outage; none consumed as FAILED; nothing hung', async () => {
    const timings: (Timed & { phase: string })[] = [];
    const accepted: string[] = [];
    let phase = 'before';
    const submit = async (i: number) => {
      const p = phase;
      const r = await timedRequest(`${t.url}/v1/feedback`, { body: report(collection, i) }, REQUEST_BOUND_MS * 4);
      timings.push({ ...r, phase: p });
      if (r.status === 202) accepted.push(String(r.body!.id));
      return r;
    };
    const first = await Promise.all(Array.from({ length: BATCH }, (_, i) => submit(i)));
    expect(first.map((r) => r.status)).toEqual(first.map(() => 202));

    // Mid-batch: some events done, most not.
    await eventually(async () => (await t.prisma.feedbackEvent.count({ where: { id: { in: accepted }, status: { in: ['TRACED', 'BOUNDED'] } } })) >= 2, 90_000, 100);
    const doneBefore = await t.prisma.feedbackEvent.count({ where: { id: { in: accepted }, status: { in: ['TRACED', 'BOUNDED', 'FAILED'] } } });
    expect(doneBefore).toBeLessThan(BATCH);

    const queue = t.get<Queue>(getQueueToken(TRACEBACK_QUEUE_NAME) as never);
    const stoppedAt = Date.now();
    await pg.stop();
    phase = 'down';
    // During the outage: intake answers (an error, since nothing can be persisted) within its bound,
    // and jobs spend every attempt and land in the failed set.
    const during = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(BATCH + i)));
    let failedDuringOutage = 0;
    while (Date.now() - stoppedAt < OUTAGE_MS) {
      failedDuringOutage = Math.max(failedDuringOutage, await queue.getFailedCount());
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(failedDuringOutage).toBeGreaterThan(0);
    for (const r of during) expect(r.status === 202 || r.status === 503).toBe(true);

    await pg.restart();
    phase = 'after';
    const restartedAt = Date.now();
    const outageSeconds = (restartedAt - stoppedAt) / 1000;
    // Intake works again at once.
    const after = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(BATCH + 4 + i)));
    expect(after.map((r) => r.status)).toEqual(after.map(() => 202));

    const waited = await waitTerminal(t, accepted, 120_000);
    const recoverSeconds = (Date.now() - restartedAt) / 1000;
    const inv = await assertInvariants(t, collection, accepted);
    const maxRequestMs = Math.round(Math.max(...timings.map((r) => r.ms)));
    const maxMs = (p: string) => Math.round(Math.max(...timings.filter((r) => r.phase === p).map((r) => r.ms)));
    printFaultLine({
      fault: `postgres-stop-${Math.round(outageSeconds)}s`, accepted: inv.accepted, completed: inv.completed, failed: inv.failedPermanent, lost: inv.lost,
      refusedDuringOutage: during.filter((r) => r.status !== 202).length, jobsFailedDuringOutage: failedDuringOutage,
      recoverSeconds: Math.round(recoverSeconds * 10) / 10, maxRequestMs, maxRequestMsBefore: maxMs('before'), maxRequestMsDown: maxMs('down'), maxRequestMsAfter: maxMs('after'),
      statusesDown: timings.filter((r) => r.phase === 'down').map((r) => r.status),
    });
    expect(waited.done).toBe(true);
    expect(inv.lost).toBe(0);
    expect(inv.failedPermanent).toBe(0);
    expect(maxRequestMs).toBeLessThan(REQUEST_BOUND_MS);
    expect(maxMs('down')).toBeLessThan(OUTAGE_BOUND_MS);
    expect(maxMs('after')).toBeLessThan(OUTAGE_BOUND_MS);
    // No event was marked FAILED at any point (the after-last-attempt handler left them pending).
    expect(await t.prisma.feedbackEvent.count({ where: { id: { in: accepted }, status: 'FAILED' } })).toBe(0);
  }, 240_000);
});
