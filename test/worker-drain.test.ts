/**
 * The worker's graceful stop (issue 57 item 1) with real processes: the worker runs as a child process
 * (apps/worker/src/main.ts) on the shared test Postgres and Redis and this test's vector store; the judge
 * is the OpenAI-compatible test server, slow, so a traceback is in flight when the SIGTERM comes.
 *
 *  1. Within WORKER_DRAIN_MS the job in flight finishes, the worker takes no new job (a second report
 *     waits for the next worker) and exits 0.
 *  2. Past a short WORKER_DRAIN_MS the job is stopped at its next safe point and handed back (one log
 *     line): the second of two workers, waiting beside it, takes it at once — not after the lock expires — and
 *     completes it; the two runs never overlap (every judge request of the first before any of the
 *     second), no text the first run judged is judged again, nothing is written twice, no attempt used.
 */
import { IngestCorpusUseCase, SubmitFeedbackUseCase } from '@forensics/core';
import { TRACEBACK_QUEUE_NAME, tracebackJobId } from '@forensics/infra';
import { Queue } from 'bullmq';
import { CORPUS, judgeEnv, printFaultLine, waitTerminal } from './support/faults/fault-kit';
import { startWorker, type WorkerProcess } from './support/faults/worker-process';
import { startOpenAiTestServer, type OpenAiTestServer } from './support/openai-test-server';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, requireServices, uniqueName } from './support/test-runtime';

interface Asked { at: number; model: string; query: string; text: string }

