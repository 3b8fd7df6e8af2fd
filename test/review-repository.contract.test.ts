/**
 * The ReviewRepository contract (issue 11): the same cases against the Prisma adapter on real
 * Postgres and the in-memory fake (which shares the in-memory repositories' state), so use cases
 * proven on the fakes hold on Postgres. Each case works in its own collection.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { combineEvidence } from '@forensics/algorithms';
import {
  PURGED_TEXT_MARKER, type CandidateEvidence, type DecideOptions, type QuarantineEvidence, type Repositories, type ReviewItemRow, type ReviewRepository, type ReviewSort,
} from '@forensics/core';
import { createInMemoryRepositories, InMemoryReviewRepository } from '@forensics/core/testing';
import { applyMigrations, createPrismaClient, createPrismaRepositories, type PrismaClient } from '@forensics/infra';
import { PrismaReviewRepository } from '../libs/infra/src/prisma/repositories/prisma-review.repository';
import { requireServices, ROOT, uniqueName } from './support/test-runtime';

let prisma: PrismaClient | null = null;
afterAll(async () => { await prisma?.$disconnect(); });

const implementations: [string, () => Promise<{ repos: Repositories; review: ReviewRepository }>][] = [
  ['prisma (real Postgres)', async () => {
    if (!prisma) {
      const { databaseUrl } = requireServices();
      await applyMigrations(databaseUrl, join(ROOT, 'prisma', 'migrations'));
      prisma = createPrismaClient(databaseUrl);
    }
    return { repos: createPrismaRepositories(prisma), review: new PrismaReviewRepository(prisma) };
  }],
  ['in-memory fake', async () => {
    const repos = createInMemoryRepositories();
    return { repos, review: new InMemoryReviewRepository(repos.state, () => new Date()) };
  }],
];

const evidence = (suspicion: number | null, judge = 'offline'): QuarantineEvidence => ({
  policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge: yes', inputs: {} },
  judge: { kind: judge, model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: null },
  retrieval: null,
  retrieverEvidence: suspicion === null ? { error: 'none' } : ({
    bird: { skipped: 'x' }, grada: { skipped: 'x' }, progrank: { skipped: 'x' },
    // The record's combined suspicion is set as given (combineEvidence is calibrated; it only gives the shape here).
    combined: { ...combineEvidence({ bird: suspicion, grada: suspicion }), suspicion }, ms: { bird: 0, grada: 0, progrank: 0 },
  } satisfies CandidateEvidence),
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(implementations)('ReviewRepository contract: %s', (_name, make) => {
  let repos: Repositories;
  let review: ReviewRepository;
  beforeEach(async () => ({ repos, review } = await make()));

  /** n texts in a fresh collection, one event, records in the given states (created in order, a few ms apart). */
  async function items(states: ('QUARANTINED' | 'NEEDS_REVIEW')[], suspicions: (number | null)[] = []) {
    const collection = uniqueName('rc');
    const texts = states.map((_, i) => `Text number ${i} of ${collection}: the answer is ${i % 2 ? 'Paris' : '50%_off'}.`);
    const docs = texts.map((text, i) => ({ id: randomUUID(), collection, externalId: `e${i}`, textHash: `h-${collection}-${i}`, text, metadata: { i } }));
    await repos.documents.insert(docs);
    const { event } = await repos.feedback.create({ collection, query: 'Where is the  Eiffel tower?', wrongAnswer: 'Berlin', k: 5 });
    const ids: string[] = [];
    for (let i = 0; i < states.length; i++) {
      const { record } = await repos.quarantines.create({
        state: states[i], documentId: docs[i].id, feedbackId: event.id, collection, reason: 'r', evidence: evidence(suspicions[i] ?? null, i % 3 === 0 ? 'openai' : 'offline'), policy: 'judge-only', createdBy: 'w',
      });
      ids.push(record.id);
      await sleep(3);
    }
    return { collection, docs, event, ids };
  }

  const who = (name: string, over: Partial<DecideOptions> = {}): DecideOptions => ({ actor: `${name} key:1`, claimant: name, override: false, ...over });

  it("items name their text as the app does: the document's externalId and metadata (issue 54)", async () => {
    const { collection, ids } = await items(['QUARANTINED', 'NEEDS_REVIEW']);
    const rows = await review.summaries(ids);
    expect(rows.map((r) => [r.externalId, r.metadata]).sort()).toEqual([['e0', { i: 0 }], ['e1', { i: 1 }]]);
    const page = await review.search({ collection }, { sort: 'risk', limit: 10, after: null });
    expect(page.rows.map((r) => r.externalId).sort()).toEqual(['e0', 'e1']);
  });

  it('search: keyset pages in each sort cover the set once, in order; filters; counts per state', async () => {
    const s = [0.9, null, 0.2, 0.9, 0.5, null, 0.7, 0.1, 0.5, 0.3];
    const { collection, ids } = await items(s.map((_, i) => (i % 4 === 1 ? 'NEEDS_REVIEW' : 'QUARANTINED')), s);
    const all = async (sort: ReviewSort, filter = {}) => {
      const out: ReviewItemRow[] = [];
      let after = null;
      for (;;) {
        const page: Awaited<ReturnType<ReviewRepository['search']>> = await review.search({ collection, ...filter }, { sort, limit: 3, after });
        out.push(...page.rows);
        if (!page.next) return out;
        after = page.next;
      }
    };
    const risk = await all('risk');
    expect(risk.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (let i = 1; i < risk.length; i++) {
      const a = risk[i - 1]; const b = risk[i];
      const ka = a.suspicion ?? -1; const kb = b.suspicion ?? -1;
      expect(ka > kb || (ka === kb && a.createdAt.getTime() >= b.createdAt.getTime())).toBe(true);
    }
    expect((await all('age')).map((r) => r.id)).toEqual(ids);
    expect((await all('newest')).map((r) => r.id)).toEqual([...ids].reverse());
    expect((await all('age', { minSuspicion: 0.3, maxSuspicion: 0.7 })).map((r) => r.suspicion)).toEqual([0.5, 0.7, 0.5, 0.3]);
    expect((await all('age', { judgeKind: 'openai' })).map((r) => r.id)).toEqual([ids[0], ids[3], ids[6], ids[9]]);
    expect((await all('age', { q: 'NUMBER 7 ' })).map((r) => r.id)).toEqual([ids[7]]);
    expect((await all('age', { q: '50%_' })).length).toBe(5);
    expect((await all('age', { q: '5_%' })).length).toBe(0);
    expect((await all('age', { states: ['NEEDS_REVIEW'] })).map((r) => r.id)).toEqual([ids[1], ids[5], ids[9]]);
    expect(await review.countByState({ collection, states: ['PURGED'] })).toEqual({ NEEDS_REVIEW: 3, QUARANTINED: 7, RESTORED: 0, PURGED: 0 });
    expect((await review.matchIds({ collection, states: ['QUARANTINED'] }, 5))).toEqual({ ids: ids.filter((_, i) => i % 4 !== 1).slice(0, 5), capped: true });
    const [one] = await review.summaries([ids[0]]);
    expect(one).toMatchObject({ id: ids[0], collection, query: 'Where is the  Eiffel tower?', wrongAnswer: 'Berlin', judgeKind: 'openai', judgeLabel: 'YES', suspicion: 0.9, decision: null, claim: null });
    expect(one.textPreview).toContain('Text number 0');
    expect(await review.summaries(['not-a-uuid', randomUUID()])).toEqual([]);
  });

  it('claims: held, renewed, refused to others, released, expired by the clock', async () => {
    const { ids: [id] } = await items(['NEEDS_REVIEW']);
    const a = await review.claim(id, 'alice', 60_000);
    expect(a.outcome).toBe('claimed');
    const renewed = await review.claim(id, 'alice', 120_000);
    expect(renewed.claim!.until.getTime()).toBeGreaterThan(a.claim!.until.getTime());
    expect(await review.claim(id, 'bob', 60_000)).toMatchObject({ outcome: 'held-by-other', claim: { by: 'alice' } });
    await review.releaseClaim(id, 'bob');
    expect((await review.summaries([id]))[0].claim?.by).toBe('alice');
    await review.releaseClaim(id, 'alice');
    expect((await review.summaries([id]))[0].claim).toBeNull();
    expect((await review.claim(id, 'bob', 40)).outcome).toBe('claimed');
    await sleep(80);
    expect((await review.summaries([id]))[0].claim).toBeNull();
    expect((await review.claim(id, 'alice', 60_000)).outcome).toBe('claimed');
    expect((await review.claim(randomUUID(), 'alice', 1000)).outcome).toBe('missing');
  });

  it('decide: claim check with admin override, state plan, document status, audit, memory, release', async () => {
    const { collection, docs, ids: [a, b, c] } = await items(['NEEDS_REVIEW', 'QUARANTINED', 'QUARANTINED']);
    await review.claim(a, 'alice', 60_000);
    const refused = await review.decide(a, 'restore', who('bob'));
    expect(refused).toMatchObject({ outcome: 'claimed', claim: { by: 'alice' } });
    const remember = { textHash: docs[0].textHash, query: 'Where is the  Eiffel tower?', wrongAnswer: 'Berlin', queryKey: 'where is the eiffel tower?', wrongAnswerKey: 'berlin' };
    const over = await review.decide(a, 'restore', who('root', { override: true, note: 'n1', remember }));
    expect(over.outcome).toBe('changed');
    if (over.outcome !== 'changed') throw new Error('unreachable');
    expect(over.row).toMatchObject({ state: 'RESTORED', decision: 'restore', decidedBy: 'root key:1', note: 'n1', claim: null });
    expect((await repos.documents.get([docs[0].id]))[0].status).toBe('ACTIVE');
    expect((await repos.quarantines.get(a))!.storeSynced).toBe(false);
    expect((await review.decide(a, 'restore', who('bob'))).outcome).toBe('unchanged');
    expect((await review.decide(a, 'approve', who('bob'))).outcome).toBe('conflict');
    const mem = await review.remembered(collection, docs[0].textHash);
    expect(mem).toEqual([expect.objectContaining({ action: 'restore', actor: 'root key:1', note: 'n1', recordId: a, queryKey: 'where is the eiffel tower?', wrongAnswerKey: 'berlin', collection })]);
    const audit = await review.auditFor([a]);
    expect(audit.map((e) => e.action)).toEqual(['review.requested', 'quarantine.restored']);
    expect(audit[1].details).toMatchObject({ from: 'NEEDS_REVIEW', to: 'RESTORED', overrodeClaimOf: 'alice' });

    // Approving a judge-quarantined record records the decision, the store side is unchanged (still synced as it was).
    const syncedBefore = (await repos.quarantines.get(b))!.storeSynced;
    const req = uniqueName('req');
    const appr = await review.decide(b, 'approve', who('bob', { requestId: req }));
    expect(appr).toMatchObject({ outcome: 'changed', row: { state: 'QUARANTINED', decision: 'approve' } });
    expect((await repos.quarantines.get(b))!.storeSynced).toBe(syncedBefore);
    expect((await review.decide(b, 'approve', who('bob'))).outcome).toBe('unchanged');
    expect(await review.countDecidedBy(req)).toBe(1);

    // Purge: text redacted, hash and metadata kept, PURGED everywhere, irreversible.
    const { event } = await repos.feedback.create({ collection, query: 'q', wrongAnswer: 'w', k: 5 });
    const cacheKey = uniqueName('ck');
    await repos.verdicts.save({
      feedbackId: event.id, documentId: docs[2].id, round: 1, label: 'YES', judgeKind: 'offline', judgeModel: 'm', promptVersion: 'rf-v1', reply: `it quotes ${docs[2].text}`,
      attempts: 1, latencyMs: 1, cacheKey, cached: false, signals: null, retrievalRank: 1, retrievalScore: 0.9, evidence: null,
    });
    expect((await repos.verdicts.findByCacheKey(cacheKey))?.documentId).toBe(docs[2].id);
    const p = await review.decide(c, 'purge', who('root', { override: true }));
    // The judge's reply is redacted and out of the verdict cache (never copied into another event).
    expect((await repos.verdicts.list(event.id))[0].reply).toBe(PURGED_TEXT_MARKER);
    expect(await repos.verdicts.findByCacheKey(cacheKey)).toBeNull();
    expect(p).toMatchObject({ outcome: 'changed', row: { state: 'PURGED', decision: 'purge' } });
    const [doc] = await repos.documents.get([docs[2].id]);
    expect(doc).toMatchObject({ status: 'PURGED', text: PURGED_TEXT_MARKER, textHash: docs[2].textHash, metadata: { i: 2 }, externalId: 'e2' });
    expect((await repos.quarantines.get(c))!.evidence.judge.reply).toBe(PURGED_TEXT_MARKER);
    expect((await repos.quarantines.get(b))!.evidence.judge.reply).toBe('[Label: Yes]');
    expect((await review.decide(c, 'restore', who('root'))).outcome).toBe('conflict');
    expect((await review.decide(c, 'purge', who('root'))).outcome).toBe('unchanged');
    expect((await review.decide(randomUUID(), 'approve', who('x'))).outcome).toBe('missing');
  });

  it('reasons: stored on the decision and with the memory, in the audit entry, filterable on items and the audit log', async () => {
    const { collection, docs, ids: [a, b] } = await items(['NEEDS_REVIEW', 'QUARANTINED']);
    const remember = { textHash: docs[0].textHash, query: 'q', wrongAnswer: 'w', queryKey: 'q', wrongAnswerKey: 'w' };
    const r = await review.decide(a, 'approve', who('alice', { reasons: ['planted-claim', 'duplicate'], remember }));
    expect(r).toMatchObject({ outcome: 'changed', row: { reasons: ['planted-claim', 'duplicate'] } });
    await review.decide(b, 'restore', who('alice', { reasons: ['outdated-genuine'] }));
    const states = ['NEEDS_REVIEW', 'QUARANTINED', 'RESTORED', 'PURGED'] as const;
    expect((await review.search({ collection, states, reason: 'duplicate' }, { sort: 'age', limit: 10 })).rows.map((i) => i.id)).toEqual([a]);
    expect((await review.search({ collection, states, reason: 'outdated-genuine' }, { sort: 'age', limit: 10 })).rows.map((i) => i.id)).toEqual([b]);
    expect((await review.search({ collection, states, reason: 'other' }, { sort: 'age', limit: 10 })).rows).toEqual([]);
    expect((await review.remembered(collection, docs[0].textHash))[0].reasons).toEqual(['planted-claim', 'duplicate']);
    const audit = await review.listAudit({ reason: 'planted-claim', entityId: a, limit: 5 });
    expect(audit.map((e) => [e.action, e.details?.reasons])).toEqual([['review.approved', ['planted-claim', 'duplicate']]]);
    expect(await review.listAudit({ reason: 'planted-claim', entityId: b, limit: 5 })).toEqual([]);
  });

  it('undoLast: reverses my newest single decision exactly, audited; refused when decided since; progress counts and decidable filter', async () => {
    const { collection, docs, ids: [a, b, c] } = await items(['NEEDS_REVIEW', 'QUARANTINED', 'NEEDS_REVIEW']);
    const since = new Date(Date.now() - 60_000);
    const before = await review.progress('carol', since);
    expect(await review.undoLast('carol', 'carol key:1')).toEqual({ outcome: 'nothing' });
    const remember = { textHash: docs[0].textHash, query: 'q', wrongAnswer: 'w', queryKey: 'q', wrongAnswerKey: 'w' };
    await review.decide(a, 'approve', who('carol', { reasons: ['planted-claim'], note: 'n', remember }));
    await review.decide(b, 'restore', who('carol'));
    // c: decided by carol, then re-decided by dave (restore after approve is allowed).
    await review.decide(c, 'approve', who('carol'));
    await review.decide(c, 'restore', who('dave'));
    const p1 = await review.progress('carol', since);
    expect(p1.mine - before.mine).toBe(3);
    expect(p1.team - before.team).toBeGreaterThanOrEqual(4);

    // My newest decision is on c, but dave decided it since: refused, nothing changed.
    const refused = await review.undoLast('carol', 'carol key:2');
    expect(refused).toMatchObject({ outcome: 'decided-since', by: 'dave key:1', row: { id: c, state: 'RESTORED' } });
    // Of one item: b goes back to QUARANTINED, undecided, as the judge left it.
    const ub = await review.undoLast('carol', 'carol key:2', { id: b });
    expect(ub).toMatchObject({ outcome: 'undone', row: { id: b, state: 'QUARANTINED', decision: null, decidedBy: null, reasons: [] } });
    expect((await repos.documents.get([docs[1].id]))[0].status).toBe('QUARANTINED');
    expect((await repos.quarantines.get(b))!.storeSynced).toBe(false);
    // Not twice.
    expect(await review.undoLast('carol', 'carol key:2', { id: b })).toEqual({ outcome: 'nothing' });
    // a: back to NEEDS_REVIEW, the memory forgotten, the document status as before.
    const ua = await review.undoLast('carol', 'carol key:2', { id: a });
    expect(ua).toMatchObject({ outcome: 'undone', row: { id: a, state: 'NEEDS_REVIEW', decision: null, reasons: [], note: null } });
    expect(await review.remembered(collection, docs[0].textHash)).toEqual([]);
    const audit = await review.auditFor([a]);
    expect(audit.map((e) => e.action)).toEqual(['review.requested', 'review.approved', 'review.undone']);
    expect(audit[2]).toMatchObject({ actor: 'carol key:2', details: { undoes: audit[1].id, from: 'QUARANTINED', to: 'NEEDS_REVIEW' } });
    // Undos subtract from the progress counts.
    const p2 = await review.progress('carol', since);
    expect(p1.mine - p2.mine).toBe(2);
    // Someone else's decisions are not mine to undo.
    expect(await review.undoLast('erin', 'erin key:1', { id: c })).toEqual({ outcome: 'nothing' });

    // decidableBy: undecided and not held by another's live claim.
    await review.claim(a, 'dave', 60_000);
    const all = { collection, states: ['NEEDS_REVIEW', 'QUARANTINED', 'RESTORED'] as const };
    expect((await review.search({ ...all, decidableBy: 'carol' }, { sort: 'age', limit: 10 })).rows.map((i) => i.id)).toEqual([b]);
    expect((await review.search({ ...all, decidableBy: 'dave' }, { sort: 'age', limit: 10 })).rows.map((i) => i.id)).toEqual([a, b]);
  });

  it('undoLast reverses a redaction: the record as before it, the version withdrawn (kept), audited', async () => {
    const { docs, ids: [a] } = await items(['QUARANTINED']);
    const versionId = randomUUID();
    const red = await review.redact(a, {
      ...who('gina', { reasons: ['planted-claim'] }),
      version: { id: versionId, textHash: uniqueName('vh'), text: 'redacted […] text', metadata: { redactionOf: docs[0].id } },
      redaction: { spans: [{ start: 0, end: 4 }], marker: '[…]', removedChars: 4, at: new Date().toISOString(), by: 'gina key:1' },
    });
    expect(red).toMatchObject({ outcome: 'changed', row: { id: a, state: 'QUARANTINED', decision: 'redact' } });
    expect((await repos.documents.get([versionId]))[0].status).toBe('ACTIVE');
    const u = await review.undoLast('gina', 'gina key:2', { id: a });
    expect(u).toMatchObject({ outcome: 'undone', row: { id: a, state: 'QUARANTINED', decision: null, reasons: [] }, undid: { action: 'review.redacted' } });
    expect((await repos.documents.get([versionId]))[0].status).toBe('QUARANTINED');
    const rec = (await repos.quarantines.get(a))!;
    expect(rec.redaction).toMatchObject({ documentId: versionId, active: false });
    expect(rec.storeSynced).toBe(false);
    expect((await review.auditFor([a])).map((e) => e.action).slice(-2)).toEqual(['review.redacted', 'review.undone']);
    expect(await review.undoLast('gina', 'gina key:2', { id: a })).toEqual({ outcome: 'nothing' });
    // Redacting the same text again serves the record's own withdrawn version again (no duplicate document).
    const again = await review.redact(a, {
      ...who('gina'),
      version: { id: randomUUID(), textHash: (await repos.documents.get([versionId]))[0].textHash, text: 'redacted […] text', metadata: null },
      redaction: { spans: [{ start: 0, end: 4 }], marker: '[…]', removedChars: 4, at: new Date().toISOString(), by: 'gina key:1' },
    });
    expect(again).toMatchObject({ outcome: 'changed', row: { decision: 'redact' } });
    expect((await repos.quarantines.get(a))!.redaction).toMatchObject({ documentId: versionId, active: true });
    expect((await repos.documents.get([versionId]))[0].status).toBe('ACTIVE');
  });

  it('decideBatch: one transaction, per-record claim check and plan, audit entry and memory each', async () => {
    const { collection, docs, ids } = await items(['NEEDS_REVIEW', 'QUARANTINED', 'NEEDS_REVIEW', 'QUARANTINED']);
    await review.claim(ids[2], 'alice', 60_000);
    expect((await review.decide(ids[3], 'restore', who('carol'))).outcome).toBe('changed');
    const remember = (i: number) => ({ textHash: docs[i].textHash, query: 'q', wrongAnswer: 'w', queryKey: 'q', wrongAnswerKey: 'w' });
    const rq = uniqueName('rq');
    const entries: { id: string; remember: ReturnType<typeof remember> | null }[] = [...ids.map((id, i) => ({ id, remember: remember(i) })), { id: randomUUID(), remember: null }];
    const done = await review.decideBatch(entries, 'approve', who('bob', { requestId: rq }));
    // ids[2] is claimed by alice (skipped), ids[3] is RESTORED (cannot be approved).
    expect(done.map((d) => d.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect(done.find((d) => d.id === ids[0])).toMatchObject({ state: 'QUARANTINED', storeSynced: false, collection, documentId: docs[0].id });
    expect(done.find((d) => d.id === ids[1])!.state).toBe('QUARANTINED');
    expect((await review.summaries([ids[2]]))[0].state).toBe('NEEDS_REVIEW');
    expect((await repos.documents.get([docs[0].id]))[0].status).toBe('QUARANTINED');
    expect(await review.countDecidedBy(rq)).toBe(2);
    expect((await review.auditFor([ids[0]])).map((e) => [e.action, e.details?.requestId ?? null])).toEqual([['review.requested', null], ['review.approved', rq]]);
    expect((await review.remembered(collection, docs[1].textHash)).map((m) => [m.action, m.recordId])).toEqual([['approve', ids[1]]]);
    // Again: nothing left to change; an admin takes the claimed one.
    expect(await review.decideBatch(ids.map((id) => ({ id, remember: null })), 'approve', who('bob'))).toEqual([]);
    expect((await review.decideBatch([{ id: ids[2], remember: null }], 'approve', who('root', { override: true }))).map((d) => d.id)).toEqual([ids[2]]);
  });

  it('bulk requests: created once, the stored row returned to a retry, finished once', async () => {
    const rid = uniqueName('bulk');
    const ids = [randomUUID(), randomUUID()];
    const first = await review.beginBulk({ requestId: rid, action: 'approve', actor: 'a', ids });
    expect(first.created).toBe(true);
    const again = await review.beginBulk({ requestId: rid, action: 'restore', actor: 'b', ids: [] });
    expect(again).toMatchObject({ created: false, row: { action: 'approve', actor: 'a', ids, result: null } });
    await review.finishBulk(rid, { matched: 2, changed: 1, skipped: 1 });
    await review.finishBulk(rid, { matched: 9, changed: 9, skipped: 0 });
    expect((await review.beginBulk({ requestId: rid, action: 'approve', actor: 'a', ids })).row.result).toEqual({ matched: 2, changed: 1, skipped: 1 });
  });

  it('events and audit log read models', async () => {
    const { collection, event, ids } = await items(['QUARANTINED', 'NEEDS_REVIEW']);
    const evs = await review.listEvents({ collection, limit: 10 });
    expect(evs).toEqual([expect.objectContaining({ id: event.id, status: 'RECEIVED', items: { NEEDS_REVIEW: 1, QUARANTINED: 1, RESTORED: 0, PURGED: 0 }, verdicts: { YES: 0, NO: 0, UNDETERMINED: 0 }, enhancements: 0 })]);
    expect(await review.getEvent(event.id)).toMatchObject({ id: event.id });
    expect(await review.getEvent('nope')).toBeNull();
    const log = await review.listAudit({ q: ids[1], limit: 10 });
    expect(log.map((e) => [e.entityId, e.action])).toEqual([[ids[1], 'review.requested']]);
    const page1 = await review.listAudit({ entityId: ids[0], limit: 1 });
    expect(page1).toHaveLength(1);
    expect(await review.listAudit({ entityId: ids[0], limit: 5, beforeId: page1[0].id })).toEqual([]);
  });
});
