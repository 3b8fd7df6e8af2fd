/**
 * Fault: the worker SIGKILLed at each persisted step of the pipeline (failpoints: mid-judging
 * after a round's verdicts are written, between the quarantine's Postgres write and its store
 * write, after 'traced', after 'verified', after 'enhanced'). The worker runs as a child process on
 * the shared test Postgres + Redis and this test's own vector store directory; every report has
 * its own collection (each has poisoned texts to quarantine) and a correct answer (so the
 * enhancement step runs).
 *
 * The steps are killed latest first: a killed event resumes after its step, so it cannot hit the
 * failpoint of an earlier step in the next worker — each event is killed once (the one exception:
 * an event killed inside the traceback replays its rounds and may be killed again mid-judging),
 * well within BullMQ's stalled-job limit. Then one clean worker completes everything.
 */
import { IngestCorpusUseCase, SubmitFeedbackUseCase } from '@forensics/core';
import { startWorker, type WorkerProcess } from '../support/faults/worker-process';
import { assertInvariants, CORPUS, judgeEnv, printFaultLine, report, scriptJudge, waitTerminal } from '../support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openai-test-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { requireServices, uniqueName } from '../support/test-runtime';

/** Latest step first (see above); `step` is the row's persisted step when the worker died there. */
const KILLS = [
  { failpoint: 'pipeline.after-enhanced', step: 'enhanced' },
  { failpoint: 'pipeline.after-verified', step: 'verified' },
  { failpoint: 'pipeline.after-traced', step: 'traced' },
  { failpoint: 'quarantine.after-db', step: null },
  { failpoint: 'traceback.after-round', step: null },
] as const;

describe('fault: worker SIGKILL at each persisted step', () => {
  let t: TestApp;
  let server: OpenAiTestServer;
  let worker: WorkerProcess | null = null;
  const base = uniqueName('fault_kill');

  const workerEnv = (extra: Record<string, string> = {}) => {
    const { databaseUrl, redisUrl } = requireServices();
    return {
      ...judgeEnv(server), DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: t.dataDir, QUEUE_PREFIX: t.config.queue.prefix,
      WORKER_CONCURRENCY: '1', WORKER_LOCK_MS: '2000', QUEUE_BACKOFF_MS: '200', SWEEP_EVERY_MS: '1000', ...extra,
    };
  };

  beforeAll(async () => {
    server = await startOpenAiTestServer();
    scriptJudge(server, 30);
    t = await createTestApp({ env: { TRACE_K: '3' } });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await server?.close();
    await t?.close();
  }, 90_000);

  it('every report completes after a kill at each step; nothing quarantined or enhanced twice', async () => {
    const started = Date.now();
    const events: { id: string; collection: string }[] = [];
    const killed: Record<string, unknown>[] = [];
    for (const [i, kill] of KILLS.entries()) {
      const collection = `${base}_${i}`;
      await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
      const r = report(collection, i);
      const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection, query: String(r.query), wrongAnswer: String(r.wrongAnswer), correctAnswer: String(r.correctAnswer) });
      events.push({ id: event.id, collection });
      worker = startWorker(workerEnv({ FORENSICS_FAILPOINT: kill.failpoint }));
      expect(await worker.exited(120_000)).toBe('SIGKILL');
      expect(worker.output()).toContain(`failpoint ${kill.failpoint}: killing the worker`);
      // The victim is this step's report (it was first in the queue; the one killed before is
      // still locked by its dead worker) — or, mid-judging, the previous report replaying its rounds.
      const victim = (await t.repos.feedback.get(event.id))!;
      const row = victim.status === 'TRACING' && victim.step === kill.step ? victim : (await t.repos.feedback.get(events[i - 1]?.id ?? event.id))!;
      expect(row.status).toBe('TRACING');
      expect(row.step).toBe(kill.step);
      if (kill.failpoint === 'quarantine.after-db') {
        // Postgres written, the store not yet.
        const half = await t.repos.quarantines.list({ feedbackId: row.id });
        expect(half.some((q) => !q.storeSynced)).toBe(true);
      }
      killed.push({ failpoint: kill.failpoint, feedbackId: row.id, step: row.step });
    }

    const recoveryStarted = Date.now();
    worker = startWorker(workerEnv());
    const ids = events.map((e) => e.id);
    const waited = await waitTerminal(t, ids, 150_000);
    const recoverSeconds = (Date.now() - recoveryStarted) / 1000;
    expect(waited.done).toBe(true);

    let completed = 0;
    let lost = 0;
    for (const e of events) {
      const inv = await assertInvariants(t, e.collection, [e.id]);
      completed += inv.completed;
      lost += inv.lost;
      const ev = (await t.repos.feedback.get(e.id))!;
      expect(ev).toMatchObject({ status: 'TRACED', step: 'enhanced' });
      // Only poisoned texts quarantined, each once, all in the store; at most one enhancement.
      const records = await t.prisma.quarantineRecord.findMany({ where: { collection: e.collection }, include: { document: { select: { externalId: true } } } });
      expect(records.length).toBeGreaterThanOrEqual(1);
      expect(records.every((q) => q.state === 'QUARANTINED' && q.storeSynced && /^p\d$/.test(q.document.externalId ?? ''))).toBe(true);
      expect(new Set(records.map((q) => q.documentId)).size).toBe(records.length);
      expect(await t.prisma.enhancement.count({ where: { feedbackId: e.id } })).toBeLessThanOrEqual(1);
      // One verdict per (event, text) however often it was resumed.
      const verdicts = await t.prisma.judgeVerdict.findMany({ where: { feedbackId: e.id }, select: { documentId: true } });
      expect(new Set(verdicts.map((v) => v.documentId)).size).toBe(verdicts.length);
    }
    printFaultLine({
      fault: 'worker-sigkill-each-step', kills: killed.length, steps: KILLS.map((k) => k.failpoint), victims: killed.map((k) => `${k.failpoint}@${String(k.feedbackId).slice(0, 8)}`), accepted: events.length, completed, lost,
      recoverSeconds: Math.round(recoverSeconds * 10) / 10, totalSeconds: Math.round((Date.now() - started) / 100) / 10,
    });
    expect(lost).toBe(0);
    expect(completed).toBe(events.length);
  }, 420_000);
});
