/**
 * The repository contract: the same cases run against the Prisma repositories on real Postgres
 * and against the in-memory fakes the use-case tests and the eval harness rely on, so a use case
 * proven on the fakes behaves the same on Postgres. Tests share one database: every case works in
 * its own collection / keys, and whole-table queries (listStale) are read through that filter.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { combineEvidence } from '@forensics/algorithms';
import {
  ConflictError, NotFoundError, type CandidateEvidence, type FeedbackRow, type NewQuarantine, type NewVerdict, type QuarantineEvidence, type Repositories, type TraceRecord,
} from '@forensics/core';
import { createInMemoryRepositories } from '@forensics/core/testing';
import { applyMigrations, createPrismaClient, createPrismaRepositories, type PrismaClient } from '@forensics/infra';
import { requireServices, ROOT, uniqueName } from './support/test-runtime';
import type { DomainEventType, WebhookPayload, WebhookRepository } from '@forensics/core';
import { ScanGraph } from '@forensics/core';
import { InMemoryWebhookRepository } from '@forensics/core/testing';
import { PrismaWebhookRepository, SecretBox } from '@forensics/infra';
import type { AuditRunRepository } from '@forensics/core';
import { InMemoryAuditRunRepository } from '@forensics/core/testing';
import { PrismaAuditRunRepository } from '../libs/infra/src/audits/prisma-audit-run.repository';

let prisma: PrismaClient | null = null;
afterAll(async () => { await prisma?.$disconnect(); });

const implementations: [string, () => Promise<Repositories>][] = [
  ['prisma (real Postgres)', async () => {
    if (!prisma) {
      const { databaseUrl } = requireServices();
      // The integration globalSetup starts Postgres but applies no migrations (the app does at start).
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

const CANDIDATE_EVIDENCE: CandidateEvidence = {
  bird: { skipped: 'fewer than 2 neighbours' },
  grada: { skipped: 'n < 2' },
  progrank: { skipped: 'no probe in this harness', encoder: 'use-lite', layer: 'L3', score: 0.42, gateWeight: 0.5, defendedScore: 0.21 },
  combined: combineEvidence({ bird: 0.25, grada: 0.75 }),
  ms: { bird: 1.5, grada: 0, progrank: 12.25 },
};

const TRACE: TraceRecord = {
  state: { status: 'BOUNDED', boundReason: 'maxRounds', rounds: 2, servedRound: true, judgeCalls: 7, poisoned: 2, benign: 3, undetermined: 1, needsReview: true },
  inProgress: false,
  rounds: [{ round: 0, retrieved: ['a'], judged: ['a'] }, { round: 1, retrieved: ['b', 'c'], judged: [] }, { round: 2, retrieved: [], judged: [] }],
  boundReason: null, outcome: 'BOUNDED', judge: { kind: 'k', model: 'm', promptVersion: 'p' }, lastRun: { judgeCalls: 7, cachedVerdicts: 1 }, policy: 'judge-only', evidenceError: null,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Sorted by time, then id (how every ordered query breaks ties). */
const isOrdered = <R extends { id: string }>(rows: R[], at: (r: R) => Date) =>
  rows.every((r, i) => i === 0 || at(rows[i - 1]).getTime() < at(r).getTime() || (at(rows[i - 1]).getTime() === at(r).getTime() && rows[i - 1].id < r.id));