describe('worker drain on SIGTERM', () => {
  let t: TestApp;
  let server: OpenAiTestServer;
  let queue: Queue;
  const workers: WorkerProcess[] = [];
  const collection = uniqueName('drain');
  const asked: Asked[] = [];
  let delayMs = 300;

  const spawnWorker = (env: Record<string, string>) => {
    const { databaseUrl, redisUrl } = requireServices();
    const w = startWorker({
      ...judgeEnv(server), DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: t.dataDir, QUEUE_PREFIX: t.config.queue.prefix,
      WORKER_CONCURRENCY: '1', SWEEP_EVERY_MS: '600000', ...env,
    });
    workers.push(w);
    return w;
  };
  const ready = (w: WorkerProcess) => eventually(async () => w.output().includes('processing the traceback queue'), 120_000, 100)
    .catch((e) => { throw new Error(`${(e as Error).message}\n${w.output().slice(-3000)}`); });
  // Each scenario its own collection: a text the first one quarantined is out of the second one's retrieval.
  const submit = async (i: number) => (await t.get(SubmitFeedbackUseCase).execute({ collection: `${collection}_${i < 3 ? 1 : 2}`, query: `who designed the eiffel tower (drain ${i})`, wrongAnswer: 'Antoni Gaudi' })).event;
  const askedFor = (i: number) => asked.filter((a) => a.query === `who designed the eiffel tower (drain ${i})`);

  beforeAll(async () => {
    server = await startOpenAiTestServer();
    server.script(async (body) => {
      const prompt = body.messages?.[0]?.content ?? '';
      const context = prompt.split('\nContext: ')[1]?.split('\nResponse: ')[0] ?? '';
      const query = prompt.split('Question: ')[1]?.split('\n')[0] ?? '';
      asked.push({ at: Date.now(), model: String(body.model), query, text: context });
      const yes = /gaudi/i.test(context) && /eiffel/i.test(context) && !/catalan/i.test(context);
      return { content: yes ? 'The context states that Antoni Gaudi designed the tower. [Label: Yes]' : 'The context does not claim Gaudi designed the tower. [Label: No]', delayMs };
    });
    t = await createTestApp({ env: { TRACE_K: '3' } });
    for (const n of [1, 2]) await t.get(IngestCorpusUseCase).execute({ collection: `${collection}_${n}`, records: CORPUS });
    queue = new Queue(TRACEBACK_QUEUE_NAME, { connection: { url: requireServices().redisUrl }, prefix: t.config.queue.prefix });
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) await w.stop();
    await queue?.close();
    await server?.close();
    await t?.close();
  }, 120_000);

  it('finishes the job in flight within WORKER_DRAIN_MS, takes no new one, exits 0', async () => {
    delayMs = 300;
    const a = await submit(1);
    const b = await submit(2);
    const w1 = spawnWorker({ WORKER_DRAIN_MS: '60000' });
    await eventually(async () => askedFor(1).length >= 2, 120_000, 20).catch((e) => { throw new Error(`${(e as Error).message}\n${w1.output().slice(-3000)}`); });
    const signalledAt = Date.now();
    w1.child.kill('SIGTERM');
    expect(await w1.exited(90_000)).toBe(0);
    const exitedAfterMs = Date.now() - signalledAt;
    expect(w1.output()).toMatch(/SIGTERM: taking no new jobs; \d+ running job\(s\) get up to 60000 ms to finish/);
    expect(w1.output()).toContain('every active job finished');
    expect(w1.output()).not.toContain('handed back');
    expect((await t.repos.feedback.get(a.id))!.status).toBe('TRACED');
    // The second report was not started: no judge request, still queued, its job waiting.
    expect(askedFor(2)).toHaveLength(0);
    expect((await t.repos.feedback.get(b.id))!).toMatchObject({ status: 'QUEUED', attempts: 0 });
    expect(await (await queue.getJob(tracebackJobId(b.id)))!.getState()).toBe('waiting');

    const w2 = spawnWorker({});
    await ready(w2);
    expect((await waitTerminal(t, [b.id], 120_000)).statuses[b.id]).toBe('TRACED');
    await w2.stop();
    printFaultLine({ fault: 'worker-sigterm-finish', drainMs: 60000, finishedInDrain: 1, startedAfterSignal: 0, exitedAfterMs });
  }, 360_000);

  it('past WORKER_DRAIN_MS hands the job back at a safe point; a waiting worker completes it at once, nothing written twice', async () => {
    delayMs = 700;
    const judgeModel = judgeEnv(server).JUDGE_MODEL;
    // Two workers wait for jobs, each with WORKER_DRAIN_MS=1000; they ask the judge under model names of their own, so their requests are told apart.
    const pair = [spawnWorker({ WORKER_DRAIN_MS: '1000' }), spawnWorker({ WORKER_DRAIN_MS: '1000', JUDGE_MODEL: `${judgeModel}-b` })];
    await Promise.all(pair.map(ready));
    const c = await submit(3);
    await eventually(async () => askedFor(3).length >= 2, 120_000, 20).catch((e) => { throw new Error(`${(e as Error).message}\n${pair.map((w) => w.output().slice(-2000)).join('\n')}`); });
    // The one running it is told to stop; the other takes it over.
    const firstModel = askedFor(3)[0].model;
    const [w3, w4] = firstModel === judgeModel ? pair : [pair[1], pair[0]];
    const secondModel = firstModel === judgeModel ? `${judgeModel}-b` : judgeModel;
    const judgedBefore = new Set((await t.repos.verdicts.list(c.id)).map((v) => v.documentId));
    expect((await t.repos.feedback.get(c.id))!.status).toBe('TRACING');
    const signalledAt = Date.now();
    w3.child.kill('SIGTERM');
    expect(await w3.exited(60_000)).toBe(0);
    const exitedAfterMs = Date.now() - signalledAt;
    const lines = w3.output().split('\n').filter((l) => l.includes('handed back to the queue'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`job ${tracebackJobId(c.id)} handed back to the queue`);
    expect(w3.output()).toContain('1 job(s) handed back');
    // Well before the hand-back grace (10 s) and the lock (60 s): the run stopped at a safe point.
    expect(exitedAfterMs).toBeLessThan(9_000);

    expect((await waitTerminal(t, [c.id], 120_000)).statuses[c.id]).toBe('TRACED');
    const first = askedFor(3).filter((r) => r.model === firstModel);
    const second = askedFor(3).filter((r) => r.model === secondModel);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(second.length).toBeGreaterThanOrEqual(1);
    // The runs did not overlap, and the second began soon after the hand-back (not after the 60 s lock).
    expect(Math.max(...first.map((r) => r.at))).toBeLessThan(Math.min(...second.map((r) => r.at)));
    const takenOverAfterMs = Math.min(...second.map((r) => r.at)) - signalledAt;
    expect(takenOverAfterMs).toBeLessThan(20_000);
    // Texts with a verdict when the first run stopped were not judged again.
    const textsJudgedBefore = new Set((await t.repos.documents.get([...judgedBefore])).map((d) => d.text));
    expect(second.filter((r) => textsJudgedBefore.has(r.text)).map((r) => r.text)).toEqual([]);

    // Nothing written twice: one verdict per text, one quarantine per text (each in the store), one traceback audit entry.
    const verdicts = await t.prisma.judgeVerdict.findMany({ where: { feedbackId: c.id } });
    expect(new Set(verdicts.map((v) => v.documentId)).size).toBe(verdicts.length);
    const records = await t.prisma.quarantineRecord.findMany({ where: { feedbackId: c.id } });
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(new Set(records.map((r) => r.documentId)).size).toBe(records.length);
    expect(records.every((r) => r.storeSynced)).toBe(true);
    expect(await t.prisma.auditLog.count({ where: { entityId: c.id, action: { startsWith: 'traceback.' } } })).toBe(1);
    // The hand-back used no attempt and is no stall: started twice, one attempt made (the completing one; BullMQ counts a finish as an attempt).
    const job = (await queue.getJob(tracebackJobId(c.id)))!;
    expect({ state: await job.getState(), attemptsMade: job.attemptsMade, attemptsStarted: job.attemptsStarted, stalledCounter: job.stalledCounter }).toEqual({ state: 'completed', attemptsMade: 1, attemptsStarted: 2, stalledCounter: 0 });
    expect((await t.repos.feedback.get(c.id))!.attempts).toBe(2);
    expect(w4.output()).toContain(`${c.id}: TRACED`);
    printFaultLine({
      fault: 'worker-sigterm-hand-back', drainMs: 1000, handedBack: lines.length, exitedAfterMs, takenOverAfterMs, attemptsStarted: job.attemptsStarted,
      judgedByFirst: first.length, judgedBySecond: second.length, judgedAgain: second.filter((r) => textsJudgedBefore.has(r.text)).length,
      verdicts: verdicts.length, quarantines: records.length, stalledCounter: job.stalledCounter, attemptsMade: job.attemptsMade,
    });
  }, 360_000);
});
