/**
 * Consensus check (issue 13, item 1) through the whole pipeline on real parts: HTTP API + worker
 * (BullMQ on Redis) + Postgres + the embedded vector store + USE-lite and the offline judge.
 *
 * - a false flag: the report names as "wrong" the answer that many independently written texts of
 *   the collection state → the event is a suspected false flag, nothing is QUARANTINED (YES
 *   verdicts, if any, go to review kept in serving), visible in GET /v1/feedback/:id;
 * - a real attack (a tight group of planted rewrites) reported by an identified reporter is still
 *   auto-quarantined.
 * Each collection has its own name and its own judge model name (the verdict cache is shared).
 */
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

import { INDEPENDENT, OTHER, OUTLETS, PLANTED, QUERY, STORY } from './support/saint-ilsa-fixture';

type Json = Record<string, any>;

describe('false flags: the consensus check', () => {
  let t: TestApp;
  const consensusCol = uniqueName('ff-consensus');
  const attackCol = uniqueName('ff-attack');
  const sourcedCol = uniqueName('ff-sourced');
  const unsourcedCol = uniqueName('ff-unsourced');
  let serviceKey = '';

  const call = async (method: string, path: string, body?: unknown, key = TEST_API_KEY) => {
    const r = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json().catch(() => ({}))) as Json };
  };
  const traced = (id: string) => eventually(async () => {
    const f = await call('GET', `/v1/feedback/${id}`);
    return ['TRACED', 'BOUNDED', 'FAILED', 'VERIFIED', 'DONE'].includes(f.body.status) || f.body.trace?.outcome ? f.body : null;
  }, 180_000);

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { TRACE_K: '5', SWEEP_EVERY_MS: '1000', JUDGE_MODEL: uniqueName('ff-judge') } });
    const ingest = async (collection: string, docs: string[], sources: readonly string[] = []) => {
      const r = await call('POST', `/v1/collections/${collection}/documents`, { documents: docs.map((text, i) => ({ id: `d${i}`, text, ...(sources[i] ? { metadata: { source: sources[i] } } : {}) })) });
      expect(r.status).toBe(200);
    };
    await ingest(consensusCol, [...INDEPENDENT, ...OTHER]);
    await ingest(attackCol, [...PLANTED, ...INDEPENDENT.slice(0, 2), ...OTHER]);
    await ingest(sourcedCol, [...STORY, ...OTHER], OUTLETS);
    await ingest(unsourcedCol, [...STORY, ...OTHER]);
    const k = await call('POST', '/v1/admin/keys', { name: uniqueName('ff-backend'), scopes: ['feedback'] });
    expect(k.status).toBe(201);
    serviceKey = k.body.key;
  }, 180_000);
  afterAll(async () => { await t?.close(); });

  it('a report naming the consensus answer as wrong is a suspected false flag: nothing quarantined', async () => {
    const r = await call('POST', '/v1/feedback', { collection: consensusCol, query: QUERY, wrongAnswer: 'Tomas Vireo', reporter: 'user-7' }, serviceKey);
    expect(r.status).toBe(202);
    const f = await traced(r.body.id);
    const yes = await t.prisma.judgeVerdict.count({ where: { feedbackId: r.body.id, label: 'YES' } });
    expect(yes).toBeGreaterThan(0); // the judge does find texts that "induce" the answer: the check is what protects them
    expect(f.trace.suspectedFalseFlag).toBe(true);
    expect(f.trace.consensus.clusters.length).toBeGreaterThanOrEqual(3);
    const recs = await t.prisma.quarantineRecord.findMany({ where: { feedbackId: r.body.id } });
    expect(recs.filter((q) => q.state === 'QUARANTINED')).toEqual([]);
    for (const q of recs) {
      expect(q.state).toBe('NEEDS_REVIEW');
      expect(q.servedDuringReview).toBe(true);
      expect((q.evidence as Json).policy.inputs.consensus.suspected).toBe(true);
      expect(q.reason).toMatch(/suspected false flag/);
    }
    const ids = (await t.prisma.document.findMany({ where: { collection: consensusCol } })).map((d) => d.id);
    expect((await t.store.fetch(consensusCol, ids)).filter((p) => p.quarantined)).toEqual([]);
  }, 240_000);

  it('a real attack (tight planted group) is still auto-quarantined for an identified reporter', async () => {
    const r = await call('POST', '/v1/feedback', { collection: attackCol, query: QUERY, wrongAnswer: 'Anna Korrel', reporter: 'user-8' }, serviceKey);
    expect(r.status).toBe(202);
    const f = await traced(r.body.id);
    expect(f.trace.suspectedFalseFlag).toBe(false);
    const planted = new Set((await t.prisma.document.findMany({ where: { collection: attackCol, externalId: { in: ['d0', 'd1', 'd2'] } } })).map((d) => d.id));
    const quarantined = (await t.prisma.quarantineRecord.findMany({ where: { feedbackId: r.body.id, state: 'QUARANTINED' } })).map((q) => q.documentId);
    expect(quarantined.length).toBeGreaterThan(0);
    for (const id of quarantined) expect(planted.has(id)).toBe(true);
  }, 240_000);

  it('texts from different known sources (metadata.source) count as independent however alike they read', async () => {
    const report = async (collection: string, reporter: string) => {
      const r = await call('POST', '/v1/feedback', { collection, query: QUERY, wrongAnswer: 'Tomas Vireo', reporter }, serviceKey);
      expect(r.status).toBe(202);
      return { id: r.body.id as string, f: await traced(r.body.id) };
    };
    // Without sources the five repeats are one group: no consensus, and the identified report quarantines them.
    const plain = await report(unsourcedCol, 'user-9');
    expect(plain.f.trace.suspectedFalseFlag).toBe(false);
    expect(plain.f.trace.consensus.clusters).toHaveLength(1);
    // With their outlets as sources they are five voices: a suspected false flag, nothing quarantined.
    const sourced = await report(sourcedCol, 'user-10');
    expect(sourced.f.trace.suspectedFalseFlag).toBe(true);
    expect(sourced.f.trace.consensus.sources).toBe(5);
    expect(sourced.f.trace.consensus.reason).toContain('from 5 distinct source(s)');
    const recs = await t.prisma.quarantineRecord.findMany({ where: { feedbackId: sourced.id } });
    expect(recs.filter((q) => q.state === 'QUARANTINED')).toEqual([]);
  }, 240_000);
});
