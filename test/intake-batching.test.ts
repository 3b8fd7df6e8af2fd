/**
 * Intake batching (issue 15) on the real parts: the HTTP API, Postgres and Redis. Concurrent
 * POST /v1/feedback requests share multi-row INSERTs, audit INSERTs, status UPDATEs and BullMQ
 * addBulk calls; these tests hold the promises that batching must keep:
 * - every 202 is a committed row with a job (500 concurrent submissions over both paths);
 * - idempotency: one event per Idempotency-Key and one per feedback token, however many requests
 *   race in one batch; a key reused for different feedback is still a 409;
 * - a batch whose INSERT fails answers 5xx to every request in it and persists none of its rows
 *   (one statement); requests in later batches are unaffected.
 */
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { CORE_SETTINGS, FEEDBACK_EVENTS, signFeedbackToken, type CoreSettings, type FeedbackEventRepository, type NewFeedback } from '@forensics/core';
import { BatchingFeedbackEventRepository, PrismaFeedbackEventRepository, TRACEBACK_QUEUE_NAME, tracebackJobId } from '@forensics/infra';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;

describe('intake batching: POST /v1/feedback under concurrency', () => {
  let t: TestApp;
  let queue: Queue;
  let secret: string;
  const collection = uniqueName('intake');

  const post = async (body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${t.url}/v1/feedback`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => null)) as Json };
  };
  const withKey = (key?: string) => ({ 'x-api-key': TEST_API_KEY, ...(key ? { 'idempotency-key': key } : {}) });
  const newAnswer = async (i: number) => t.repos.answers.create({
    collection, query: `question ${i}`, answer: `wrong ${i}`, servedIds: [], servedScores: [], source: 'external', generatorKind: null, generatorModel: null, promptVersion: null, embedder: null,
  });
  const jobExists = async (id: string) => !!(await queue.getJob(tracebackJobId(id)));

  beforeAll(async () => {
    // No worker: the jobs stay in Redis to be counted. A generous enqueue bound: on a loaded machine the
    // 500 ms default can pass, and a 202 with queued:false (the reconciler's case) is not what is tested here.
    t = await createTestApp({ api: true, env: { QUEUE_ENQUEUE_TIMEOUT_MS: '20000' } });
    queue = t.get<Queue>(getQueueToken(TRACEBACK_QUEUE_NAME) as never);
    secret = t.get<CoreSettings>(CORE_SETTINGS).feedbackTokens.secret;
    // Intake only checks that the collection exists; no texts are needed.
    await t.repos.documents.ensureCollection({ name: collection, embedder: 'test', dimension: 3 });
  }, 60_000);

  afterAll(async () => {
    await t?.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS intake_batching_fail ON "FeedbackEvent"').catch(() => {});
    await t?.prisma.$executeRawUnsafe('DROP FUNCTION IF EXISTS intake_batching_fail()').catch(() => {});
    await t?.close();
  });

  it('the feedback repository is the batching one (else these tests would test nothing new)', () => {
    expect(t.get<FeedbackEventRepository>(FEEDBACK_EVENTS)).toBeInstanceOf(BatchingFeedbackEventRepository);
  });

  it('500 concurrent submissions over both paths: 500 × 202, 500 rows (QUEUED), 500 jobs, 500 audit entries', async () => {
    const answers = await Promise.all(Array.from({ length: 250 }, (_, i) => newAnswer(i)));
    const requests = [
      ...Array.from({ length: 250 }, (_, i) => () => post({ collection, query: `who wrote book ${i}`, wrongAnswer: `author ${i}` }, withKey(`k500-${i}`))),
      ...answers.map((a) => () => post({ correctAnswer: 'right' }, { authorization: `FeedbackToken ${signFeedbackToken(a.id, secret).token}` })),
    ];
    const results = await Promise.all(requests.map((r) => r()));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 202));
    expect(results.every((r) => r.body.duplicate === false && r.body.queued === true && r.body.status === 'QUEUED')).toBe(true);
    const ids = results.map((r) => r.body.id as string);
    expect(new Set(ids).size).toBe(500);

    const rows = await t.prisma.feedbackEvent.findMany({ where: { id: { in: ids } } });
    expect(rows).toHaveLength(500);
    expect(rows.every((r) => r.status === 'QUEUED' && r.collection === collection)).toBe(true);
    // The token path's events carry their answer (one per answer), the key path's their key.
    expect(new Set(rows.filter((r) => r.answerId).map((r) => r.answerId))).toEqual(new Set(answers.map((a) => a.id)));
    expect(rows.filter((r) => r.idempotencyKey?.startsWith('k500-'))).toHaveLength(250);
    expect((await Promise.all(ids.map(jobExists))).filter(Boolean)).toHaveLength(500);
    expect(await t.prisma.auditLog.count({ where: { action: 'feedback.received', entityId: { in: ids } } })).toBe(500);
  }, 120_000);

  it('idempotency holds inside a batch: 10 keys × 10 racing requests → 10 events; 20 racing presses of one token → 1 event', async () => {
    const keyed = await Promise.all(Array.from({ length: 100 }, (_, i) => post({ collection, query: `same question ${i % 10}`, wrongAnswer: 'same wrong' }, withKey(`race-${i % 10}`))));
    expect(keyed.every((r) => r.status === 202)).toBe(true);
    for (let k = 0; k < 10; k++) {
      const mine = keyed.filter((_, i) => i % 10 === k);
      expect(new Set(mine.map((r) => r.body.id)).size).toBe(1);
      expect(mine.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    }
    expect(await t.prisma.feedbackEvent.count({ where: { idempotencyKey: { startsWith: 'race-' } } })).toBe(10);

    const a = await newAnswer(9999);
    const token = signFeedbackToken(a.id, secret).token;
    const presses = await Promise.all(Array.from({ length: 20 }, () => post({}, { authorization: `FeedbackToken ${token}` })));
    expect(presses.every((r) => r.status === 202)).toBe(true);
    expect(new Set(presses.map((r) => r.body.id)).size).toBe(1);
    expect(presses.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: a.id } })).toBe(1);
    expect(await jobExists(presses[0].body.id)).toBe(true);
  }, 60_000);

  it('a key reused for different feedback in the same batch is a 409 for the loser; 400 and 413 are untouched', async () => {
    const [x, y] = await Promise.all([
      post({ collection, query: 'conflict question', wrongAnswer: 'one' }, withKey('conflict-1')),
      post({ collection, query: 'conflict question', wrongAnswer: 'two' }, withKey('conflict-1')),
    ]);
    expect([x.status, y.status].sort()).toEqual([202, 409]);
    expect(await t.prisma.feedbackEvent.count({ where: { idempotencyKey: 'conflict-1' } })).toBe(1);

    const bad = await post({ collection, query: '', wrongAnswer: 'x' }, withKey());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/query/);
    const big = await post({ collection, query: 'q'.repeat(300_000), wrongAnswer: 'x' }, withKey());
    expect(big.status).toBe(413);
  }, 30_000);

  it('a failed batch INSERT rejects every request of the batch and persists none of its rows', async () => {
    // A trigger that fails the statement when one row of it is "poisoned": the whole multi-row INSERT fails.
    await t.prisma.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION intake_batching_fail() RETURNS trigger AS $$
      BEGIN IF NEW."wrongAnswer" = 'FAIL-THIS-BATCH' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await t.prisma.$executeRawUnsafe('CREATE TRIGGER intake_batching_fail BEFORE INSERT ON "FeedbackEvent" FOR EACH ROW EXECUTE FUNCTION intake_batching_fail()');
    try {
      // Directly on the repository: 20 creates submitted in one tick form one batch.
      const repo = new BatchingFeedbackEventRepository(t.prisma, new PrismaFeedbackEventRepository(t.prisma));
      const input = (i: number): NewFeedback => ({ collection, query: `batch row ${i}`, wrongAnswer: i === 7 ? 'FAIL-THIS-BATCH' : 'fine', k: 5, idempotencyKey: `failed-batch-${i}` });
      const settled = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => repo.create(input(i))));
      expect(settled.map((s) => s.status)).toEqual(settled.map(() => 'rejected'));
      expect(await t.prisma.feedbackEvent.count({ where: { idempotencyKey: { startsWith: 'failed-batch-' } } })).toBe(0);
      // The next batch is written normally.
      const after = await Promise.all(Array.from({ length: 5 }, (_, i) => repo.create(input(100 + i))));
      expect(after.every((r) => r.created)).toBe(true);

      // Through HTTP: requests that share the failing batch get 5xx, none of them has a row; every 202 has one.
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        post({ collection, query: `http batch ${i}`, wrongAnswer: i === 0 ? 'FAIL-THIS-BATCH' : 'fine' }, withKey(`http-batch-${i}`))));
      expect(results[0].status).toBe(500);
      expect(results.every((r) => r.status === 202 || r.status === 500)).toBe(true);
      const rows = await t.prisma.feedbackEvent.findMany({ where: { idempotencyKey: { startsWith: 'http-batch-' } } });
      const accepted = results.flatMap((r, i) => (r.status === 202 ? [`http-batch-${i}`] : []));
      expect(rows.map((r) => r.idempotencyKey).sort()).toEqual(accepted.sort());
      for (const r of results.filter((x) => x.status === 202)) expect(await jobExists(r.body.id)).toBe(true);
    } finally {
      await t.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS intake_batching_fail ON "FeedbackEvent"');
    }
  }, 60_000);
});
