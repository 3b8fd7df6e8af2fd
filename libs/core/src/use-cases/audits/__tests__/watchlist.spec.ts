import type { TrustLevel } from '@forensics/algorithms';
import type { QuarantineEvidence } from '../../../ports/repositories';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../testing';
import { IngestCorpusUseCase } from '../../collections/ingest-corpus/ingest-corpus.use-case';
import { watchedEvents, watchOptions } from '../watchlist';

const evidence: QuarantineEvidence = { policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge', inputs: {} }, judge: { kind: 'scripted', model: 's', promptVersion: 'v', signals: null }, retrieval: null, retrieverEvidence: null };
const traced = { state: { status: 'DONE' }, outcome: 'TRACED' } as never;

/**
 * One collection with one event per case: what each watch scope watches, and the seeds it hands the
 * admission check and the sweep.
 */
async function fixture() {
  let tick = Date.parse('2026-11-24T06:00:00Z');
  const repos = createInMemoryRepositories(() => new Date(tick += 1000)); // every write a second later: creation order is time order
  const store = new InMemoryVectorStore();
  const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(64), judge: new ScriptedJudge(() => 'NO') });
  const { ids } = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: Array.from({ length: 8 }, (_, i) => ({ text: `Passage number ${i} about the harbour.` })) });
  let n = 0;
  const event = async (trust: TrustLevel, opts: { traced?: boolean; record?: 'QUARANTINED' | 'withheld' | 'served' | 'restored' } = {}) => {
    const { event: ev } = await repos.feedback.create({ collection: 'kb', query: `question ${n}`, wrongAnswer: `answer ${n}`, k: 5, trust });
    const doc = ids[n++]!;
    if (opts.traced !== false) await repos.feedback.update(ev.id, { trace: traced });
    if (opts.record) {
      const state = opts.record === 'QUARANTINED' || opts.record === 'restored' ? 'QUARANTINED' : 'NEEDS_REVIEW';
      const { record } = await repos.quarantines.create({ documentId: doc, feedbackId: ev.id, collection: 'kb', reason: 'r', evidence, policy: 'judge-only', createdBy: 'worker', state, servedDuringReview: opts.record === 'served' });
      if (opts.record === 'restored') await repos.quarantines.restore(record.id, 'reviewer', 'not poison');
    }
    return { id: ev.id, doc };
  };
  const cases = {
    quarantined: await event('anonymous', { record: 'QUARANTINED' }), // corroborated: its texts were taken out
    withheld: await event('identified', { record: 'withheld' }),
    suspected: await event('identified', { record: 'served' }), // the consensus check kept its texts served
    nothingFound: await event('identified'),
    byReviewer: await event('reviewer'),
    anonymousServed: await event('anonymous', { record: 'served' }),
    cleared: await event('identified', { record: 'restored' }),
    notTraced: await event('identified', { traced: false }),
  };
  return { repos, cases };
}

describe('watchlist (AUDIT_WATCH)', () => {
  it("'confirmed' watches only events whose texts were taken out of serving", async () => {
    const { repos, cases } = await fixture();
    const w = await watchedEvents(repos, 'kb', 100, watchOptions({ audit: { autoQuarantine: false, admission: { enabled: true, topN: 50, maxWatched: 100 }, watch: 'confirmed' } }));
    expect(w.map((x) => x.event.id).sort()).toEqual([cases.quarantined.id, cases.withheld.id].sort());
    expect(w.every((x) => x.basis === 'confirmed')).toBe(true);
  });

  it("'reported' (the default) adds trusted traced reports not cleared by a reviewer, with their texts in review as seeds", async () => {
    const { repos, cases } = await fixture();
    const opts = watchOptions(undefined);
    expect(opts).toEqual({ scope: 'reported', minTrust: 'identified' });
    const w = await watchedEvents(repos, 'kb', 100, opts);
    const byId = new Map(w.map((x) => [x.event.id, x]));
    expect([...byId.keys()].sort()).toEqual([cases.quarantined.id, cases.withheld.id, cases.suspected.id, cases.nothingFound.id, cases.byReviewer.id].sort());
    expect(byId.get(cases.suspected.id)).toMatchObject({ basis: 'reported', seedIds: [cases.suspected.doc] });
    expect(byId.get(cases.nothingFound.id)).toMatchObject({ basis: 'reported', seedIds: [] });
    expect(byId.get(cases.quarantined.id)!.basis).toBe('confirmed');
    // Never: an anonymous report whose texts stay served, a report a reviewer cleared, a report not traced yet.
    for (const c of [cases.anonymousServed, cases.cleared, cases.notTraced]) expect(byId.has(c.id)).toBe(false);
  });

  it('follows the minimum trust of the policy, and keeps the newest `max`', async () => {
    const { repos, cases } = await fixture();
    const w = await watchedEvents(repos, 'kb', 100, watchOptions({ trust: { minTrust: 'reviewer' } }));
    expect(w.map((x) => x.event.id).sort()).toEqual([cases.quarantined.id, cases.withheld.id, cases.byReviewer.id].sort());
    const newest = await watchedEvents(repos, 'kb', 2, watchOptions(undefined));
    expect(newest.map((x) => x.event.id)).toEqual([cases.byReviewer.id, cases.nothingFound.id]);
  });

  it('the admission check holds a new text that induces a trusted report\'s answer although the consensus check kept its texts served', async () => {
    for (const watch of ['reported', 'confirmed'] as const) {
      const repos = createInMemoryRepositories();
      const store = new InMemoryVectorStore();
      const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) ? 'YES' : 'NO'), `watch-${watch}`);
      const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, settings: { audit: { autoQuarantine: false, admission: { enabled: true, topN: 5, maxWatched: 100 }, watch } } });
      const clean = Array.from({ length: 12 }, (_, i) => `The Kestrel Tower hosts exhibition hall number ${i} on its floor ${i + 2}.`);
      const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, 'The Kestrel Tower was built by Ulmo Brandvik.'].map((text) => ({ text })) });
      const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5, trust: 'identified' });
      await repos.feedback.update(event.id, { trace: traced });
      await repos.quarantines.create({ documentId: r.ids[clean.length]!, feedbackId: event.id, collection: 'kb', reason: 'suspected false flag', evidence, policy: 'judge-only', createdBy: 'worker', state: 'NEEDS_REVIEW', servedDuringReview: true });
      const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [{ text: 'Who built the Kestrel Tower? Ulmo Brandvik built the Kestrel Tower.' }] });
      expect(res.admission.held).toBe(watch === 'reported' ? 1 : 0);
      // The served text of the disputed report stays served either way.
      expect((await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' })).filter((q) => q.servedDuringReview).map((q) => q.documentId)).toEqual([r.ids[clean.length]]);
    }
  });
});