describe.each(implementations)('repository contract: %s', (_name, make) => {
  let repos: Repositories;
  let collection: string;
  beforeEach(async () => {
    repos = await make();
    collection = uniqueName('contract');
  });

  const docs = async (n: number) => {
    const rows = Array.from({ length: n }, (_, i) => ({ id: randomUUID(), collection, externalId: `e${i}`, textHash: `${collection}-h${i}`, text: `text ${i}`, metadata: i ? { i, tags: ['x'], deep: { on: true } } : null }));
    expect(await repos.documents.insert(rows)).toBe(n);
    return rows;
  };
  const event = async (extra: Record<string, unknown> = {}) => (await repos.feedback.create({ collection, query: 'q?', wrongAnswer: 'w', k: 3, ...extra })).event;
  const answer = () => repos.answers.create({ collection, query: 'q', answer: 'a', servedIds: [], servedScores: [], source: 'external', generatorKind: null, generatorModel: null, promptVersion: null, embedder: null });
  const verdict = (feedbackId: string, documentId: string, over: Partial<NewVerdict> = {}): NewVerdict => ({
    feedbackId, documentId, round: 1, label: 'YES', judgeKind: 'scripted', judgeModel: 'm', promptVersion: 'v1', reply: 'r', attempts: 1, latencyMs: 3,
    cacheKey: `${collection}-key`, cached: false, signals: { s: 1, ok: true }, retrievalRank: 1, retrievalScore: 0.5, evidence: null, spans: null, ...over,
  });
  const mine = (rows: FeedbackRow[]) => rows.filter((x) => x.collection === collection).map((x) => x.id);

  describe('documents', () => {
    it('collections: ensure keeps the first row; unknown is null', async () => {
      expect(await repos.documents.getCollection(collection)).toBeNull();
      const row = { name: collection, embedder: 'e1', dimension: 4, vettedBefore: null };
      expect(await repos.documents.ensureCollection({ name: collection, embedder: 'e1', dimension: 4 })).toEqual(row);
      expect(await repos.documents.ensureCollection({ name: collection, embedder: 'e2', dimension: 8 })).toEqual(row);
      expect(await repos.documents.getCollection(collection)).toEqual(row);
    });

    it('collections: a name that differs only in case is the same collection — ensure returns the stored spelling, creates none (issue 56, 7c)', async () => {
      const row = { name: `${collection}_Kb`, embedder: 'e1', dimension: 4, vettedBefore: null };
      expect(await repos.documents.ensureCollection({ name: row.name, embedder: 'e1', dimension: 4 })).toEqual(row);
      expect(await repos.documents.ensureCollection({ name: row.name.toUpperCase(), embedder: 'e1', dimension: 4 })).toEqual(row);
      expect(await repos.documents.ensureCollection({ name: row.name.toLowerCase(), embedder: 'e1', dimension: 4 })).toEqual(row);
      expect(await repos.documents.getCollection(row.name.toUpperCase())).toBeNull(); // lookups stay exact: one spelling
      expect((await repos.documents.listCollections()).filter((c) => c.name.toLowerCase() === row.name.toLowerCase()).map((c) => c.name)).toEqual([row.name]);
    });

    it('vetted baseline: set and clear the cutoff; texts registered before it are counted; each text has its registration time', async () => {
      expect(await repos.documents.setVettedBefore(`${collection}-unknown`, new Date())).toBeNull();
      await repos.documents.ensureCollection({ name: collection, embedder: 'e1', dimension: 4 });
      const [a] = await docs(1);
      const registered = (await repos.documents.get([a!.id]))[0]!.createdAt;
      expect(registered).toBeInstanceOf(Date);
      expect(Math.abs(registered.getTime() - Date.now())).toBeLessThan(60_000);
      const cutoff = new Date(registered.getTime() + 1);
      expect((await repos.documents.setVettedBefore(collection, cutoff))?.vettedBefore).toEqual(cutoff);
      expect((await repos.documents.getCollection(collection))?.vettedBefore).toEqual(cutoff);
      expect(await repos.documents.countRegisteredBefore(collection, cutoff)).toBe(1);
      expect(await repos.documents.countRegisteredBefore(collection, registered)).toBe(0);
      expect((await repos.documents.setVettedBefore(collection, null))?.vettedBefore).toBeNull();
      // listCollections: every collection by name, its texts counted.
      const listed = (await repos.documents.listCollections()).filter((c) => c.name === collection);
      expect(listed).toEqual([{ name: collection, embedder: 'e1', dimension: 4, vettedBefore: null, documents: 1 }]);
      const names = (await repos.documents.listCollections()).map((c) => c.name);
      expect(names).toEqual([...names].sort());
    });

    it('insert skips duplicate ids and duplicate (collection, hash), also within one batch; get/findByHashes/count; metadata round-trips', async () => {
      const [a, b] = await docs(2);
      expect(await repos.documents.insert([{ ...a, textHash: 'other' }, { ...b, id: randomUUID() }])).toBe(0);
      const c = { ...a, id: randomUUID(), textHash: `${collection}-c` };
      expect(await repos.documents.insert([c, { ...c, id: randomUUID() }, { ...c, textHash: `${collection}-d` }])).toBe(1);
      expect(await repos.documents.count(collection)).toBe(3);
      expect(await repos.documents.count(`${collection}-none`)).toBe(0);
      const got = await repos.documents.get([b.id, a.id, b.id, 'not-a-uuid', randomUUID()]);
      expect(got.map((d) => d.id).sort()).toEqual([a.id, b.id].sort());
      expect(got.find((d) => d.id === a.id)).toEqual({ ...a, metadata: null, status: 'ACTIVE', createdAt: expect.any(Date) });
      expect(got.find((d) => d.id === b.id)).toEqual({ ...b, status: 'ACTIVE', createdAt: expect.any(Date) });
      // The same hash in another collection is another text.
      expect(await repos.documents.insert([{ ...a, id: randomUUID(), collection: `${collection}-2` }])).toBe(1);
      expect((await repos.documents.findByHashes(collection, [a.textHash, 'nope'])).map((d) => d.id)).toEqual([a.id]);
      expect(await repos.documents.findByHashes(collection, [])).toEqual([]);
      expect(await repos.documents.get([])).toEqual([]);
      expect(await repos.documents.insert([])).toBe(0);
    });

    it('a document id that is not a UUID is refused; rows are copies', async () => {
      await expect(repos.documents.insert([{ id: 'not-a-uuid', collection, externalId: null, textHash: `${collection}-x`, text: 't', metadata: null }])).rejects.toThrow();
      const [, b] = await docs(2);
      const [got] = await repos.documents.get([b.id]);
      (got.metadata!.tags as string[]).push('mutated');
      got.status = 'PURGED';
      expect((await repos.documents.get([b.id]))[0]).toEqual({ ...b, status: 'ACTIVE', createdAt: expect.any(Date) });
    });
  });

  describe('feedback events', () => {
    it('create: fields, defaults; idempotency key returns the same event; unknown and non-UUID ids are null', async () => {
      const e = await event({ correctAnswer: 'c', servedIds: ['s1', 's0'], reporter: 'r', idempotencyKey: `${collection}-k` });
      expect(e).toMatchObject({ collection, query: 'q?', wrongAnswer: 'w', correctAnswer: 'c', servedIds: ['s1', 's0'], reporter: 'r', idempotencyKey: `${collection}-k`, k: 3, status: 'RECEIVED', step: null, attempts: 0, trace: null, failureReason: null, verification: null, verificationDetails: null, tracedAt: null, answerId: null });
      expect(e.createdAt).toBeInstanceOf(Date);
      expect(e.updatedAt.getTime()).toBe(e.createdAt.getTime());
      expect(await repos.feedback.get(e.id)).toEqual(e);
      const again = await repos.feedback.create({ collection, query: 'other', wrongAnswer: 'x', k: 1, idempotencyKey: `${collection}-k` });
      expect(again).toEqual({ event: e, created: false });
      const plain = await event();
      expect(plain).toMatchObject({ correctAnswer: null, servedIds: [], reporter: null, idempotencyKey: null });
      // The intake writes its events as QUEUED (its job is added right after).
      const queued = (await repos.feedback.create({ collection, query: 'q?', wrongAnswer: 'w', k: 3, status: 'QUEUED' })).event;
      expect(queued.status).toBe('QUEUED');
      expect((await repos.feedback.get(queued.id))!.status).toBe('QUEUED');
      expect(plain.id).not.toBe(e.id);
      expect((await repos.feedback.create({ collection, query: 'q?', wrongAnswer: 'w', k: 3 })).event.id).not.toBe(plain.id);
      expect(await repos.feedback.get(randomUUID())).toBeNull();
      expect(await repos.feedback.get('nope')).toBeNull();
    });

    it('concurrent creates with one key make one event', async () => {
      const key = `${collection}-race`;
      const all = await Promise.all(Array.from({ length: 10 }, () => repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, idempotencyKey: key })));
      expect(new Set(all.map((r) => r.event.id)).size).toBe(1);
      expect(all.filter((r) => r.created)).toHaveLength(1);
    });

    it('one event per answer: findByAnswer; a second create for the answer without the key is refused; an unknown answer is refused', async () => {
      const a = await answer();
      const e = await event({ answerId: a.id, idempotencyKey: `answer:${a.id}` });
      expect(e.answerId).toBe(a.id);
      expect((await repos.feedback.findByAnswer(a.id))!.id).toBe(e.id);
      expect(await repos.feedback.findByAnswer(randomUUID())).toBeNull();
      expect(await repos.feedback.findByAnswer('nope')).toBeNull();
      await expect(repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, answerId: a.id })).rejects.toThrow();
      await expect(repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, answerId: a.id, idempotencyKey: `${collection}-other` })).rejects.toThrow();
      await expect(repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, answerId: randomUUID() })).rejects.toThrow();
      // The key still wins: a repeat with the answer's key returns the event.
      expect(await repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, answerId: a.id, idempotencyKey: `answer:${a.id}` })).toEqual({ event: e, created: false });
    });

    it('transition is compare-and-set: wrong status → null and nothing written; set and incrementAttempts applied; updatedAt advances', async () => {
      const e = await event();
      await sleep(5);
      expect(await repos.feedback.transition(e.id, { from: ['QUEUED', 'TRACING'], to: 'TRACED', set: { failureReason: 'x', step: 'traced' }, incrementAttempts: true })).toBeNull();
      expect(await repos.feedback.get(e.id)).toEqual(e);
      const t = await repos.feedback.transition(e.id, { from: ['RECEIVED', 'QUEUED'], to: 'TRACING', incrementAttempts: true, set: { step: 'traced', trace: TRACE } });
      expect(t).toMatchObject({ id: e.id, status: 'TRACING', attempts: 1, step: 'traced', failureReason: null });
      expect(t!.trace).toEqual(TRACE);
      expect(t!.updatedAt.getTime()).toBeGreaterThan(e.updatedAt.getTime());
      expect(await repos.feedback.get(e.id)).toEqual(t);
      const at = new Date('2026-01-02T03:04:05.678Z');
      const done = await repos.feedback.transition(e.id, { from: ['TRACING'], to: 'TRACED', set: { tracedAt: at, failureReason: null, verification: 'INCONCLUSIVE' } });
      expect(done).toMatchObject({ status: 'TRACED', tracedAt: at, attempts: 1, step: 'traced', verification: 'INCONCLUSIVE' });
      expect(done!.trace).toEqual(TRACE);
      expect(await repos.feedback.transition(e.id, { from: ['RECEIVED'], to: 'QUEUED' })).toBeNull();
      expect(await repos.feedback.transition(e.id, { from: [], to: 'QUEUED' })).toBeNull();
      expect((await repos.feedback.get(e.id))!.status).toBe('TRACED');
      expect(await repos.feedback.transition('nope', { from: ['RECEIVED'], to: 'QUEUED' })).toBeNull();
      expect(await repos.feedback.transition(randomUUID(), { from: ['RECEIVED'], to: 'QUEUED' })).toBeNull();
    });

    it('concurrent transitions from one state: exactly one wins, and the stored row is the winner\'s', async () => {
      const e = await event();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => repos.feedback.transition(e.id, {
        from: ['RECEIVED'], to: i % 2 ? 'QUEUED' : 'FAILED', set: { failureReason: `writer ${i}` }, incrementAttempts: true,
      })));
      const winners = results.filter((r): r is FeedbackRow => r !== null);
      expect(winners).toHaveLength(1);
      const stored = (await repos.feedback.get(e.id))!;
      expect(stored).toEqual(winners[0]);
      expect(stored.attempts).toBe(1);
      expect(stored.failureReason).toBe(`writer ${results.findIndex((r) => r !== null)}`);
    });

    it('update writes fields, never the status; undefined members are left alone; updatedAt advances; unknown ids are ignored', async () => {
      const e = await event({ correctAnswer: 'first' });
      await sleep(5);
      const details = { method: 'rerun-rag' as const, servedIds: ['x'], answerAfter: 'Canberra', matchesWrongAnswer: false, promptVersion: 'p' };
      await repos.feedback.update(e.id, { trace: TRACE, step: 'verified', verification: 'POISONED', verificationDetails: details, failureReason: 'f' });
      const got = (await repos.feedback.get(e.id))!;
      expect(got.status).toBe('RECEIVED');
      expect(got.attempts).toBe(0);
      expect(got.trace).toEqual(TRACE);
      expect(got.verificationDetails).toEqual(details);
      expect(got).toMatchObject({ step: 'verified', verification: 'POISONED', correctAnswer: 'first', failureReason: 'f' });
      expect(got.updatedAt.getTime()).toBeGreaterThan(e.updatedAt.getTime());
      await repos.feedback.update(e.id, { correctAnswer: undefined, trace: undefined, step: 'enhanced', failureReason: null, tracedAt: new Date('2026-03-04T05:06:07.000Z') });
      expect(await repos.feedback.get(e.id)).toMatchObject({ correctAnswer: 'first', trace: TRACE, step: 'enhanced', failureReason: null, tracedAt: new Date('2026-03-04T05:06:07.000Z') });
      await repos.feedback.update(e.id, { trace: null, verificationDetails: null, verification: null, step: null });
      expect(await repos.feedback.get(e.id)).toMatchObject({ trace: null, verificationDetails: null, verification: null, step: null, correctAnswer: 'first' });
      await expect(repos.feedback.update(randomUUID(), { step: 'traced' })).resolves.toBeUndefined();
      await expect(repos.feedback.update('nope', { step: 'traced' })).resolves.toBeUndefined();
    });

    it('JSON columns hold JSON: what is read back is what Postgres stores, and a copy', async () => {
      const e = await event();
      const written = { ...TRACE, inProgress: undefined, evidenceError: undefined, rounds: TRACE.rounds!.map((r) => ({ ...r, retrieved: [...r.retrieved], judged: [...r.judged] })) };
      await repos.feedback.update(e.id, { trace: written, verificationDetails: { method: 'residual-support', stillSupporting: [], undetermined: ['u'], quarantinedByTrace: 0, error: undefined } });
      // The caller's objects are not the stored ones.
      written.rounds[0].judged.push('mutated');
      const got = (await repos.feedback.get(e.id))!;
      expect(Object.keys(got.trace!)).not.toContain('inProgress');
      expect(Object.keys(got.trace!)).not.toContain('evidenceError');
      expect(got.verificationDetails).toStrictEqual({ method: 'residual-support', stillSupporting: [], undetermined: ['u'], quarantinedByTrace: 0 });
      expect(got.trace!.rounds![0].judged).toEqual(['a']);
      // Neither are the returned ones.
      got.trace!.rounds![1].retrieved.push('mutated');
      got.servedIds.push('mutated');
      const again = (await repos.feedback.get(e.id))!;
      expect(again.trace!.rounds![1].retrieved).toEqual(['b', 'c']);
      expect(again.servedIds).toEqual([]);
    });

    it('JSON columns hold JSON: non-finite numbers are stored as null', async () => {
      const [d] = await docs(1);
      const e = await event();
      await repos.verdicts.save(verdict(e.id, d.id, { signals: { inf: Number.POSITIVE_INFINITY, nan: Number.NaN, ok: 1 } }));
      expect((await repos.verdicts.list(e.id))[0].signals).toStrictEqual({ inf: null, nan: null, ok: 1 });
    });

    it('listRecent: one collection, the trust levels asked, newest first, paged with `before`', async () => {
      const made: FeedbackRow[] = [];
      for (const trust of ['identified', 'anonymous', 'reviewer', 'identified', 'identified']) { made.push(await event({ trust })); await sleep(5); }
      await repos.feedback.create({ collection: `${collection}-other`, query: 'q?', wrongAnswer: 'w', k: 3, trust: 'identified' });
      const trusted = made.filter((e) => e.trust !== 'anonymous').reverse().map((e) => e.id);
      expect((await repos.feedback.listRecent(collection, { trust: ['identified', 'reviewer'], limit: 100 })).map((r) => r.id)).toEqual(trusted);
      expect((await repos.feedback.listRecent(collection, { trust: ['anonymous'], limit: 100 })).map((r) => r.id)).toEqual([made[1].id]);
      expect(await repos.feedback.listRecent(collection, { trust: [], limit: 100 })).toEqual([]);
      const paged: string[] = [];
      let before: { createdAt: Date; id: string } | undefined;
      for (let page = await repos.feedback.listRecent(collection, { trust: ['identified', 'reviewer'], limit: 3 }); page.length; page = await repos.feedback.listRecent(collection, { trust: ['identified', 'reviewer'], limit: 3, before })) {
        paged.push(...page.map((r) => r.id));
        before = { createdAt: page[page.length - 1].createdAt, id: page[page.length - 1].id };
      }
      expect(paged).toEqual(trusted);
    });

    it('listStale: in the statuses, last updated before the time, oldest update first, limited', async () => {
      const a = await event();
      await sleep(5);
      const b = await event();
      await sleep(5);
      const c = await event();
      await repos.feedback.transition(c.id, { from: ['RECEIVED'], to: 'QUEUED' });
      const cut = new Date(Date.now() + 1000);
      expect(mine(await repos.feedback.listStale(['RECEIVED'], cut, 10_000))).toEqual([a.id, b.id]);
      expect(mine(await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 10_000))).toEqual([a.id, b.id, c.id]);
      expect(mine(await repos.feedback.listStale(['TRACING'], cut, 10_000))).toEqual([]);
      expect(mine(await repos.feedback.listStale(['RECEIVED'], a.createdAt, 10_000))).toEqual([]);
      expect(mine(await repos.feedback.listStale(['RECEIVED'], new Date(b.updatedAt.getTime()), 10_000))).toEqual([a.id]);
      // The last update counts, not the creation: touching `a` moves it behind `b` (and out of an earlier cut).
      await sleep(5);
      await repos.feedback.update(a.id, { failureReason: 'touched' });
      expect(mine(await repos.feedback.listStale(['RECEIVED'], cut, 10_000))).toEqual([b.id, a.id]);
      expect(mine(await repos.feedback.listStale(['RECEIVED'], new Date(c.updatedAt.getTime() + 1), 10_000))).toEqual([b.id]);
      // Oldest first over the whole table, and the limit takes a prefix of that order.
      const all = await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 10_000);
      expect(isOrdered(all, (r) => r.updatedAt)).toBe(true);
      expect(all.every((r) => (r.status === 'RECEIVED' || r.status === 'QUEUED') && r.updatedAt < cut)).toBe(true);
      expect((await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 2)).map((r) => r.id)).toEqual(all.slice(0, 2).map((r) => r.id));
      expect(await repos.feedback.listStale(['RECEIVED'], cut, 0)).toEqual([]);
      // Paging with `after` (the previous page's last row) walks the same order, nothing twice or skipped.
      const paged: string[] = [];
      let after: { updatedAt: Date; id: string } | undefined;
      for (let page = await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 2); page.length; page = await repos.feedback.listStale(['RECEIVED', 'QUEUED'], cut, 2, after)) {
        paged.push(...page.map((r) => r.id));
        after = { updatedAt: page[page.length - 1].updatedAt, id: page[page.length - 1].id };
      }
      expect(paged).toEqual(all.map((r) => r.id));
    });
  });

  describe('verdicts', () => {
    it('save upserts on (event, document): overwrites, keeps id and createdAt, never duplicates; list orders by round; JSON round-trips', async () => {
      const [d1, d2, d3] = await docs(3);
      const e = await event();
      await repos.verdicts.save(verdict(e.id, d1.id, { round: 2 }));
      await sleep(5);
      await repos.verdicts.save(verdict(e.id, d2.id, { round: 1, evidence: CANDIDATE_EVIDENCE, signals: { p: 0.25, tokens: [1, 2, 3], note: null }, spans: [{ start: 3, end: 17 }, { start: 20, end: 41 }] }));
      await sleep(5);
      await repos.verdicts.save(verdict(e.id, d3.id, { round: 2, evidence: { error: 'boom' } }));
      const [first] = (await repos.verdicts.list(e.id)).filter((v) => v.documentId === d1.id);
      await sleep(5);
      await repos.verdicts.save(verdict(e.id, d1.id, { round: 2, label: 'NO', reply: 'again', attempts: 2, cached: true, signals: null, retrievalRank: null, retrievalScore: null }));
      const list = await repos.verdicts.list(e.id);
      expect(list.map((v) => [v.documentId, v.label])).toEqual([[d2.id, 'YES'], [d1.id, 'NO'], [d3.id, 'YES']]);
      expect(list[1]).toEqual({ ...verdict(e.id, d1.id, { round: 2, label: 'NO', reply: 'again', attempts: 2, cached: true, signals: null, retrievalRank: null, retrievalScore: null }), id: first.id, createdAt: first.createdAt });
      expect(list[0]).toMatchObject({ signals: { p: 0.25, tokens: [1, 2, 3], note: null }, retrievalRank: 1, retrievalScore: 0.5 });
      expect(list[0].evidence).toEqual(CANDIDATE_EVIDENCE);
      expect(list[0].spans).toEqual([{ start: 3, end: 17 }, { start: 20, end: 41 }]); // claim spans (issue 35) round-trip
      expect(list[2].evidence).toEqual({ error: 'boom' });
      expect(await repos.verdicts.list(randomUUID())).toEqual([]);
      expect(await repos.verdicts.list('nope')).toEqual([]);
    });

    it('save refuses a verdict on an unknown event or document', async () => {
      const [d] = await docs(1);
      const e = await event();
      await expect(repos.verdicts.save(verdict(randomUUID(), d.id))).rejects.toThrow();
      await expect(repos.verdicts.save(verdict(e.id, randomUUID()))).rejects.toThrow();
      expect(await repos.verdicts.list(e.id)).toEqual([]);
    });

    it('findByCacheKey: the most recent labelled, non-cached verdict from any event', async () => {
      const [d1, d2, d3] = await docs(3);
      const e1 = await event();
      const e2 = await event();
      const key = `${collection}-cache`;
      expect(await repos.verdicts.findByCacheKey(key)).toBeNull();
      await repos.verdicts.save(verdict(e2.id, d2.id, { cacheKey: key, label: 'UNDETERMINED', reply: 'undetermined' }));
      await repos.verdicts.save(verdict(e1.id, d3.id, { cacheKey: key, label: 'NO', cached: true, reply: 'cached copy' }));
      expect(await repos.verdicts.findByCacheKey(key)).toBeNull();
      await sleep(5);
      await repos.verdicts.save(verdict(e1.id, d1.id, { cacheKey: key, label: 'NO', reply: 'first' }));
      expect((await repos.verdicts.findByCacheKey(key))!.reply).toBe('first');
      await sleep(5);
      await repos.verdicts.save(verdict(e2.id, d1.id, { cacheKey: key, label: 'YES', reply: 'second', signals: { s: 2 } }));
      await sleep(5);
      await repos.verdicts.save(verdict(e2.id, d3.id, { cacheKey: key, label: 'NO', cached: true, reply: 'later cached copy' }));
      const hit = (await repos.verdicts.findByCacheKey(key))!;
      expect(hit).toMatchObject({ feedbackId: e2.id, documentId: d1.id, label: 'YES', reply: 'second', signals: { s: 2 }, cached: false });
      expect(await repos.verdicts.findByCacheKey(`${key}-other`)).toBeNull();
    });
  });

  describe('quarantines', () => {
    const newQ = (documentId: string, feedbackId: string | null, over: Partial<NewQuarantine> = {}): NewQuarantine => ({
      documentId, feedbackId, collection, reason: 'judge said yes', evidence: EVIDENCE, policy: 'judge-only', createdBy: 'worker', ...over,
    });

    it('create: one active record per document, document status, audit entry, evidence round-trips', async () => {
      const [d, other] = await docs(2);
      const e = await event();
      const first = await repos.quarantines.create(newQ(d.id, e.id));
      expect(first.created).toBe(true);
      expect(first.record).toMatchObject({ documentId: d.id, collection, reason: 'judge said yes', policy: 'judge-only', state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, createdBy: 'worker', feedbackId: e.id, resolvedBy: null, resolvedAt: null, note: null });
      expect(first.record.evidence).toEqual(EVIDENCE);
      expect(await repos.quarantines.get(first.record.id)).toEqual(first.record);
      const second = await repos.quarantines.create(newQ(d.id, null, { state: 'NEEDS_REVIEW' }));
      expect(second).toEqual({ record: first.record, created: false });
      expect((await repos.documents.get([d.id]))[0].status).toBe('QUARANTINED');
      expect((await repos.documents.get([other.id]))[0].status).toBe('ACTIVE');
      const audit = await repos.audit.listFor('QuarantineRecord', first.record.id);
      expect(audit.map((a) => [a.action, a.actor, a.details])).toEqual([['quarantine.created', 'worker', { documentId: d.id, feedbackId: e.id, policy: 'judge-only', servedDuringReview: false }]]);
    });

    it('create refuses an unknown document (NotFoundError, nothing written) and an unknown event', async () => {
      const [d] = await docs(1);
      await expect(repos.quarantines.create(newQ(randomUUID(), null))).rejects.toBeInstanceOf(NotFoundError);
      await expect(repos.quarantines.create(newQ('not-a-uuid', null))).rejects.toBeInstanceOf(NotFoundError);
      await expect(repos.quarantines.create(newQ(d.id, randomUUID()))).rejects.toThrow();
      expect(await repos.quarantines.list({ collection })).toEqual([]);
      expect((await repos.documents.get([d.id]))[0].status).toBe('ACTIVE');
    });

    it('concurrent creates for one document make one record and one audit entry', async () => {
      const [d] = await docs(1);
      const all = await Promise.all(Array.from({ length: 10 }, () => repos.quarantines.create(newQ(d.id, null))));
      expect(new Set(all.map((r) => r.record.id)).size).toBe(1);
      expect(all.filter((r) => r.created)).toHaveLength(1);
      expect(await repos.quarantines.list({ collection })).toHaveLength(1);
      expect(await repos.audit.listFor('QuarantineRecord', all[0].record.id)).toHaveLength(1);
    });

    it('NEEDS_REVIEW: served during review leaves the document ACTIVE, otherwise withheld; approve → QUARANTINED once', async () => {
      const [d, withheld, q] = await docs(3);
      const { record } = await repos.quarantines.create(newQ(d.id, null, { state: 'NEEDS_REVIEW', servedDuringReview: true }));
      expect(record).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: true });
      expect((await repos.documents.get([d.id]))[0].status).toBe('ACTIVE');
      const w = (await repos.quarantines.create(newQ(withheld.id, null, { state: 'NEEDS_REVIEW' }))).record;
      expect(w).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: false });
      expect((await repos.documents.get([withheld.id]))[0].status).toBe('QUARANTINED');
      // servedDuringReview means nothing for a QUARANTINED record.
      expect((await repos.quarantines.create(newQ(q.id, null, { servedDuringReview: true }))).record.servedDuringReview).toBe(false);

      await repos.quarantines.markSynced(record.id);
      const approved = await repos.quarantines.approve(record.id, 'alice', 'looks poisoned');
      expect(approved).toMatchObject({ state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, resolvedBy: 'alice', note: 'looks poisoned' });
      expect(approved.resolvedAt).toBeInstanceOf(Date);
      expect(await repos.quarantines.get(record.id)).toEqual(approved);
      expect((await repos.documents.get([d.id]))[0].status).toBe('QUARANTINED');
      expect(await repos.quarantines.approve(record.id, 'bob')).toEqual(approved);
      expect((await repos.audit.listFor('QuarantineRecord', record.id)).map((a) => [a.action, a.actor, a.details])).toEqual([
        ['review.requested', 'worker', { documentId: d.id, feedbackId: null, policy: 'judge-only', servedDuringReview: true }],
        ['review.approved', 'alice', { documentId: d.id, note: 'looks poisoned' }],
      ]);
      await expect(repos.quarantines.approve(randomUUID(), 'x')).rejects.toBeInstanceOf(NotFoundError);
      await expect(repos.quarantines.approve('nope', 'x')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('restore: RESTORED unsynced, document ACTIVE, audited; from NEEDS_REVIEW too; a second restore is a no-op; unknown → NotFoundError', async () => {
      const [d, r] = await docs(2);
      const { record } = await repos.quarantines.create(newQ(d.id, null));
      await repos.quarantines.markSynced(record.id);
      expect((await repos.quarantines.get(record.id))!.storeSynced).toBe(true);
      const restored = await repos.quarantines.restore(record.id, 'bob', 'false positive');
      expect(restored).toMatchObject({ state: 'RESTORED', storeSynced: false, resolvedBy: 'bob', note: 'false positive' });
      expect(restored.resolvedAt).toBeInstanceOf(Date);
      expect((await repos.documents.get([d.id]))[0].status).toBe('ACTIVE');
      expect(await repos.quarantines.restore(record.id, 'carol')).toEqual(restored);
      expect(await repos.quarantines.approve(record.id, 'carol')).toEqual(restored);
      expect((await repos.audit.listFor('QuarantineRecord', record.id)).map((a) => [a.action, a.actor, a.details])).toEqual([
        ['quarantine.created', 'worker', { documentId: d.id, feedbackId: null, policy: 'judge-only', servedDuringReview: false }],
        ['quarantine.restored', 'bob', { documentId: d.id, note: 'false positive' }],
      ]);
      await expect(repos.quarantines.restore(randomUUID(), 'x')).rejects.toBeInstanceOf(NotFoundError);
      await expect(repos.quarantines.restore('nope', 'x')).rejects.toBeInstanceOf(NotFoundError);
      // A restored text may be quarantined again (it is no longer active).
      expect((await repos.quarantines.create(newQ(d.id, null))).created).toBe(true);
      expect((await repos.documents.get([d.id]))[0].status).toBe('QUARANTINED');

      const review = (await repos.quarantines.create(newQ(r.id, null, { state: 'NEEDS_REVIEW' }))).record;
      expect(await repos.quarantines.restore(review.id, 'dave')).toMatchObject({ state: 'RESTORED', resolvedBy: 'dave', note: null });
      expect((await repos.documents.get([r.id]))[0].status).toBe('ACTIVE');
    });

    it('concurrent restores of one record: one applies and is audited', async () => {
      const [d] = await docs(1);
      const { record } = await repos.quarantines.create(newQ(d.id, null));
      const all = await Promise.all(Array.from({ length: 6 }, (_, i) => repos.quarantines.restore(record.id, `reviewer ${i}`)));
      expect(all.every((r) => r.state === 'RESTORED')).toBe(true);
      const audit = await repos.audit.listFor('QuarantineRecord', record.id);
      expect(audit.map((a) => a.action)).toEqual(['quarantine.created', 'quarantine.restored']);
      expect((await repos.quarantines.get(record.id))!.resolvedBy).toBe(audit[1].actor);
    });

    it('markSynced; list filters by event, state, collection, unsynced; oldest first; limit; unknown ids', async () => {
      const [d1, d2, d3] = await docs(3);
      const e = await event();
      const a = (await repos.quarantines.create(newQ(d1.id, e.id))).record;
      await sleep(5);
      const b = (await repos.quarantines.create(newQ(d2.id, e.id, { state: 'NEEDS_REVIEW' }))).record;
      await sleep(5);
      const c = (await repos.quarantines.create(newQ(d3.id, null))).record;
      await repos.quarantines.markSynced(a.id);
      expect((await repos.quarantines.get(a.id))!.storeSynced).toBe(true);
      expect((await repos.quarantines.get(b.id))!.storeSynced).toBe(false);
      await expect(repos.quarantines.markSynced(randomUUID())).resolves.toBeUndefined();
      await expect(repos.quarantines.markSynced('nope')).resolves.toBeUndefined();
      const ids = async (f: Parameters<Repositories['quarantines']['list']>[0]) => (await repos.quarantines.list({ collection, ...f })).map((r) => r.id);
      expect(await ids({})).toEqual([a.id, b.id, c.id]);
      expect(await ids({ feedbackId: e.id })).toEqual([a.id, b.id]);
      expect(await ids({ state: 'NEEDS_REVIEW' })).toEqual([b.id]);
      expect(await ids({ state: 'QUARANTINED', unsynced: true })).toEqual([c.id]);
      expect(await ids({ unsynced: true })).toEqual([b.id, c.id]);
      expect(await ids({ limit: 2 })).toEqual([a.id, b.id]);
      expect(await ids({ collection: `${collection}-none` })).toEqual([]);
      expect((await repos.quarantines.list({ feedbackId: e.id })).map((r) => r.id)).toEqual([a.id, b.id]);
      expect(await repos.quarantines.list({ feedbackId: randomUUID() })).toEqual([]);
      expect(await repos.quarantines.list({ feedbackId: 'nope' })).toEqual([]);
      expect(await repos.quarantines.get(randomUUID())).toBeNull();
      expect(await repos.quarantines.get('nope')).toBeNull();
    });
  });

  describe('answers, enhancements, audit log, health', () => {
    it('answers round-trip (served ids and scores in order); unknown ids are null; rows are copies', async () => {
      const a = await repos.answers.create({ collection, query: 'q', answer: 'a', servedIds: ['y', 'x'], servedScores: [0.9, 0.8], source: 'builtin', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', embedder: 'e' });
      expect(a).toMatchObject({ collection, query: 'q', answer: 'a', servedIds: ['y', 'x'], servedScores: [0.9, 0.8], source: 'builtin', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', embedder: 'e' });
      expect(a.createdAt).toBeInstanceOf(Date);
      const got = (await repos.answers.get(a.id))!;
      expect(got).toEqual(a);
      got.servedIds.push('mutated');
      expect((await repos.answers.get(a.id))!.servedIds).toEqual(['y', 'x']);
      expect(await answer()).toMatchObject({ source: 'external', generatorKind: null, servedIds: [] });
      expect(await repos.answers.get(randomUUID())).toBeNull();
      expect(await repos.answers.get('nope')).toBeNull();
    });

    it('answers that served any of some texts, in this collection only, newest first, limited', async () => {
      const mk = (servedIds: string[], coll = collection) => repos.answers.create({ collection: coll, query: 'q', answer: 'a', servedIds, servedScores: servedIds.map(() => 0.5), source: 'external', generatorKind: null, generatorModel: null, promptVersion: null, embedder: null });
      const [t1, t2, t3] = [randomUUID(), randomUUID(), randomUUID()];
      const a1 = await mk([t1, t3]);
      await new Promise((r) => setTimeout(r, 5));
      const a2 = await mk([t2]);
      await new Promise((r) => setTimeout(r, 5));
      const a3 = await mk([t3]);
      await mk([t1], `${collection}-other`);
      expect((await repos.answers.listServing(collection, [t1, t2], 10)).map((a) => a.id)).toEqual([a2.id, a1.id]);
      expect((await repos.answers.listServing(collection, [t3], 10)).map((a) => a.id)).toEqual([a3.id, a1.id]);
      expect((await repos.answers.listServing(collection, [t3], 1)).map((a) => a.id)).toEqual([a3.id]);
      expect(await repos.answers.listServing(collection, [], 10)).toEqual([]);
      expect(await repos.answers.listServing(collection, [randomUUID()], 10)).toEqual([]);
    });

    it('enhancements: create audited, list filters in creation order, active by proxy, markDeleted audited once', async () => {
      const e = await event();
      const e2 = await event();
      const [proxyA, proxyB, proxyC] = [randomUUID(), randomUUID(), randomUUID()];
      const base = { collection, feedbackId: e.id, query: 'q', correctAnswer: 'c', benignText: '[LATEST] c [/LATEST]', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', createdBy: 'w' };
      const a = await repos.enhancements.create({ ...base, proxyId: proxyA });
      await sleep(5);
      const b = await repos.enhancements.create({ ...base, proxyId: proxyB });
      await sleep(5);
      const c = await repos.enhancements.create({ ...base, feedbackId: e2.id, proxyId: proxyC });
      expect(a).toMatchObject({ ...base, proxyId: proxyA, state: 'ACTIVE', deletedAt: null, deletedBy: null });
      expect(await repos.enhancements.get(a.id)).toEqual(a);
      expect((await repos.enhancements.list({ feedbackId: e.id })).map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await repos.enhancements.list({ collection })).map((x) => x.id)).toEqual([a.id, b.id, c.id]);
      const deleted = await repos.enhancements.markDeleted(b.id, 'admin');
      expect(deleted).toMatchObject({ ...base, id: b.id, state: 'DELETED', deletedBy: 'admin' });
      expect(deleted.deletedAt).toBeInstanceOf(Date);
      expect(await repos.enhancements.get(b.id)).toEqual(deleted);
      expect(await repos.enhancements.markDeleted(b.id, 'someone else')).toEqual(deleted);
      expect((await repos.enhancements.list({ collection, state: 'ACTIVE' })).map((x) => x.id)).toEqual([a.id, c.id]);
      expect((await repos.enhancements.list({ collection, state: 'DELETED' })).map((x) => x.id)).toEqual([b.id]);
      expect((await repos.enhancements.list({ feedbackId: e.id, state: 'ACTIVE' })).map((x) => x.id)).toEqual([a.id]);
      expect(await repos.enhancements.list({ feedbackId: 'nope' })).toEqual([]);
      expect((await repos.enhancements.findActiveByProxyIds([proxyA, proxyB, 'nope'])).map((x) => x.id)).toEqual([a.id]);
      expect(await repos.enhancements.findActiveByProxyIds([])).toEqual([]);
      expect((await repos.audit.listFor('Enhancement', b.id)).map((x) => [x.action, x.actor, x.details])).toEqual([
        ['enhancement.created', 'w', { feedbackId: e.id, proxyId: proxyB }], ['enhancement.deleted', 'admin', { proxyId: proxyB }],
      ]);
      expect(await repos.enhancements.get(randomUUID())).toBeNull();
      expect(await repos.enhancements.get('nope')).toBeNull();
      await expect(repos.enhancements.markDeleted(randomUUID(), 'admin')).rejects.toBeInstanceOf(NotFoundError);
      await expect(repos.enhancements.markDeleted('nope', 'admin')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('enhancements: the proxy id is unique and the event must exist', async () => {
      const e = await event();
      const proxyId = randomUUID();
      const base = { collection, feedbackId: e.id, query: 'q', correctAnswer: 'c', benignText: 'b', generatorKind: 'offline', generatorModel: 'm', promptVersion: 'p', createdBy: 'w' };
      await repos.enhancements.create({ ...base, proxyId });
      await expect(repos.enhancements.create({ ...base, proxyId })).rejects.toThrow();
      await expect(repos.enhancements.create({ ...base, feedbackId: randomUUID(), proxyId: randomUUID() })).rejects.toThrow();
      expect(await repos.enhancements.list({ collection })).toHaveLength(1);
    });

    it('audit log: append and list per entity in order, details round-trip', async () => {
      const id = uniqueName('entity');
      await repos.audit.append({ actor: 'a', action: 'one', entityType: 'Thing', entityId: id, details: { n: 1, list: ['x'], deep: { y: [null, true] } } });
      await repos.audit.append({ actor: 'b', action: 'two', entityType: 'Thing', entityId: id });
      await repos.audit.append({ actor: 'c', action: 'other', entityType: 'Thing', entityId: `${id}-x` });
      await repos.audit.append({ actor: 'd', action: 'other type', entityType: 'Other', entityId: id });
      await repos.audit.append({ actor: 'e', action: 'three', entityType: 'Thing', entityId: id, details: {} });
      const rows = await repos.audit.listFor('Thing', id);
      expect(rows.map((r) => [r.actor, r.action, r.entityType, r.entityId, r.details])).toEqual([
        ['a', 'one', 'Thing', id, { n: 1, list: ['x'], deep: { y: [null, true] } }], ['b', 'two', 'Thing', id, undefined], ['e', 'three', 'Thing', id, {}],
      ]);
      expect(rows.every((r) => r.at instanceof Date)).toBe(true);
      expect(rows[0].at.getTime()).toBeLessThanOrEqual(rows[2].at.getTime());
      expect(await repos.audit.listFor('Thing', uniqueName('none'))).toEqual([]);
    });

    it('health ping answers', async () => {
      await expect(repos.health.ping()).resolves.toBeUndefined();
    });
  });

  describe('users, API keys, sessions (issue 11)', () => {
    const user = (role: 'admin' | 'reviewer' | 'viewer' = 'reviewer') => repos.users.create({ name: uniqueName(`${collection}-u`), role, createdBy: 'tester' });
    const key = (userId: string | null, over: Record<string, unknown> = {}) => repos.apiKeys.create({
      userId, name: uniqueName('k'), scopes: userId ? [] : ['ingest', 'feedback'], prefix: `rfk_${uniqueName('p').slice(2)}`, hash: 'a'.repeat(64), createdBy: 'tester', ...over,
    });

    it('users: unique name (409), get / findByName / list, disable once (audited), unknown ids', async () => {
      const u = await user('viewer');
      expect(u).toMatchObject({ role: 'viewer', createdBy: 'tester', disabledAt: null, disabledBy: null });
      await expect(repos.users.create({ name: u.name, role: 'admin', createdBy: 'x' })).rejects.toBeInstanceOf(ConflictError);
      expect(await repos.users.get(u.id)).toEqual(u);
      expect(await repos.users.findByName(u.name)).toEqual(u);
      expect(await repos.users.get('not-a-uuid')).toBeNull();
      expect(await repos.users.findByName(uniqueName('none'))).toBeNull();
      // Oldest first (ties broken by id): the second user is created a clock tick later, else their
      // order would be the ids' (random) order — on a fast machine both land in one millisecond.
      await new Promise((r) => setTimeout(r, 5));
      const v = await user();
      const listed = (await repos.users.list()).filter((x) => x.id === u.id || x.id === v.id);
      expect(listed.map((x) => x.id)).toEqual([u.id, v.id]);
      const d = await repos.users.disable(u.id, 'admin-x');
      expect(d.disabledAt).toBeInstanceOf(Date);
      expect(d.disabledBy).toBe('admin-x');
      expect(await repos.users.disable(u.id, 'admin-y')).toEqual(d);
      expect((await repos.audit.listFor('User', u.id)).map((a) => [a.action, a.actor])).toEqual([['user.created', 'tester'], ['user.disabled', 'admin-x']]);
      await expect(repos.users.disable(randomUUID(), 'a')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('api keys: unique prefix (409), unknown user, findByPrefix, list filters, revoke once (audited), touch at most once per interval', async () => {
      const u = await user();
      const k = await key(u.id);
      expect(k).toMatchObject({ userId: u.id, scopes: [], lastUsedAt: null, revokedAt: null, revokedBy: null });
      await expect(key(u.id, { prefix: k.prefix })).rejects.toBeInstanceOf(ConflictError);
      await expect(key(randomUUID())).rejects.toBeInstanceOf(NotFoundError);
      const svc = await key(null);
      expect(svc.scopes).toEqual(['ingest', 'feedback']);
      expect(await repos.apiKeys.findByPrefix(k.prefix)).toEqual(k);
      expect(await repos.apiKeys.get(svc.id)).toEqual(svc);
      expect(await repos.apiKeys.get('nope')).toBeNull();
      expect(await repos.apiKeys.findByPrefix('rfk_none')).toBeNull();
      expect((await repos.apiKeys.list({ userId: u.id })).map((x) => x.id)).toEqual([k.id]);
      const r = await repos.apiKeys.revoke(k.id, 'admin-x');
      expect(r.revokedAt).toBeInstanceOf(Date);
      expect(await repos.apiKeys.revoke(k.id, 'admin-y')).toEqual(r);
      expect(await repos.apiKeys.list({ userId: u.id })).toEqual([]);
      expect((await repos.apiKeys.list({ userId: u.id, includeRevoked: true })).map((x) => x.id)).toEqual([k.id]);
      expect((await repos.audit.listFor('ApiKey', k.id)).map((a) => [a.action, a.actor, a.details?.prefix])).toEqual([['key.created', 'tester', k.prefix], ['key.revoked', 'admin-x', k.prefix]]);
      await expect(repos.apiKeys.revoke(randomUUID(), 'a')).rejects.toBeInstanceOf(NotFoundError);
      // Collections (issue 56, item 7b): stored and read back; none given = [] (every collection); key.created records them (null = every one).
      expect(svc.collections).toEqual([]);
      const limited = await key(null, { collections: ['kb', 'kb-archive'] });
      expect(limited.collections).toEqual(['kb', 'kb-archive']);
      expect(await repos.apiKeys.findByPrefix(limited.prefix)).toEqual(limited);
      expect((await repos.audit.listFor('ApiKey', limited.id)).map((a) => a.details?.collections)).toEqual([['kb', 'kb-archive']]);
      expect((await repos.audit.listFor('ApiKey', svc.id)).map((a) => a.details?.collections)).toEqual([null]);
      const t0 = new Date(Math.floor(Date.now() / 1000) * 1000);
      expect(await repos.apiKeys.touch(svc.id, t0, 60_000)).toBe(true);
      expect(await repos.apiKeys.touch(svc.id, new Date(t0.getTime() + 30_000), 60_000)).toBe(false);
      expect((await repos.apiKeys.get(svc.id))!.lastUsedAt).toEqual(t0);
      const t1 = new Date(t0.getTime() + 61_000);
      expect(await repos.apiKeys.touch(svc.id, t1, 60_000)).toBe(true);
      expect((await repos.apiKeys.get(svc.id))!.lastUsedAt).toEqual(t1);
      expect(await repos.apiKeys.touch('nope', t1, 0)).toBe(false);
    });

    it('sessions: create / get / touch / delete; expired ones swept; rows are copies', async () => {
      const u = await user();
      const now = Date.now();
      const base = { userId: u.id, keyId: randomUUID(), name: `user:${u.name}`, role: 'reviewer' as const, csrfSecret: 'c'.repeat(43), ip: '127.0.0.1', userAgent: null };
      const live = await repos.sessions.create({ ...base, id: uniqueName('s').padEnd(64, '0'), expiresAt: new Date(now + 3_600_000) });
      const dead = await repos.sessions.create({ ...base, id: uniqueName('s').padEnd(64, '1'), expiresAt: new Date(now - 1000), userId: null, keyId: 'env-12345678' });
      expect(live).toMatchObject({ ...base, expiresAt: new Date(now + 3_600_000) });
      expect(live.createdAt).toBeInstanceOf(Date);
      await expect(repos.sessions.create({ ...base, id: live.id, expiresAt: new Date(now) })).rejects.toBeInstanceOf(ConflictError);
      const got = (await repos.sessions.get(live.id))!;
      expect(got).toEqual(live);
      got.role = 'admin';
      expect((await repos.sessions.get(live.id))!.role).toBe('reviewer');
      const seen = new Date(now + 5000);
      await repos.sessions.touch(live.id, seen);
      expect((await repos.sessions.get(live.id))!.lastSeenAt).toEqual(seen);
      expect(await repos.sessions.deleteExpired(new Date(now))).toBeGreaterThanOrEqual(1);
      expect(await repos.sessions.get(dead.id)).toBeNull();
      expect(await repos.sessions.get(live.id)).not.toBeNull();
      expect(await repos.sessions.delete(live.id)).toBe(true);
      expect(await repos.sessions.delete(live.id)).toBe(false);
      expect(await repos.sessions.get(live.id)).toBeNull();
    });
  });
});

/** Webhooks (issue 14): the Prisma repository (secret sealed at rest) and the in-memory fake, one contract. */
const webhookImplementations: [string, () => Promise<WebhookRepository>][] = [
  ['prisma (real Postgres)', async () => {
    await implementations[0][1]();
    return new PrismaWebhookRepository(prisma!, new SecretBox('contract-test-master-secret-0123456789'));
  }],
  ['in-memory fakes', async () => new InMemoryWebhookRepository()],
];

describe.each(webhookImplementations)('webhook repository contract: %s', (_name, make) => {
  let repo: WebhookRepository;
  beforeEach(async () => { repo = await make(); });

  const endpoint = (events: DomainEventType[] = ['quarantine.created']) => repo.createEndpoint({ url: `https://example.com/${uniqueName('h')}`, events, description: 'd', secret: `whsec_${uniqueName('s')}`, createdBy: 'admin' });
  const payload = (type: DomainEventType = 'quarantine.created'): WebhookPayload => ({ id: randomUUID(), type, createdAt: new Date().toISOString(), data: { quarantineId: randomUUID(), n: 1 } });
  const deliver = async (endpointId: string) => (await repo.createDeliveries([{ id: randomUUID(), endpointId, payload: payload() }]))[0];
  const fail = (disableAfter: number, statusCode = 500) => ({ outcome: 'failed' as const, statusCode, error: `HTTP ${statusCode}`, durationMs: 12.4, disableAfter });

  it('stores endpoints without exposing the secret; getSecret / setSecret; unknown and non-uuid ids are absent', async () => {
    const e = await endpoint(['quarantine.created', 'review.needed']);
    expect(e).toEqual(expect.objectContaining({ events: ['quarantine.created', 'review.needed'], description: 'd', active: true, disabledReason: null, consecutiveFailures: 0, createdBy: 'admin' }));
    expect(Object.keys(e)).not.toContain('secret');
    expect(await repo.getEndpoint(e.id)).toEqual(e);
    expect((await repo.listEndpoints()).map((x) => x.id)).toContain(e.id);
    const secret = (await repo.getSecret(e.id))!;
    expect(secret).toMatch(/^whsec_/);
    await repo.setSecret(e.id, 'whsec_new', 'admin');
    expect(await repo.getSecret(e.id)).toBe('whsec_new');
    expect(await repo.getEndpoint(randomUUID())).toBeNull();
    expect(await repo.getEndpoint('nope')).toBeNull();
    expect(await repo.getSecret('nope')).toBeNull();
    await expect(repo.setSecret(randomUUID(), 'x', 'a')).rejects.toBeInstanceOf(NotFoundError);
    await expect(repo.updateEndpoint(randomUUID(), { active: false }, 'a')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('subscribedTo lists only active endpoints with the type; a disabled one by an admin says who', async () => {
    const a = await endpoint(['feedback.failed']);
    const b = await endpoint(['feedback.failed', 'enhancement.created']);
    const ids = async (t: DomainEventType) => (await repo.subscribedTo(t)).map((x) => x.id).filter((id) => id === a.id || id === b.id);
    expect((await ids('feedback.failed')).sort()).toEqual([a.id, b.id].sort());
    expect(await ids('enhancement.created')).toEqual([b.id]);
    const off = await repo.updateEndpoint(a.id, { active: false, description: null }, 'user:alice');
    expect(off).toEqual(expect.objectContaining({ active: false, disabledReason: 'disabled by user:alice', description: null }));
    expect(off.disabledAt).toBeInstanceOf(Date);
    expect(await ids('feedback.failed')).toEqual([b.id]);
  });

  it('deliveries: PENDING with the payload; an attempt changes only a PENDING delivery; retried keeps it PENDING with nextAttemptAt', async () => {
    const e = await endpoint();
    const p = payload();
    const [d] = await repo.createDeliveries([{ id: randomUUID(), endpointId: e.id, payload: p }]);
    expect(d).toEqual(expect.objectContaining({ endpointId: e.id, eventId: p.id, eventType: 'quarantine.created', payload: p, status: 'PENDING', attempts: 0, lastStatusCode: null, deliveredAt: null }));
    expect(await repo.getDelivery(d.id)).toEqual(d);
    await expect(repo.createDeliveries([{ id: randomUUID(), endpointId: randomUUID(), payload: p }])).rejects.toThrow();
    const next = new Date(Date.now() + 60_000);
    const r1 = await repo.recordAttempt(d.id, { outcome: 'retried', statusCode: null, error: 'timed out', durationMs: 3000, nextAttemptAt: next });
    expect(r1).toEqual(expect.objectContaining({ outcome: 'retried', delivery: expect.objectContaining({ status: 'PENDING', attempts: 1, lastError: 'timed out', lastStatusCode: null, nextAttemptAt: next }) }));
    const r2 = await repo.recordAttempt(d.id, { outcome: 'delivered', statusCode: 204, error: null, durationMs: 5 });
    expect(r2!.delivery).toEqual(expect.objectContaining({ status: 'DELIVERED', attempts: 2, lastStatusCode: 204, lastError: null, nextAttemptAt: null }));
    expect(r2!.delivery.deliveredAt).toBeInstanceOf(Date);
    expect(await repo.recordAttempt(d.id, { outcome: 'delivered', statusCode: 200, error: null, durationMs: 1 })).toBeNull();
    expect(await repo.recordAttempt(randomUUID(), { outcome: 'delivered', statusCode: 200, error: null, durationMs: 1 })).toBeNull();
    expect(await repo.markDead(d.id, 'x')).toBe(false);
    expect(await repo.requeueDelivery(d.id, 'admin')).toBeNull(); // DELIVERED: nothing to re-drive
    const page = await repo.listDeliveries(e.id, { limit: 10 });
    expect(page.items[0].attemptLog.map((a) => [a.attempt, a.outcome, a.statusCode, a.error])).toEqual([[1, 'retried', null, 'timed out'], [2, 'delivered', 204, null]]);
    expect(page.items[0].attemptLog.map((a) => a.durationMs)).toEqual([3000, 5]);
  });

  it('N consecutive failed deliveries disable the endpoint with a reason; a delivered one in between resets the count; re-enabling resets it', async () => {
    const e = await endpoint();
    const d1 = await deliver(e.id);
    expect((await repo.recordAttempt(d1.id, fail(2)))!).toEqual(expect.objectContaining({ outcome: 'failed', endpoint: expect.objectContaining({ active: true, consecutiveFailures: 1 }) }));
    const ok = await deliver(e.id);
    expect((await repo.recordAttempt(ok.id, { outcome: 'delivered', statusCode: 200, error: null, durationMs: 1 }))!.endpoint.consecutiveFailures).toBe(0);
    await repo.recordAttempt((await deliver(e.id)).id, fail(2));
    const last = await repo.recordAttempt((await deliver(e.id)).id, fail(2, 503));
    expect(last!.outcome).toBe('disabled');
    expect(last!.delivery.status).toBe('FAILED');
    expect(last!.endpoint).toEqual(expect.objectContaining({ active: false, consecutiveFailures: 2, disabledReason: 'disabled after 2 consecutive failed deliveries; last error: HTTP 503' }));
    expect((await repo.subscribedTo('quarantine.created')).map((x) => x.id)).not.toContain(e.id);
    const on = await repo.updateEndpoint(e.id, { active: true }, 'admin');
    expect(on).toEqual(expect.objectContaining({ active: true, consecutiveFailures: 0, disabledReason: null, disabledAt: null }));
  });

  it('markDead, listPending (oldest first, by age), the delivery log newest first with a cursor, delete cascades', async () => {
    const e = await endpoint();
    const ds = [];
    for (let i = 0; i < 3; i++) { ds.push(await deliver(e.id)); await sleep(5); }
    expect(await repo.markDead(ds[0].id, 'endpoint deleted')).toBe(true);
    expect(await repo.getDelivery(ds[0].id)).toEqual(expect.objectContaining({ status: 'DEAD', lastError: 'endpoint deleted' }));
    // Re-drive: DEAD / FAILED → PENDING (history kept), once.
    const dead = await repo.requeueDelivery(ds[0].id, 'admin');
    expect(dead).toEqual(expect.objectContaining({ id: ds[0].id, status: 'PENDING', nextAttemptAt: null }));
    expect(await repo.requeueDelivery(ds[0].id, 'admin')).toBeNull();
    expect(await repo.requeueDelivery(randomUUID(), 'admin')).toBeNull();
    expect(await repo.requeueDelivery('nope', 'admin')).toBeNull();
    expect(await repo.markDead(ds[0].id, 'endpoint deleted')).toBe(true);
    const pending = (await repo.listPending(new Date(Date.now() + 1000), 10_000)).filter((d) => d.endpointId === e.id).map((d) => d.id);
    expect(pending).toEqual([ds[1].id, ds[2].id]);
    expect((await repo.listPending(new Date(ds[0].createdAt.getTime()), 10_000)).filter((d) => d.endpointId === e.id)).toEqual([]);
    const p1 = await repo.listDeliveries(e.id, { limit: 2 });
    expect(p1.items.map((d) => d.id)).toEqual([ds[2].id, ds[1].id]);
    const p2 = await repo.listDeliveries(e.id, { limit: 2, cursor: p1.nextCursor! });
    expect([p2.items.map((d) => d.id), p2.nextCursor]).toEqual([[ds[0].id], null]);
    expect(await repo.deleteEndpoint(e.id, 'admin')).toBe(true);
    expect(await repo.getDelivery(ds[1].id)).toBeNull();
    expect(await repo.deleteEndpoint(e.id, 'admin')).toBe(false);
    expect(await repo.listDeliveries(e.id, { limit: 5 })).toEqual({ items: [], nextCursor: null });
  });
});

// ── Reporter activity (issue 13): corroboration and per-reporter caps, Prisma vs the in-memory fake ──
import type { ReporterActivityRepository } from '@forensics/core';
import { InMemoryReporterActivityRepository } from '@forensics/core/testing';
import { PrismaReporterActivityRepository } from '../libs/infra/src/prisma/repositories/prisma-reporter-activity.repository';

const activityImplementations: [string, () => Promise<{ repos: Repositories; activity: ReporterActivityRepository }>][] = [
  ['prisma (real Postgres)', async () => {
    const repos = await implementations[0][1]();
    return { repos, activity: new PrismaReporterActivityRepository(prisma!) };
  }],
  ['in-memory fakes', async () => {
    const repos = createInMemoryRepositories();
    return { repos, activity: new InMemoryReporterActivityRepository(repos.state) };
  }],
];

describe.each(activityImplementations)('reporter activity contract: %s', (_name, make) => {
  it('sameReport: events of the collection with the key, oldest first, with source and trust; limit; other keys and collections left out', async () => {
    const { repos, activity } = await make();
    const collection = uniqueName('activity');
    const key = uniqueName('rk');
    const create = async (over: Record<string, unknown>) => (await repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, reportKey: key, ...over })).event;
    const a = await create({ trust: 'anonymous', reporterSource: 'addr:a' });
    await sleep(5);
    const b = await create({ reporterSource: 'key:k/u' }); // trust unset: identified
    await create({ reportKey: `${key}-other`, reporterSource: 'addr:c' });
    await repos.feedback.create({ collection: `${collection}-x`, query: 'q', wrongAnswer: 'w', k: 3, reportKey: key });
    const rows = await activity.sameReport(collection, key, 10);
    expect(rows.map((r) => [r.eventId, r.source, r.trust])).toEqual([[a.id, 'addr:a', 'anonymous'], [b.id, 'key:k/u', 'identified']]);
    expect(rows[0].createdAt).toBeInstanceOf(Date);
    expect((await activity.sameReport(collection, key, 1)).map((r) => r.eventId)).toEqual([a.id]);
    expect(await activity.sameReport(collection, key, 0)).toEqual([]);
  });

  it('autoQuarantinesBySource: records since a time, of events of the source, whose policy decision was QUARANTINE', async () => {
    const { repos, activity } = await make();
    const collection = uniqueName('activity');
    const source = uniqueName('addr');
    const docs = Array.from({ length: 4 }, (_, i) => ({ id: randomUUID(), collection, externalId: `e${i}`, textHash: `${collection}-h${i}`, text: `t${i}`, metadata: null }));
    await repos.documents.insert(docs);
    const mineEv = (await repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, reporterSource: source })).event;
    const otherEv = (await repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 3, reporterSource: `${source}-other` })).event;
    const before = new Date(Date.now() - 60_000);
    const q = (documentId: string, feedbackId: string, decision: string) => repos.quarantines.create({
      documentId, feedbackId, collection, reason: 'r', policy: 'judge-only', createdBy: 'worker', state: decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW',
      evidence: { ...EVIDENCE, policy: { ...EVIDENCE.policy, decision } },
    });
    await q(docs[0].id, mineEv.id, 'QUARANTINE');
    await q(docs[1].id, mineEv.id, 'QUARANTINE');
    await q(docs[2].id, mineEv.id, 'NEEDS_REVIEW');
    await q(docs[3].id, otherEv.id, 'QUARANTINE');
    expect(await activity.autoQuarantinesBySource(source, before)).toBe(2);
    expect(await activity.autoQuarantinesBySource(`${source}-other`, before)).toBe(1);
    expect(await activity.autoQuarantinesBySource(source, new Date(Date.now() + 60_000))).toBe(0);
    expect(await activity.autoQuarantinesBySource(uniqueName('nobody'), before)).toBe(0);
  });
});

// ── Audit runs and findings (issue 12) ────────────────────────────────────────────────────────────
const auditImplementations: [string, () => Promise<AuditRunRepository>][] = [
  ['prisma (real Postgres)', async () => {
    await implementations[0]![1]();
    return new PrismaAuditRunRepository(prisma!);
  }],
  ['in-memory fake', async () => new InMemoryAuditRunRepository()],
];

describe.each(auditImplementations)('audit run repository contract: %s', (_name, make) => {
  let runs: AuditRunRepository;
  beforeEach(async () => { runs = await make(); });

  it('keeps the cluster scan\'s k-NN lists per collection: a replace replaces the whole graph, order of neighbours kept', async () => {
    const collection = uniqueName('scang');
    expect((await runs.loadScanGraph(collection)).size).toBe(0);
    await runs.replaceScanGraph(collection, ScanGraph.fromLists([['a', { ids: ['b', 'c'], scores: [0.9, 0.5] }], ['b', { ids: ['a'], scores: [0.9] }], ['c', { ids: ['a'], scores: [0.5] }]]));
    await runs.replaceScanGraph(`${collection}-other`, ScanGraph.fromLists([['a', { ids: ['z'], scores: [0.1], lsh: [4095, 0, 17] }]]));
    let g = await runs.loadScanGraph(collection);
    expect(g.get('a')).toEqual({ ids: ['b', 'c'], scores: [0.9, 0.5] });
    expect(g.get('b')).toEqual({ ids: ['a'], scores: [0.9] });
    expect(g.size).toBe(3);
    await runs.replaceScanGraph(collection, ScanGraph.fromLists([['a', { ids: ['c', 'b'], scores: [0.95, 0.9] }], ['c', { ids: ['a'], scores: [0.5] }]]));
    g = await runs.loadScanGraph(collection);
    expect([...g.entries()].map(([id]) => id).sort()).toEqual(['a', 'c']);
    expect(g.get('a')).toEqual({ ids: ['c', 'b'], scores: [0.95, 0.9] });
    expect((await runs.loadScanGraph(`${collection}-other`)).get('a')).toEqual({ ids: ['z'], scores: [0.1], lsh: [4095, 0, 17] });
  });

  it('creates QUEUED, runs, checkpoints (counts merged, cursor replaced), finishes', async () => {
    const collection = uniqueName('audc');
    const r = await runs.create({ kind: 'reconcile', collection, params: { pageSize: 5 }, trigger: 'api', startedBy: 'user:a key:k' });
    expect(r).toMatchObject({ kind: 'reconcile', collection, status: 'QUEUED', params: { pageSize: 5 }, progress: { done: 0, total: null }, cursor: null, counts: {}, findingsCount: 0, startedAt: null, cancelRequested: false });
    const running = await runs.markRunning(r.id);
    expect(running!.status).toBe('RUNNING');
    expect(running!.startedAt).toBeInstanceOf(Date);
    const startedAt = running!.startedAt!.getTime();
    expect((await runs.markRunning(r.id))!.startedAt!.getTime()).toBe(startedAt); // a retried job keeps the first start
    await runs.checkpoint(r.id, { cursor: { phase: 'store', after: 'x' }, counts: { a: 1, b: 2 }, progress: { done: 3, total: 10, phase: 'p' } });
    const cp = await runs.checkpoint(r.id, { counts: { b: 5 } });
    expect(cp).toMatchObject({ cursor: { phase: 'store', after: 'x' }, counts: { a: 1, b: 5 }, progress: { done: 3, total: 10, phase: 'p' } });
    const f = await runs.addFinding(r.id, { type: 'flag-extra', action: 'repaired', documentIds: ['d1'], detail: { n: 1 } });
    expect(f).toMatchObject({ runId: r.id, type: 'flag-extra', action: 'repaired', documentIds: ['d1'], quarantineIds: [], score: null, detail: { n: 1 } });
    const done = await runs.finish(r.id, 'SUCCEEDED');
    expect(done).toMatchObject({ status: 'SUCCEEDED', findingsCount: 1, error: null });
    expect(done.finishedAt).toBeInstanceOf(Date);
    expect(await runs.markRunning(r.id)).toBeNull(); // finished: a duplicate job does nothing
  });

  it('cancel: QUEUED at once, RUNNING by request; unknown ids are null', async () => {
    const c = uniqueName('audc');
    const q = await runs.create({ kind: 'cluster-scan', collection: c, params: {}, trigger: 'cli', startedBy: 'cli' });
    expect((await runs.cancel(q.id))!.status).toBe('CANCELLED');
    const r = await runs.create({ kind: 'reconcile', collection: c, params: {}, trigger: 'cli', startedBy: 'cli' });
    await runs.markRunning(r.id);
    expect(await runs.cancel(r.id)).toMatchObject({ status: 'RUNNING', cancelRequested: true });
    expect(await runs.cancel(randomUUID())).toBeNull();
    expect(await runs.get('not-a-uuid')).toBeNull();
  });

  it('lists newest first with keyset pages and filters; findings page oldest first', async () => {
    const c = uniqueName('audc');
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await runs.create({ kind: i % 2 ? 'cluster-scan' : 'reconcile', collection: c, params: { i }, trigger: 'api', startedBy: 'x' }));
      await new Promise((res) => setTimeout(res, 3));
    }
    const first = await runs.list({ collection: c, limit: 2 });
    expect(first.map((r) => r.params.i)).toEqual([4, 3]);
    const next = await runs.list({ collection: c, limit: 2, before: first[1]!.id });
    expect(next.map((r) => r.params.i)).toEqual([2, 1]);
    expect((await runs.list({ collection: c, kind: 'cluster-scan' })).map((r) => r.params.i)).toEqual([3, 1]);
    for (let i = 0; i < 3; i++) { await runs.addFinding(made[0]!.id, { type: 't', action: 'reported', documentIds: [], detail: { i } }); await new Promise((res) => setTimeout(res, 3)); }
    const page1 = await runs.listFindings(made[0]!.id, { limit: 2 });
    expect(page1.map((f) => f.detail.i)).toEqual([0, 1]);
    expect((await runs.listFindings(made[0]!.id, { limit: 2, after: page1[1]!.id })).map((f) => f.detail.i)).toEqual([2]);
    expect((await runs.listUnfinished(1000)).filter((r) => r.collection === c)).toHaveLength(5);
  });
});
