/**
 * Fault: 50 parallel duplicate submissions, three ways, against the API and worker in this
 * process (shared test Postgres + Redis). What the product promises for each:
 * - the same Idempotency-Key (same body) 50 times → ONE event; every answer is 202 with its id
 *   (`duplicate: true` for all but one) — the key is the client's retry handle;
 * - the same feedback token 50 times → ONE event per logged answer; every answer is 202 with its id;
 * - 50 identical bodies WITHOUT a key → 50 events: without a key two reports are two reports (the
 *   service cannot tell a retry from a second user); they complete without judging a text twice for
 *   the same (query, wrong answer) — the verdict cache — and without quarantining a text twice.
 * Each request is timed and must answer within its bound.
 */
import { IngestCorpusUseCase } from '@forensics/core';
import { assertInvariants, CORPUS, judgeEnv, printFaultLine, report, scriptJudge, timedRequest, waitTerminal, type Timed } from '../support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openai-test-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { uniqueName } from '../support/test-runtime';

const N = 50;
/** 50 concurrent requests on a loaded 2-core machine: each answered within this bound. */
const REQUEST_BOUND_MS = 10_000;

describe('fault: 50 parallel duplicate submissions', () => {
  let server: OpenAiTestServer;
  let t: TestApp;

  beforeAll(async () => {
    server = await startOpenAiTestServer();
    scriptJudge(server, 0);
    t = await createTestApp({ api: true, worker: true, env: { ...judgeEnv(server), SWEEP_EVERY_MS: '1000', WORKER_CONCURRENCY: '2' } });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await server?.close();
  }, 60_000);

  const ingest = async (name: string) => {
    const collection = uniqueName(name);
    await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
    return collection;
  };
  const parallel = (fn: (i: number) => Promise<Timed>) => Promise.all(Array.from({ length: N }, (_, i) => fn(i)));
  const finish = async (fault: string, collection: string, results: Timed[], expectEvents: number) => {
    expect(results.filter((r) => r.status !== 202).map((r) => `${r.status} ${r.error ?? JSON.stringify(r.body)}`)).toEqual([]);
    const ids = [...new Set(results.map((r) => String(r.body!.id)))];
    expect(ids).toHaveLength(expectEvents);
    expect(await t.prisma.feedbackEvent.count({ where: { collection } })).toBe(expectEvents);
    const started = Date.now();
    const waited = await waitTerminal(t, ids, 180_000);
    expect(waited.done).toBe(true);
    const inv = await assertInvariants(t, collection, ids);
    const maxRequestMs = Math.round(Math.max(...results.map((r) => r.ms)));
    printFaultLine({ fault, requests: results.length, accepted: inv.accepted, completed: inv.completed, failed: inv.failedPermanent, lost: inv.lost, duplicatesAnswered: results.filter((r) => r.body?.duplicate === true).length, completeSeconds: Math.round((Date.now() - started) / 100) / 10, maxRequestMs });
    expect(inv.lost).toBe(0);
    expect(inv.failedPermanent).toBe(0);
    expect(maxRequestMs).toBeLessThan(REQUEST_BOUND_MS);
    return ids;
  };

  it('the same Idempotency-Key 50 times: one event, every answer 202 with its id', async () => {
    const collection = await ingest('dup_key');
    const key = `${collection}-key`;
    const results = await parallel(() => timedRequest(`${t.url}/v1/feedback`, { body: report(collection, 0), headers: { 'idempotency-key': key } }));
    await finish('duplicate-idempotency-key-x50', collection, results, 1);
    expect(results.filter((r) => r.body!.duplicate === false)).toHaveLength(1);
  }, 240_000);

  it('the same feedback token 50 times: one event for the answer', async () => {
    const collection = await ingest('dup_token');
    const answer = await timedRequest(`${t.url}/v1/rag/answer`, { body: { collection, query: 'who designed the eiffel tower', k: 3 } });
    expect(answer.status).toBe(200);
    const token = String(answer.body!.feedbackToken);
    const results = await parallel(() => timedRequest(`${t.url}/v1/feedback`, { apiKey: false, headers: { authorization: `FeedbackToken ${token}` }, body: { wrongAnswer: 'Antoni Gaudi', correctAnswer: 'Gustave Eiffel' } }));
    await finish('duplicate-feedback-token-x50', collection, results, 1);
    expect(results.filter((r) => r.body!.duplicate === false)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body!.answerId))).toEqual(new Set([answer.body!.answerId]));
  }, 240_000);

  it('50 identical bodies without a key: 50 events, each text judged once per (query, answer) and quarantined once', async () => {
    const collection = await ingest('dup_body');
    const before = server.chatRequests().length;
    const results = await parallel(() => timedRequest(`${t.url}/v1/feedback`, { body: report(collection, 0) }));
    const ids = await finish('identical-bodies-no-key-x50', collection, results, N);
    // Every poisoned text quarantined exactly once across the 50 events.
    const records = await t.prisma.quarantineRecord.findMany({ where: { collection } });
    expect(records).toHaveLength(3);
    // Judge requests: bounded by the distinct texts, not by 50 × texts (the verdict cache, plus
    // texts already quarantined by an earlier event being out of retrieval). Two events running at
    // once may each judge a text before either's verdict is cached: at most once per text per
    // concurrently running event.
    const judged = server.chatRequests().length - before;
    expect(judged).toBeLessThanOrEqual(CORPUS.length * 2);
    expect(ids).toHaveLength(N);
  }, 300_000);
});
