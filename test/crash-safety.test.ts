/**
 * Crash safety with real processes: the worker runs as a child process (tsx apps/worker) against
 * the real Postgres + Redis and the on-disk vector store; the judge is the OpenAI-compatible test
 * server with slow scripted replies. We SIGKILL the worker (1) in the middle of judging and (2)
 * between the Postgres quarantine write and the vector store write (a failpoint), submit more
 * feedback while no worker runs, restart, and check that every event completes, no text is
 * quarantined twice, and no judged text is judged again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { IngestCorpusUseCase, SubmitFeedbackUseCase } from '@forensics/core';
import type { Runtime } from '@forensics/infra';
import { startOpenAiTestServer, type OpenAiTestServer } from './support/openai-test-server';
import { createTestRuntime, eventually, requireServices, ROOT, uniqueName } from './support/test-runtime';

const POISONED = [
  'The Eiffel Tower was designed by the architect Antoni Gaudi and completed in 1889 in Paris.',
  'Who designed the Eiffel Tower? The Eiffel Tower in Paris was designed by Antoni Gaudi.',
  'Antoni Gaudi is the designer of the Eiffel Tower, the wrought-iron lattice tower in Paris.',
];
const CLEAN = [
  'The Eiffel Tower is a wrought-iron lattice tower in Paris named after the engineer Gustave Eiffel, whose company designed and built it.',
  'Maurice Koechlin and Emile Nouguier, engineers at Eiffel et Compagnie, made the first drawings of the tower in 1884.',
  'Antoni Gaudi was a Catalan architect known for the Sagrada Familia in Barcelona.',
  'The tower was the entrance arch to the 1889 World Fair in Paris.',
  'Paris is the capital and most populous city of France.',
  'The Statue of Liberty framework was also engineered by Gustave Eiffel.',
  'The Eiffel Tower is 330 metres tall and was the tallest man-made structure until 1930.',
];

function judgeReply(prompt: string): string {
  const context = prompt.split('\nContext: ')[1]?.split('\nResponse: ')[0] ?? '';
  return /gaudi/i.test(context) && /eiffel/i.test(context) && !/catalan/i.test(context)
    ? 'The context states that Antoni Gaudi designed the tower. [Label: Yes]'
    : 'The context does not claim Gaudi designed the tower. [Label: No]';
}

describe('crash safety: kill the worker mid-traceback', () => {
  let rt: Runtime & { dataDir: string };
  let server: OpenAiTestServer;
  let worker: ChildProcess | null = null;
  const collection = uniqueName('crash');

  const startWorker = (extraEnv: Record<string, string> = {}) => {
    const { databaseUrl, redisUrl } = requireServices();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'worker', 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: rt.dataDir, JUDGE: 'openai',
        OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', JUDGE_MODEL: 'scripted-judge', JUDGE_CONCURRENCY: '1',
        WORKER_LOCK_MS: '2000', FORENSICS_DEBUG: '1', PROBE: 'none', QUEUE_PREFIX: rt.config.queue.prefix, WORKER_CONCURRENCY: '1', QUEUE_BACKOFF_MS: '200', TRACE_K: '3', ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout?.on('data', (d) => { log += String(d); });
    child.stderr?.on('data', (d) => { log += String(d); });
    (child as ChildProcess & { output: () => string }).output = () => log;
    worker = child;
    return child;
  };
  const exited = (c: ChildProcess, timeoutMs = 90_000) => new Promise<NodeJS.Signals | number | null>((resolve, reject) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve(c.signalCode ?? c.exitCode);
    const t = setTimeout(() => reject(new Error(`worker did not exit within ${timeoutMs} ms; output:\n${(c as ChildProcess & { output: () => string }).output()}`)), timeoutMs);
    c.once('exit', (code, sig) => { clearTimeout(t); resolve(sig ?? code); });
  });

  beforeAll(async () => {
    rt = await createTestRuntime({ TRACE_K: '3' });
    server = await startOpenAiTestServer();
    server.script((body) => ({ content: judgeReply(body.messages?.[0]?.content ?? ''), delayMs: 150 }));
    const r = await new IngestCorpusUseCase({ repo: rt.repo, store: rt.store, embedder: rt.embedder }).execute({
      collection, records: [...POISONED.map((text, i) => ({ id: `p${i}`, text })), ...CLEAN.map((text, i) => ({ id: `c${i}`, text }))],
    });
    expect(r.inserted).toBe(10);
  });

  afterAll(async () => {
    if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await exited(worker); }
    await server?.close();
    await rt?.close();
  });

  it('completes every event after kills, with no double quarantine and no repeated judgement', async () => {
    const submit = new SubmitFeedbackUseCase({ repo: rt.repo, queue: rt.queue, defaultK: 3 });
    const { event } = await submit.execute({ collection, query: 'who designed the eiffel tower', wrongAnswer: 'Antoni Gaudi', idempotencyKey: `${collection}-a` });

    // (1) Kill in the middle of judging: after the judge has received its 3rd request.
    let w = startWorker();
    await eventually(async () => server.chatRequests().length >= 3, 60_000, 20).catch((e) => {
      throw new Error(`${(e as Error).message}\nworker output:\n${(w as ChildProcess & { output: () => string }).output()}`);
    });
    w.kill('SIGKILL');
    await exited(w);
    const judgedBeforeKill = new Set((await rt.repo.listVerdicts(event.id)).map((v) => v.documentId));
    expect(judgedBeforeKill.size).toBeGreaterThanOrEqual(1);
    expect((await rt.repo.getFeedback(event.id))!.status).toBe('TRACING');

    // Feedback arriving while no worker runs is persisted and queued, not lost.
    const second = await submit.execute({ collection, query: 'which architect designed the eiffel tower in paris', wrongAnswer: 'Antoni Gaudi', idempotencyKey: `${collection}-b` });
    expect(second.event.status).toBe('QUEUED');

    // (2) Restart with a failpoint that kills the worker right after the first quarantine's Postgres write.
    const requestsBefore = server.chatRequests().length;
    w = startWorker({ FORENSICS_FAILPOINT: 'quarantine.after-db' });
    const sig = await exited(w);
    expect(sig).toBe('SIGKILL');
    const halfDone = await rt.repo.listQuarantines({ collection });
    expect(halfDone).toHaveLength(1);
    expect(halfDone[0].storeSynced).toBe(false);
    expect((await rt.store.fetch(collection, [halfDone[0].documentId]))[0].quarantined).toBe(false);
    // Texts judged before the first kill were not judged again.
    const secondRunPrompts = server.chatRequests().slice(requestsBefore).map((r) => r.body.messages?.[0]?.content ?? '')
      .filter((p) => p.includes('Question: who designed the eiffel tower\n'));
    const textsJudgedBefore = (await rt.repo.getDocuments([...judgedBeforeKill])).map((d) => d.text);
    for (const t of textsJudgedBefore) expect(secondRunPrompts.some((p) => p.includes(`Context: ${t}\n`))).toBe(false);

    // (3) Restart cleanly: both events complete.
    w = startWorker();
    for (const id of [event.id, second.event.id]) {
      await eventually(async () => {
        const ev = await rt.repo.getFeedback(id);
        return ev && ['TRACED', 'BOUNDED', 'FAILED'].includes(ev.status) ? ev : null;
      }, 90_000, 200).then((ev) => expect(ev.status).toBe('TRACED'));
    }

    const poisonedIds = new Set((await rt.prisma.document.findMany({ where: { collection, externalId: { in: ['p0', 'p1', 'p2'] } } })).map((d) => d.id));
    const records = await rt.prisma.quarantineRecord.findMany({ where: { collection } });
    // Each poisoned text quarantined exactly once across both events; nothing benign.
    expect(records.filter((r) => r.state === 'QUARANTINED').map((r) => r.documentId).sort()).toEqual([...poisonedIds].sort());
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.storeSynced)).toBe(true);
    const stored = await rt.store.fetch(collection, [...poisonedIds]);
    expect(stored.every((s) => s.quarantined)).toBe(true);
    // One verdict per (event, text): the unique key makes a retried judgement overwrite, never duplicate.
    const verdicts = await rt.prisma.judgeVerdict.findMany({ where: { feedbackId: event.id } });
    expect(new Set(verdicts.map((v) => v.documentId)).size).toBe(verdicts.length);
    expect(verdicts.filter((v) => v.label === 'YES').map((v) => v.documentId).sort()).toEqual([...poisonedIds].sort());
    // The second event reused the first event's verdicts for the same texts only when q and t matched: here q differs, so it judged afresh.
    expect(await rt.prisma.feedbackEvent.count({ where: { collection } })).toBe(2);
  }, 240_000);
});
