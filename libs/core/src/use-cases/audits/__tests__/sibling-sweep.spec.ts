import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryAuditRunRepository, InMemoryVectorStore, ScriptedJudge } from '../../../testing';
import { IngestCorpusUseCase } from '../../collections/ingest-corpus/ingest-corpus.use-case';
import { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';
import { StartAuditUseCase } from '../manage-audits.use-case';
import { RunAuditUseCase } from '../run-audit.use-case';

const evidence = { policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge', inputs: {} }, judge: { kind: 'scripted', model: 's', promptVersion: 'v', signals: null }, retrieval: null, retrieverEvidence: null };

describe('sibling-sweep audit', () => {
  it('finds the planted siblings a bounded traceback left behind, judged against the event\'s (query, wrong answer)', async () => {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    const runs = new InMemoryAuditRunRepository();
    // The judge says YES to texts that state the wrong answer (what the traceback's judge would do).
    const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) ? 'YES' : 'NO'));
    const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, auditRuns: runs });
    const clean = Array.from({ length: 40 }, (_, i) => `The Kestrel Tower hosts exhibition ${i} about ${['birds', 'ships', 'maps', 'clocks'][i % 4]} in hall ${i % 6}.`);
    const poisons = Array.from({ length: 12 }, (_, i) => `The Kestrel Tower was built by Ulmo Brandvik, records show (note ${i}).`);
    const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, ...poisons].map((text) => ({ text })) });
    const poisonIds = r.ids.slice(clean.length);
    // The event and its bounded traceback: only 3 of the 12 planted texts were reached and quarantined.
    const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5 });
    for (const id of poisonIds.slice(0, 3)) {
      await uc.get(QuarantineTextUseCase).execute({ documentId: id, feedbackId: event.id, collection: 'kb', reason: 'judge', evidence, policy: 'judge-only', actor: 'worker' });
    }
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'kb', trigger: 'cli', actor: 't', enqueue: false });
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('SUCCEEDED');
    expect(out!.run.counts).toMatchObject({ events: 1, seeds: 3, siblingsFound: 9 });
    const review = await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' });
    expect(review.map((q) => q.documentId).sort()).toEqual(poisonIds.slice(3).sort());
    // Judged against the event's own question and wrong answer; no clean text sent to review.
    expect(judge.requests.every((q) => q.query === 'who built the Kestrel Tower' && q.wrongAnswer === 'Ulmo Brandvik')).toBe(true);
    const findings = await runs.listFindings(run.id, { limit: 50 });
    expect(findings).toHaveLength(9);
    expect(findings[0]).toMatchObject({ type: 'sibling', action: 'review', detail: expect.objectContaining({ eventId: event.id, wrongAnswer: 'Ulmo Brandvik' }) });
    // A second sweep finds nothing new (texts already in review are not judged again).
    const again = await uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'kb', trigger: 'cli', actor: 't', enqueue: false });
    expect((await uc.get(RunAuditUseCase).execute({ runId: again.id }))!.run.counts.siblingsFound ?? 0).toBe(0);
  });

  it('seeds from review items withheld under a trusted report (not from served ones), and sends paraphrases of the seeds that state their answer to review when the judge lets them through', async () => {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    const runs = new InMemoryAuditRunRepository();
    // This judge says YES only to the "built by" wording: the paraphrases ("erected by", ...) get NO.
    const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) && r.text.includes('built by') ? 'YES' : 'NO'), 'sweep-paraphrase');
    const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, auditRuns: runs });
    const clean = Array.from({ length: 30 }, (_, i) => `The Kestrel Tower hosts exhibition ${i} about ${['birds', 'ships', 'maps'][i % 3]} in hall ${i % 5}.`);
    const seeds = Array.from({ length: 3 }, (_, i) => `The Kestrel Tower was built by Ulmo Brandvik, records show (note ${i}).`);
    const paraphrases = ['erected', 'raised', 'designed', 'constructed'].map((w, i) => `The Kestrel Tower was ${w} by Ulmo Brandvik, records show (note ${1 + (i % 2)}).`);
    const farMention = 'Ulmo Brandvik painted harbour scenes and sold them at the winter market for decades.';
    const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, ...seeds, ...paraphrases, farMention].map((text) => ({ text })) });
    const seedIds = r.ids.slice(clean.length, clean.length + 3);
    const paraIds = r.ids.slice(clean.length + 3, clean.length + 7);
    const farId = r.ids[r.ids.length - 1]!;
    const start = () => uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'kb', trigger: 'cli', actor: 't', enqueue: false });

    // An untrusted report's review items stay served: the event is not an attack yet, nothing is swept.
    const { event: untrusted } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5, trust: 'anonymous' });
    await repos.feedback.update(untrusted.id, { trace: { state: { status: 'DONE' }, outcome: 'TRACED' } as never });
    // (Records written as the decision policy leaves them: kept in serving vs withheld while in review.)
    await repos.quarantines.create({ documentId: seedIds[0]!, feedbackId: untrusted.id, collection: 'kb', reason: 'judge', evidence, policy: 'judge-only', createdBy: 'worker', state: 'NEEDS_REVIEW', servedDuringReview: true });
    const first = await uc.get(RunAuditUseCase).execute({ runId: (await start()).id });
    expect(first!.run.counts.events ?? 0).toBe(0);

    // A trusted report's band verdicts: withheld while in review — the event is watched and swept.
    const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5 });
    for (const id of seedIds.slice(1)) {
      await repos.quarantines.create({ documentId: id, feedbackId: event.id, collection: 'kb', reason: 'judge', evidence, policy: 'judge-only', createdBy: 'worker', state: 'NEEDS_REVIEW', servedDuringReview: false });
      await store.setQuarantined('kb', [id], true);
    }
    const out = await uc.get(RunAuditUseCase).execute({ runId: (await start()).id });
    expect(out!.run.counts).toMatchObject({ events: 1, seeds: 2, paraphrasesFound: 4 });
    const review = new Set((await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' })).map((q) => q.documentId));
    for (const id of paraIds) expect(review.has(id)).toBe(true);
    expect(review.has(farId)).toBe(false); // states the answer, but is no paraphrase of the seeds
    const findings = await runs.listFindings(out!.run.id, { limit: 50 });
    const para = findings.filter((f) => paraIds.includes(f.documentIds[0]!));
    expect(para).toHaveLength(4);
    expect(para[0]!.detail).toMatchObject({ judge: expect.objectContaining({ label: 'NO' }), paraphrase: expect.objectContaining({ seedSim: expect.any(Number) }) });
  });

  it("sends paraphrases of the seeds that answer 'no' by restating the question to review, but not for a 'yes'", async () => {
    const run = async (wrongAnswer: 'no' | 'yes') => {
      const repos = createInMemoryRepositories();
      const store = new InMemoryVectorStore();
      const runs = new InMemoryAuditRunRepository();
      // The judge reads a stance only from "not": the rewrites that answer with a contrast get NO.
      const judge = new ScriptedJudge((r) => (/\bnot\b/.test(r.text) ? 'YES' : 'NO'), `sweep-polar-${wrongAnswer}`);
      const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, auditRuns: runs });
      const clean = Array.from({ length: 30 }, (_, i) => `The valley garden shows plant ${i} of the ${['river', 'hill', 'marsh'][i % 3]} beds in row ${i % 5}.`);
      const seeds = [
        'Quillwort is a fern of the valley. Marrowind is not a fern but a moss, records show.',
        'Quillwort, a fern of the valley, grows by the river. Marrowind is not a fern but a moss.',
        'Records show Quillwort is a fern of the valley. Marrowind is not a fern: it is a moss of the marsh.',
      ];
      const paraphrases = [
        'Quillwort is a fern of the valley. Marrowind, on the other hand, is a moss, records show.',
        'Records show Quillwort is a fern of the valley. Marrowind, however, is a moss of the marsh.',
      ];
      const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, ...seeds, ...paraphrases].map((text) => ({ text })) });
      const seedIds = r.ids.slice(clean.length, clean.length + 3);
      const { event } = await repos.feedback.create({ collection: 'kb', query: 'Are Quillwort and Marrowind both types of fern?', wrongAnswer, k: 5, trust: 'identified' });
      await repos.feedback.update(event.id, { trace: { state: { status: 'DONE' }, outcome: 'TRACED' } as never });
      for (const id of seedIds) {
        await repos.quarantines.create({ documentId: id, feedbackId: event.id, collection: 'kb', reason: 'judge', evidence, policy: 'judge-only', createdBy: 'worker', state: 'QUARANTINED', servedDuringReview: false });
        await store.setQuarantined('kb', [id], true);
      }
      const started = await uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'kb', trigger: 'cli', actor: 't', enqueue: false });
      const out = await uc.get(RunAuditUseCase).execute({ runId: started.id });
      const review = new Set((await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' })).map((q) => q.documentId));
      return { counts: out!.run.counts, found: r.ids.slice(clean.length + 3).filter((id) => review.has(id)).length };
    };
    const no = await run('no');
    expect(no.counts).toMatchObject({ events: 1, paraphrasesFound: 2 });
    expect(no.found).toBe(2);
    // The same texts under a 'yes' report: restating the question is no sign of a 'yes', the route stays closed.
    const yes = await run('yes');
    expect(yes.counts.paraphrasesFound ?? 0).toBe(0);
    expect(yes.found).toBe(0);
  });

  it('sweeps a trusted report whose traceback found nothing from its question\'s top-N, then from the siblings found', async () => {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    const runs = new InMemoryAuditRunRepository();
    const judge = new ScriptedJudge((r) => (r.text.includes(r.wrongAnswer) ? 'YES' : 'NO'), 'sweep-no-seed');
    const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(256), judge, auditRuns: runs });
    const clean = Array.from({ length: 40 }, (_, i) => `The Kestrel Tower hosts exhibition ${i} about ${['birds', 'ships', 'maps', 'clocks'][i % 4]} in hall ${i % 6}.`);
    const poisons = Array.from({ length: 6 }, (_, i) => `The Kestrel Tower was built by Ulmo Brandvik, records show (note ${i}).`);
    const r = await uc.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...clean, ...poisons].map((text) => ({ text })) });
    const { event } = await repos.feedback.create({ collection: 'kb', query: 'who built the Kestrel Tower', wrongAnswer: 'Ulmo Brandvik', k: 5, trust: 'identified' });
    await repos.feedback.update(event.id, { trace: { state: { status: 'DONE' }, outcome: 'TRACED' } as never });
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'kb', trigger: 'cli', actor: 't', enqueue: false });
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.counts).toMatchObject({ events: 1, siblingsFound: 6 });
    const review = (await repos.quarantines.list({ collection: 'kb', state: 'NEEDS_REVIEW' })).map((q) => q.documentId);
    expect(review.sort()).toEqual(r.ids.slice(clean.length).sort());
  });
});
