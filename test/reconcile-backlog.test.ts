/**
 * The reconciler over a burst's backlog (issue 15), on real Redis + BullMQ and Postgres: thousands of
 * events QUEUED behind waiting jobs, plus one whose job failed, one whose job completed while its row
 * stayed pending, and one whose job was lost. One pass re-drives exactly those three and asks BullMQ
 * about the waiting ones one page at a time (`liveJobs`: EXISTS + two ZSCOREs per id in a pipeline),
 * instead of a state lookup per event that scans the wait list each time.
 */
import { getQueueToken } from '@nestjs/bullmq';
import { Job, Queue, Worker } from 'bullmq';
import { ReconcilePendingFeedbackUseCase, TRACEBACK_QUEUE, type TracebackQueue } from '@forensics/core';
import { TRACEBACK_QUEUE_NAME, tracebackJobId } from '@forensics/infra';
import { createTestApp, type TestApp } from './support/test-app';
import { uniqueName } from './support/test-runtime';

const BACKLOG = 3000;

describe('reconciler over a backlog of waiting jobs', () => {
  let t: TestApp;
  let queue: Queue;
  const collection = uniqueName('backlog');

  beforeAll(async () => {
    t = await createTestApp({ env: { QUEUE_ATTEMPTS: '1' } });
    queue = t.get<Queue>(getQueueToken(TRACEBACK_QUEUE_NAME) as never);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  const event = async (q: string) => (await t.repos.feedback.create({ collection, query: q, wrongAnswer: 'w', k: 3, status: 'QUEUED' })).event;

  it('re-drives only the failed, completed and lost jobs, one liveJobs question per page', async () => {
    const port = t.get<TracebackQueue>(TRACEBACK_QUEUE);
    // Two jobs run to their end by a worker first: one fails, one completes (its row still says QUEUED).
    const failed = await event('fails');
    const completed = await event('completes');
    await port.enqueueTraceback(failed.id);
    await port.enqueueTraceback(completed.id);
    const worker = new Worker(queue.name, async (job: Job<{ feedbackId: string }>) => {
      if (job.data.feedbackId === failed.id) throw new Error('boom');
      return 'done';
    }, { connection: queue.opts.connection, prefix: queue.opts.prefix });
    for (;;) {
      const [a, b] = await Promise.all([queue.getJobState(tracebackJobId(failed.id)), queue.getJobState(tracebackJobId(completed.id))]);
      if (a === 'failed' && b === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.close();

    // The backlog: waiting jobs, and one event whose job is gone.
    const waiting = await Promise.all(Array.from({ length: BACKLOG }, (_, i) => event(`q${i}`)));
    for (const e of waiting) await port.enqueueTraceback(e.id);
    const lost = await event('lost');

    const asked: number[] = [];
    const live = port.liveJobs!.bind(port);
    const liveJobs = jest.spyOn(port, 'liveJobs').mockImplementation(async (ids) => { asked.push(ids.length); return live(ids); });
    const redrive = jest.spyOn(port, 'redriveTraceback');
    const t0 = Date.now();
    const out = await t.get(ReconcilePendingFeedbackUseCase).execute({ graceMs: 0, pageSize: 500 });
    const ms = Date.now() - t0;
    liveJobs.mockRestore();

    const mine = new Set([failed.id, completed.id, lost.id, ...waiting.map((e) => e.id)]);
    const redriven = out.redriven.filter((r) => mine.has(r.feedbackId));
    expect(redriven.sort((a, b) => a.feedbackId.localeCompare(b.feedbackId))).toEqual([
      { feedbackId: failed.id, outcome: 'retried' }, { feedbackId: completed.id, outcome: 'replaced' }, { feedbackId: lost.id, outcome: 'added' },
    ].sort((a, b) => a.feedbackId.localeCompare(b.feedbackId)));
    expect(redrive.mock.calls.map(([id]) => id).filter((id) => mine.has(id)).sort()).toEqual([failed.id, completed.id, lost.id].sort());
    // Pages of ≤ 500: a handful of liveJobs calls for the ~3000 events, not one lookup each.
    expect(asked.every((n) => n <= 500)).toBe(true);
    expect(asked.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(BACKLOG + 3);
    expect((await queue.getJobState(tracebackJobId(lost.id)))).toBe('waiting');
    expect((await queue.getJobState(tracebackJobId(failed.id)))).toBe('waiting');
    process.stderr.write(`[reconcile-backlog] one pass over ${BACKLOG + 3} pending events: ${ms} ms, ${asked.length} liveJobs calls\n`);
  }, 120_000);
});
