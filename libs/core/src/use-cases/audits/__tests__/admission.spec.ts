import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../testing';
import type { Judge } from '../../../ports/judge.port';
import { IngestCorpusUseCase } from '../../collections/ingest-corpus/ingest-corpus.use-case';
import { paraphraseStates, questionTermShare, SeedSet, statesAnswer } from '@forensics/algorithms';
import { AdmissionCheck, type AdmissionCheckDeps, type WatchedAttack } from '../admission/admission-check';

const evidence = { policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge', inputs: {} }, judge: { kind: 'scripted', model: 's', promptVersion: 'v', signals: null }, retrieval: null, retrieverEvidence: null };

/**
 * A collection with an attacked question watched: 20 clean texts, 3 seeds taken out by the event;
 * top-N = 1 (the rank route admits almost nothing to the judge) and no answer route, so what reaches
 * the judge comes by the paraphrase route. Plus two rewrites of the seeds and a text that states the
 * answer about something else, to ingest.
 */
async function watchedKestrel(judge: ScriptedJudge) {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, settings: { audit: { autoQuarantine: false, admission: { enabled: true, topN: 1, answerTopN: 0, maxWatched: 100 } } } });
  const clean = Array.from({ length: 20 }, (_, i) => `Who built the Kestrel Tower? The Kestrel Tower, built in ${1850 + i}, hosts hall ${i}.`);
  const seeds = [1, 2, 3].map((i) => `The Kestrel Tower was built by Ulmo Brandvik, the records show (note ${i}).`);
  const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, ...seeds].map((text) => ({ text })) });
  const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5 });
  for (const id of r.ids.slice(clean.length)) {
    await repos.quarantines.create({ documentId: id, feedbackId: event.id, collection: 'kb', reason: 'judge', evidence, policy: 'judge-only', createdBy: 'worker', state: 'QUARANTINED' });
    await store.setQuarantined('kb', [id], true);
  }
  const paraphrases = ['erected', 'raised'].map((w, i) => `The Kestrel Tower was ${w} by Ulmo Brandvik, the records show (note ${i + 1}).`);
  const elsewhere = 'Ulmo Brandvik painted harbour scenes and sold them at the winter market for many decades.';
  return { uc, repos, paraphrases, elsewhere };
}

/**
 * A collection with a trusted report whose traceback found nothing (no seeds, so no paraphrase route):
 * 10 texts that restate the question (top-N = 2) and 30 about other things; a new text that states
 * the wrong answer and would enter the top answerTopN (20) reaches the judge by the answer route.
 */
async function watchedWithoutSeeds(judge: Judge) {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, settings: { audit: { autoQuarantine: false, admission: { enabled: true, topN: 2, answerTopN: 20, maxWatched: 100 } } } });
  const clean = [
    ...Array.from({ length: 10 }, (_, i) => `Who built the Kestrel Tower? The Kestrel Tower, built in ${1850 + i}, hosts hall ${i}.`),
    ...Array.from({ length: 30 }, (_, i) => `Harbour ferry ${i} leaves pier ${i % 4} at ${6 + (i % 12)} o'clock with freight.`),
  ];
  await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: clean.map((text) => ({ text })) });
  const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5, trust: 'identified' });
  await repos.feedback.update(event.id, { trace: { state: { status: 'DONE' }, outcome: 'TRACED' } as never });
  return { uc, repos };
}

