/**
 * The repository contract: the same cases run against the Prisma repositories on real Postgres
 * and against the in-memory fakes the use-case tests and the eval harness rely on, so a use case
 * proven on the fakes behaves the same on Postgres.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { NotFoundError, type NewVerdict, type QuarantineEvidence, type Repositories, type TraceRecord } from '@forensics/core';
import { createInMemoryRepositories } from '@forensics/core/testing';
import { applyMigrations, createPrismaClient, createPrismaRepositories, type PrismaClient } from '@forensics/infra';
import { requireServices, ROOT, uniqueName } from './support/test-runtime';

let prisma: PrismaClient | null = null;
afterAll(async () => { await prisma?.$disconnect(); });

const implementations: [string, () => Promise<Repositories>][] = [
  ['prisma (real Postgres)', async () => {
    if (!prisma) {
      const { databaseUrl } = requireServices();
      await applyMigrations(databaseUrl, join(ROOT, 'prisma', 'migrations'));
      prisma = createPrismaClient(databaseUrl);
    }
    return createPrismaRepositories(prisma);
  }],
  ['in-memory fakes', async () => createInMemoryRepositories()],
];

const EVIDENCE: QuarantineEvidence = {
  policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge: yes', inputs: { label: 'YES', suspicion: 0.8, nested: { a: [1, 2] } } },
  judge: { kind: 'scripted', model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: { score: 0.9, terms: ['a', null] } },
  retrieval: { rank: 2, score: 0.71 },
  retrieverEvidence: { error: 'no probe' },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(implementations)('repository contract: %s', (_name, make) => {
  let repos: Repositories;
  let collection: string;
  beforeEach(async () => {
    repos = await make();
    collection = uniqueName('contract');
  });

  const docs = async (n: number) => {
    const rows = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), collection, externalId: `e${i}`, textHash: `${collection}-h${i}`, text: `text ${i}`, metadata: i ? { i, tags: ['x'] } : null }));
    expect(await repos.documents.insert(rows)).toBe(n);
    return rows;
  };
  const event = async (extra: Record<string, unknown> = {}) => (await repos.feedback.create({ collection, query: 'q?', wrongAnswer: 'w', k: 3, ...extra })).event;
  const verdict = (feedbackId: string, documentId: string, over: Partial<NewVerdict> = {}): NewVerdict => ({
    feedbackId, documentId, round: 1, label: 'YES', judgeKind: 'scripted', judgeModel: 'm', promptVersion: 'v1', reply: 'r', attempts: 1, latencyMs: 3,
    cacheKey: `${collection}-key`, cached: false, signals: { s: 1, ok: true }, retrievalRank: 1, retrievalScore: 0.5, evidence: null, ...over,
  });

  describe('documents', () => {
    it('collections: ensure keeps the first row; unknown is null', async () => {
      expect(await repos.documents.getCollection(collection)).toBeNull();
      expect(await repos.documents.ensureCollection({ name: collection, embedder: 'e1', dimension: 4 })).toEqual({ name: collection, embedder: 'e1', dimension: 4 });
      expect(await repos.documents.ensureCollection({ name: collection, embedder: 'e2', dimension: 8 })).toEqual({ name: collection, embedder: 'e1', dimension: 4 });
    });

    it('insert skips duplicate ids and duplicate (collection, hash); get/findByHashes/count; metadata round-trips', async () => {
      const [a, b] = await docs(2);
      expect(await repos.documents.insert([{ ...a, textHash: 'other' }, { ...b, id: randomUUID() }])).toBe(0);
      expect(await repos.documents.count(collection)).toBe(2);
      const got = await repos.documents.get([b.id, a.id, b.id, 'not-a-uuid', randomUUID()]);
      expect(got.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
      expect(got.find((d) => d.id === b.id)).toEqual({ ...b, status: 'ACTIVE' });
      expect((await repos.documents.findByHashes(collection, [a.textHash, 'nope'])).map((d) => d.id)).toEqual([a.id]);
      expect(await repos.documents.findByHashes(collection, [])).toEqual([]);
      expect(await repos.documents.get([])).toEqual([]);
    });
  });

  describe('feedback events', () => {
    it('create: fields, defaults; idempotency key returns the same event; unknown and non-UUID ids are null', async () => {
      const e = await event({ correctAnswer: 'c', servedIds: ['s1'], reporter: 'r', idempotencyKey: `${collection}-k` });
      expect(e).toMatchObject({ collection, query: 'q?', wrongAnswer: 'w', correctAnswer: 'c', servedIds: ['s1'], reporter: 'r', status: 'RECEIVED', step: null, attempts: 0, trace: null, verification: null, verificationDetails: null, tracedAt: null });
      const again = await repos.feedback.create({ collection, query: 'other', wrongAnswer: 'x', k: 1, idempotencyKey: `${collection}-k` });
      expect(again.created).toBe(false);
      expect(again.event.id).toBe(e.id);
      expect(await repos.feedback.get(randomUUID())).toBeNull();
      expect(await repos.feedback.get('nope')).toBeNull();
    });

    it('concurrent creates with one key make one event', async () => {
      const key = `${collection}-race`;
      const all = await Promise.all(Array.from({ length: 10 }, () => repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, idempotencyKey: key })));
      expect(new Set(all.map((r) => r.event.id)).size).toBe(1);
      expect(all.filter((r) => r.created)).toHaveLength(1);
    });

    it('one event per answer: findByAnswer; a second create for the answer without the key is refused', async () => {
      const answer = await repos.answers.create({ collection, query: 'q', answer: 'a', servedIds: [], servedScores: [], source: 'external', generatorKind: null, generatorModel: null, promptVersion: null, embedder: null });
      const e = await event({ answerId: answer.id, idempotencyKey: `answer:${answer.id}` });
      expect((await repos.feedback.findByAnswer(answer.id))!.id).toBe(e.id);
      expect(await repos.feedback.findByAnswer(randomUUID())).toBeNull();
      await expect(repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, answerId: answer.id })).rejects.toThrow();
    });

    it('transition is compare-and-set: wrong status → null and nothing written; set and incrementAttempts applied', async () => {
      const e = await event();
      expect(await repos.feedback.transition(e.id, { from: ['QUEUED'], to: 'TRACING', set: { failureReason: 'x' } })).toBeNull();
      expect(await repos.feedback.get(e.id)).toMatchObject({ status: 'RECEIVED', failureReason: null, attempts: 0 });
      const t = await repos.feedback.transition(e.id, { from: ['RECEIVED', 'QUEUED'], to: 'TRACING', incrementAttempts: true, set: { step: 'traced' } });
      expect(t).toMatchObject({ id: e.id, status: 'TRACING', attempts: 1, step: 'traced' });
      const at = new Date('2026-01-02T03:04:05.000Z');
      const done = await repos.feedback.transition(e.id, { from: ['TRACING'], to: 'TRACED', set: { tracedAt: at, failureReason: null } });
      expect(done).toMatchObject({ status: 'TRACED', tracedAt: at });
      expect(await repos.feedback.transition(e.id, { from: ['RECEIVED'], to: 'QUEUED' })).toBeNull();
      expect(await repos.feedback.transition('nope', { from: ['RECEIVED'], to: 'QUEUED' })).toBeNull();
    });

    it('concurrent transitions from one state: exactly one wins', async () => {
      const e = await event();
      const results = await Promise.all(Array.from({ length: 8 }, () => repos.feedback.transition(e.id, { from: ['RECEIVED'], to: 'QUEUED', incrementAttempts: true })));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await repos.feedback.get(e.id))!.attempts).toBe(1);
    });

    it('update writes fields, never the status; typed JSON round-trips exactly', async () => {
      const e = await event();
      const trace: TraceRecord = {
        state: { status: 'DONE', rounds: 2, servedRound: true, judgeCalls: 7, poisoned: 2, benign: 3, undetermined: 0, needsReview: false },
        rounds: [{ round: 0, retrieved: ['a'], judged: ['a'] }, { round: 1, retrieved: ['b', 'c'], judged: ['b'] }],
        boundReason: null, outcome: 'TRACED', judge: { kind: 'k', model: 'm', promptVersion: 'p' }, lastRun: { judgeCalls: 7, cachedVerdicts: 1 }, policy: 'judge-only', evidenceError: null,
      };
      await repos.feedback.update(e.id, { trace, step: 'verified', verification: 'POISONED', verificationDetails: { method: 'residual-support', servedIds: ['x'], stillSupporting: [], quarantinedByTrace: 2 }, correctAnswer: 'c' });
      const got = (await repos.feedback.get(e.id))!;
      expect(got.status).toBe('RECEIVED');
      expect(got.trace).toEqual(trace);
      expect(got.verificationDetails).toEqual({ method: 'residual-support', servedIds: ['x'], stillSupporting: [], quarantinedByTrace: 2 });
      expect(got).toMatchObject({ step: 'verified', verification: 'POISONED', correctAnswer: 'c' });
      expect(got.updatedAt.getTime()).toBeGreaterThanOrEqual(e.updatedAt.getTime());
    });

    it('listStale: by status and last update, oldest first, limited', async () => {
      const a = await event();
      await sleep(5);
      const b = await event();
      await sleep(5);
      const c = await event();
      await repos.feedback.transition(c.id, { from: ['RECEIVED'], to: 'QUEUED' });
      const cut = new Date(Date.now() + 1000);
      const stale = (await repos.feedback.listStale(['RECEIVED'], cut, 1000)).filter((x) => x.collection === collection);
      expect(stale.map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 1000)).filter((x) => x.collection === collection).map((x) => x.id)).toEqual([a.id, b.id, c.id]);
      expect((await repos.feedback.listStale(['RECEIVED'], new Date(a.createdAt.getTime() - 1000), 1000)).filter((x) => x.collection === collection)).toEqual([]);
      expect((await repos.feedback.listStale(['RECEIVED'], cut, 1)).length).toBe(1);
    });
  });

  describe('verdicts', () => {
    it('save upserts on (event, document), never duplicates; list orders by round; JSON round-trips', async () => {
      const [d1, d2] = await docs(2);
      const e = await event();
      await repos.verdicts.save(verdict(e.id, d1.id, { round: 2 }));
      await repos.verdicts.save(verdict(e.id, d2.id, { round: 1, evidence: { error: 'boom' } }));
      await repos.verdicts.save(verdict(e.id, d1.id, { round: 2, label: 'NO', reply: 'again' }));
      const list = await repos.verdicts.list(e.id);
      expect(list.map((v) => [v.documentId, v.label])).toEqual([[d2.id, 'YES'], [d1.id, 'NO']]);
      expect(list[0]).toMatchObject({ signals: { s: 1, ok: true }, evidence: { error: 'boom' }, retrievalRank: 1, retrievalScore: 0.5 });
      expect(await repos.verdicts.list('nope')).toEqual([]);
    });

    it('findByCacheKey: the most recent labelled, non-cached verdict from any event', async () => {
      const [d1, d2, d3] = await docs(3);
      const e1 = await event();
      const e2 = await event();
      const key = `${collection}-cache`;
      expect(await repos.verdicts.findByCacheKey(key)).toBeNull();
      await repos.verdicts.save(verdict(e1.id, d1.id, { cacheKey: key, label: 'NO', reply: 'first' }));
      await sleep(5);
      await repos.verdicts.save(verdict(e2.id, d1.id, { cacheKey: key, label: 'YES', reply: 'second' }));
      await sleep(5);
      await repos.verdicts.save(verdict(e2.id, d2.id, { cacheKey: key, label: 'UNDETERMINED', reply: 'undetermined' }));
      await repos.verdicts.save(verdict(e1.id, d3.id, { cacheKey: key, label: 'NO', cached: true, reply: 'cached copy' }));
      expect((await repos.verdicts.findByCacheKey(key))!.reply).toBe('second');
    });
  });

  describe('quarantines', () => {
    const newQ = (documentId: string, feedbackId: string | null, over: Record<string, unknown> = {}) => ({
      documentId, feedbackId, collection, reason: 'judge said yes', evidence: EVIDENCE, policy: 'judge-only', createdBy: 'worker', ...over,
    });

    it('create: one active record per document, document status, audit entry, evidence round-trips', async () => {
      const [d] = await docs(1);
      const e = await event();
      const first = await repos.quarantines.create(newQ(d.id, e.id));
      expect(first.created).toBe(true);
      expect(first.record).toMatchObject({ state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, createdBy: 'worker', feedbackId: e.id, resolvedBy: null });
      expect(first.record.evidence).toEqual(EVIDENCE);
      const second = await repos.quarantines.create(newQ(d.id, null, { state: 'NEEDS_REVIEW' }));
      expect(second).toEqual({ record: first.record, created: false });
      expect((await repos.documents.get([d.id]))[0].status).toBe('QUARANTINED');
      expect((await repos.audit.listFor('QuarantineRecord', first.record.id)).map((a) => [a.action, a.actor])).toEqual([['quarantine.created', 'worker']]);
    });

    it('concurrent creates for one document make one record', async () => {
      const [d] = await docs(1);
      const all = await Promise.all(Array.from({ length: 6 }, () => repos.quarantines.create(newQ(d.id, null))));
      expect(new Set(all.map((r) => r.record.id)).size).toBe(1);
      expect(all.filter((r) => r.created)).toHaveLength(1);
    });

    it('NEEDS_REVIEW served during review leaves the document ACTIVE; approve → QUARANTINED once', async () => {
      const [d] = await docs(1);
      const { record } = await repos.quarantines.create(newQ(d.id, null, { state: 'NEEDS_REVIEW', servedDuringReview: true }));
      expect(record).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: true });
      expect((await repos.documents.get([d.id]))[0].status).toBe('ACTIVE');
      await repos.quarantines.markSynced(record.id);
      const approved = await repos.quarantines.approve(record.id, 'alice', 'looks poisoned');
      expect(approved).toMatchObject({ state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, resolvedBy: 'alice', note: 'looks poisoned' });
      expect((await repos.documents.get([d.id]))[0].status).toBe('QUARANTINED');
      const again = await repos.quarantines.approve(record.id, 'bob');
      expect(again.resolvedBy).toBe('alice');
      expect((await repos.audit.listFor('QuarantineRecord', record.id)).map((a) => a.action)).toEqual(['review.requested', 'review.approved']);
    });

    it('restore: RESTORED unsynced, document ACTIVE, audited; a second restore is a no-op; unknown → NotFoundError', async () => {
      const [d] = await docs(1);
      const { record } = await repos.quarantines.create(newQ(d.id, null));
      await repos.quarantines.markSynced(record.id);
      expect((await repos.quarantines.get(record.id))!.storeSynced).toBe(true);
      const restored = await repos.quarantines.restore(record.id, 'bob', 'false positive');
      expect(restored).toMatchObject({ state: 'RESTORED', storeSynced: false, resolvedBy: 'bob', note: 'false positive' });
      expect(restored.resolvedAt).toBeInstanceOf(Date);
      expect((await repos.documents.get([d.id]))[0].status).toBe('ACTIVE');
      expect((await repos.quarantines.restore(record.id, 'carol')).resolvedBy).toBe('bob');
      expect(await repos.quarantines.approve(record.id, 'carol')).toMatchObject({ state: 'RESTORED' });
      await expect(repos.quarantines.restore(randomUUID(), 'x')).rejects.toBeInstanceOf(NotFoundError);
      // A restored text may be quarantined again (it is no longer active).
      expect((await repos.quarantines.create(newQ(d.id, null))).created).toBe(true);
    });

    it('list filters by event, state, collection, unsynced; limit; get of unknown is null', async () => {
      const [d1, d2, d3] = await docs(3);
      const e = await event();
      const a = (await repos.quarantines.create(newQ(d1.id, e.id))).record;
      const b = (await repos.quarantines.create(newQ(d2.id, e.id, { state: 'NEEDS_REVIEW' }))).record;
      const c = (await repos.quarantines.create(newQ(d3.id, null))).record;
      await repos.quarantines.markSynced(a.id);
      const ids = async (f: Parameters<Repositories['quarantines']['list']>[0]) => (await repos.quarantines.list({ collection, ...f })).map((r) => r.id).sort();
      expect(await ids({ feedbackId: e.id })).toEqual([a.id, b.id].sort());
      expect(await ids({ state: 'NEEDS_REVIEW' })).toEqual([b.id]);
      expect(await ids({ unsynced: true })).toEqual([b.id, c.id].sort());
      expect(await ids({})).toEqual([a.id, b.id, c.id].sort());
      expect(await ids({ limit: 1 })).toHaveLength(1);
      expect(await repos.quarantines.list({ feedbackId: 'nope' })).toEqual([]);
      expect(await repos.quarantines.get(randomUUID())).toBeNull();
      expect(await repos.quarantines.get('nope')).toBeNull();
    });
  });

  describe('answers, enhancements, audit log, health', () => {
    it('answers round-trip', async () => {
      const a = await repos.answers.create({ collection, query: 'q', answer: 'a', servedIds: ['x', 'y'], servedScores: [0.9, 0.8], source: 'builtin', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', embedder: 'e' });
      expect(await repos.answers.get(a.id)).toEqual(a);
      expect(await repos.answers.get('nope')).toBeNull();
    });

    it('enhancements: create audited, list filters, active by proxy, markDeleted audited', async () => {
      const e = await event();
      const proxyA = randomUUID();
      const proxyB = randomUUID();
      const base = { collection, feedbackId: e.id, query: 'q', correctAnswer: 'c', benignText: '[LATEST] c [/LATEST]', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', createdBy: 'w' };
      const a = await repos.enhancements.create({ ...base, proxyId: proxyA });
      const b = await repos.enhancements.create({ ...base, proxyId: proxyB });
      expect(a).toMatchObject({ state: 'ACTIVE', deletedAt: null, deletedBy: null });
      expect(await repos.enhancements.get(a.id)).toEqual(a);
      expect((await repos.enhancements.list({ feedbackId: e.id })).map((x) => x.id)).toEqual([a.id, b.id]);
      const deleted = await repos.enhancements.markDeleted(b.id, 'admin');
      expect(deleted).toMatchObject({ state: 'DELETED', deletedBy: 'admin' });
      expect((await repos.enhancements.list({ collection, state: 'ACTIVE' })).map((x) => x.id)).toEqual([a.id]);
      expect((await repos.enhancements.findActiveByProxyIds([proxyA, proxyB, 'nope'])).map((x) => x.id)).toEqual([a.id]);
      expect((await repos.audit.listFor('Enhancement', b.id)).map((x) => [x.action, x.actor])).toEqual([['enhancement.created', 'w'], ['enhancement.deleted', 'admin']]);
      expect(await repos.enhancements.get('nope')).toBeNull();
      await expect(repos.enhancements.create({ ...base, proxyId: proxyA })).rejects.toThrow();
    });

    it('audit log: append and list per entity in order, details round-trip', async () => {
      const id = uniqueName('entity');
      await repos.audit.append({ actor: 'a', action: 'one', entityType: 'Thing', entityId: id, details: { n: 1, list: ['x'] } });
      await repos.audit.append({ actor: 'b', action: 'two', entityType: 'Thing', entityId: id });
      await repos.audit.append({ actor: 'c', action: 'other', entityType: 'Thing', entityId: `${id}-x` });
      const rows = await repos.audit.listFor('Thing', id);
      expect(rows.map((r) => [r.actor, r.action, r.details])).toEqual([['a', 'one', { n: 1, list: ['x'] }], ['b', 'two', undefined]]);
      expect(rows[0].at).toBeInstanceOf(Date);
    });

    it('health ping answers', async () => {
      await expect(repos.health.ping()).resolves.toBeUndefined();
    });
  });
});