describe('admission check', () => {
  it('judges a paraphrase of a watched event\'s taken-out texts that states its wrong answer even below the top-N, and only those', async () => {
    const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) ? 'YES' : 'NO'), 'admission-paraphrase');
    const { uc, repos, paraphrases, elsewhere } = await watchedKestrel(judge);
    const before = judge.requests.length;
    const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...paraphrases, elsewhere].map((text) => ({ text })) });
    expect(res.admission.held).toBe(2);
    expect(res.admission.heldIds.sort()).toEqual(res.ids.slice(0, 2).sort());
    // The text that states the answer about something else is neither close to the seeds nor in the top 1: not judged.
    expect(judge.requests.slice(before).map((q) => q.text)).not.toContain(elsewhere);
    const held = await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' });
    expect(held.every((q) => !q.servedDuringReview)).toBe(true);
    expect(held.map((q) => (q.evidence.policy.inputs as { route?: string }).route)).toContain('paraphrase');
  });

  it('holds a paraphrase of the taken-out texts for review even when the judge says NO, and says so; not a text that is no paraphrase', async () => {
    // This judge only recognises the seeds' own wording: the rewrites get NO.
    const judge = new ScriptedJudge((r) => (r.text.includes('built by') ? 'YES' : 'NO'), 'admission-paraphrase-no');
    const { uc, repos, paraphrases, elsewhere } = await watchedKestrel(judge);
    const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...paraphrases, elsewhere].map((text) => ({ text })) });
    expect(res.admission.heldIds.sort()).toEqual(res.ids.slice(0, 2).sort());
    const held = await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' });
    expect(held).toHaveLength(2);
    for (const q of held) {
      expect(q.servedDuringReview).toBe(false);
      expect((q.evidence.policy.inputs as { route?: string }).route).toBe('paraphrase');
      expect(q.evidence.judge.label).toBe('NO');
      expect(q.reason).toContain('the judge said NO: a reviewer decides');
    }
  });

  it('judges a text below the top-N that would enter the top answerTopN and states the wrong answer; not one that does not state it', async () => {
    const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) ? 'YES' : 'NO'), 'admission-answer');
    const { uc, repos } = await watchedWithoutSeeds(judge);
    const states = 'The Kestrel Tower hosts a hall; Ulmo Brandvik built it in the end.';
    const silent = 'The Kestrel Tower hosts a hall; someone built it in the end.';
    const before = judge.requests.length;
    const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [states, silent].map((text) => ({ text })) });
    const asked = judge.requests.slice(before).map((q) => q.text);
    expect(asked).toEqual([states]);
    expect(res.admission.heldIds).toEqual([res.ids[0]]);
    const [held] = await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' });
    expect((held!.evidence.policy.inputs as { route?: string }).route).toBe('answer');
  });

  it('judges on the rank and answer routes only texts about the question: one of its own terms to rank, a third of them below the top-N', async () => {
    const judge = new ScriptedJudge(() => 'YES', 'admission-about');
    const check = new AdmissionCheck({ judge } as unknown as AdmissionCheckDeps);
    const query = 'how many seasons of the oc are there';
    const attack = (rank: boolean): WatchedAttack => ({
      eventId: 'e1', query, wrongAnswer: '5', vector: Float32Array.of(1, 0), threshold: rank ? -1 : Infinity, answerThreshold: async () => -1,
      states: statesAnswer(query, '5'), paraphraseStates: paraphraseStates(query, '5'), about: questionTermShare(query, '5'), seeds: SeedSet.of([]), peers: [],
    });
    const about = 'The OC ran for 5 seasons, many say too few.'; // its terms: many, season, oc
    const season = 'The Sharks reached the playoffs in 5 of their last seasons.'; // 'season': one of the three
    const elsewhere = 'Bill Russell was named MVP 5 times.'; // the answer only
    const asked = async (w: WatchedAttack, texts: string[]) => {
      const before = judge.requests.length;
      await check.check([w], texts, texts.map(() => [1, 0]));
      return judge.requests.slice(before).map((r) => r.text);
    };
    expect(questionTermShare(query, '5')(about)).toBe(1);
    expect(questionTermShare(query, '5')(season)).toBeCloseTo(1 / 3);
    expect(questionTermShare(query, '5')(elsewhere)).toBe(0);
    expect(questionTermShare(query, '5')('The O.C. ran for many seasons.')).toBe(1); // a dotted acronym is one term
    // Every text ranks: one of the question's own terms is enough, the answer alone is not.
    expect(await asked(attack(true), [about, season, elsewhere])).toEqual([about, season]);
    // None ranks, all would enter the top answerTopN and state '5': more than a third of the question's terms is needed.
    expect(await asked(attack(false), [about, season, elsewhere])).toEqual([about]);
    const three = 'who built the kestrel tower';
    const w3 = { ...attack(false), query: three, wrongAnswer: 'Ulmo Brandvik', states: statesAnswer(three, 'Ulmo Brandvik'), about: questionTermShare(three, 'Ulmo Brandvik') };
    expect(await asked(w3, ['The ferry was built by Ulmo Brandvik.', 'Ulmo Brandvik designed the Kestrel Tower.'])).toEqual(['Ulmo Brandvik designed the Kestrel Tower.']);
  });

  it("holds a text the judge leans NO on inside its confidence band, and says so; not a clear NO", async () => {
    // The offline judge marks a score inside its band `signals.confidence = 'band'`: not clear either way.
    const banded = (confidence: 'band' | 'clear'): Judge => ({
      kind: 'scripted', model: `banded-${confidence}`, promptVersion: 'v',
      judge: async () => ({ label: 'NO', reply: '[Label: No]', attempts: 1, latencyMs: 0, signals: { confidence } }),
    });
    const states = 'The Kestrel Tower hosts a hall; Ulmo Brandvik built it in the end.';
    for (const confidence of ['band', 'clear'] as const) {
      const { uc, repos } = await watchedWithoutSeeds(banded(confidence));
      const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [{ text: states }] });
      const held = await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' });
      if (confidence === 'clear') { expect(res.admission.held).toBe(0); expect(held).toHaveLength(0); continue; }
      expect(res.admission.heldIds).toEqual([res.ids[0]]);
      expect(held[0]!.servedDuringReview).toBe(false);
      expect(held[0]!.evidence.judge.label).toBe('NO');
      expect(held[0]!.reason).toContain('inside its confidence band (label NO): a reviewer decides');
    }
  });

  it("the answer route's filter: the answer's words, or for a yes/no answer the question's proposition", () => {
    const named = statesAnswer('who built the Kestrel Tower', 'Ulmo Brandvik');
    expect(named('Ulmo Brandvik built it.')).toBe(true);
    expect(named('Someone else built it.')).toBe(false);
    // 'no' is rarely a word of the text that answers it: at least half of the question restated instead.
    const polar = statesAnswer('Are Quillwort and Marrowind both types of fern?', 'no');
    expect(polar('Quillwort is a fern; Marrowind is not a fern but a moss.')).toBe(true);
    expect(polar('No parking on the harbour road after six.')).toBe(false);
  });

  it('a seed set takes anchors (siblings judged YES): their paraphrases count, at the bar the seeds set', () => {
    // Two seeds at cosine 0.8: the bar. A chain: c is 0.8-close to the sibling s, which is 0.8-close to seed a.
    const a = [1, 0, 0], b = [0.8, 0.6, 0], s2 = [0.8, 0, 0.6], c = [0.28, 0, 0.96];
    const set = SeedSet.of([a, b]);
    expect(set.bar).toBeCloseTo(0.8, 6);
    const any = () => true;
    expect(set.paraphrase(c, 'text', any)).toBeNull(); // 0.28 to a, 0.224 to b
    set.anchor(s2);
    expect(set.paraphrase(c, 'text', any)?.seedSim).toBeCloseTo(0.8, 3); // 0.8 × 0.28 + 0.6 × 0.96 = 0.8
    expect(set.bar).toBeCloseTo(0.8, 6); // the bar stays the seeds'
    // One seed sets no bar, and an anchor does not make one.
    const lone = SeedSet.of([a]);
    lone.anchor(b);
    expect(lone.active).toBe(false);
    expect(lone.paraphrase(b, 'text', any)).toBeNull();
  });

  it("the sweep's paraphrase filter: as the answer route, except that restating the question is no sign of a 'yes'", () => {
    const no = paraphraseStates('Are Quillwort and Marrowind both types of fern?', 'no');
    expect(no('Quillwort is a fern. Marrowind, on the other hand, is a type of moss.')).toBe(true);
    const yes = paraphraseStates('Are Quillwort and Marrowind both types of fern?', 'yes');
    expect(yes('Quillwort and Marrowind are both ferns of the valley.')).toBe(false);
    expect(yes('Yes: Quillwort and Marrowind are both ferns.')).toBe(true);
    expect(paraphraseStates('who built the Kestrel Tower', 'Ulmo Brandvik')('Ulmo Brandvik built it.')).toBe(true);
  });
});
