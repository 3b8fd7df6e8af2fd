import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import type { Generator } from '../../../../ports/generator.port';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { QuarantineTextUseCase } from '../../../quarantine/quarantine-text/quarantine-text.use-case';
import { SubmitFeedbackUseCase } from '../../../feedback/submit-feedback/submit-feedback.use-case';
import { VerifyTracebackUseCase } from '../verify-traceback.use-case';

/** No LLM: verification must decide without re-running a RAG. */
const offline = { kind: 'offline', model: 'none', generate: async () => { throw new Error('offline'); }, benignText: async () => { throw new Error('offline'); } } as unknown as Generator;

const QUERY = 'who founded the harbour town of elsmere';
/** The judge says NO to every text: residual support by the judge is not what decides these cases. */
const setup = async (texts: string[]) => {
  const repos = createInMemoryRepositories();
  const judge = new ScriptedJudge(() => 'NO');
  const uc = composeUseCases({ repos, store: new InMemoryVectorStore(), embedder: new HashingEmbedder(), judge, generator: offline, settings: { defaultCollection: 'c', defaultK: 5 } });
  const { ids } = await uc.get(IngestCorpusUseCase).execute({ collection: 'c', records: texts.map((text, i) => ({ id: `d${i}`, text })) });
  return { uc, ids, repos, judge };
};
const remove = async (uc: Awaited<ReturnType<typeof setup>>['uc'], feedbackId: string, documentId: string, state: 'QUARANTINED' | 'NEEDS_REVIEW' = 'QUARANTINED') =>
  uc.get(QuarantineTextUseCase).execute({
    documentId, feedbackId, collection: 'c', state, servedDuringReview: false, reason: 'test', policy: 'judge-only', actor: 'test',
    evidence: { policy: { name: 'judge-only', decision: state === 'QUARANTINED' ? 'QUARANTINE' : 'NEEDS_REVIEW', withhold: true, reason: 'test', inputs: {} } } as never,
  });

/** Two texts stating the founder "Ralo Venn" (a planted pair), one stating another founder, one stating none. */
const ELSMERE = [
  'Elsmere harbour town was founded by Captain Ralo Venn in 1602.',
  'Captain Ralo Venn founded the harbour town of Elsmere.',
  'The harbour town of Elsmere was founded by fishermen from the north coast.',
  'Elsmere has a lighthouse and a small harbour museum.',
];

describe('VerifyTracebackUseCase without an LLM (not circular)', () => {
  it('POISONED: the removed texts carried the wrong answer and nothing served states it any more', async () => {
    const { uc, ids } = await setup(ELSMERE);
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Ralo Venn' });
    await remove(uc, event.id, ids[0]!);
    await remove(uc, event.id, ids[1]!, 'NEEDS_REVIEW'); // withheld for review counts as removed
    const r = await uc.get(VerifyTracebackUseCase).execute({ feedbackId: event.id });
    expect(r.verification).toBe('POISONED');
    expect(r.details).toMatchObject({ quarantinedByTrace: 2, removedStatingAnswer: 2, servedStatingAnswer: 0, removedShare: 1 });
  });

  it('reads a served answer as the judge does: framed, the removed texts still carried it (not INCONCLUSIVE for want of a word-for-word match)', async () => {
    const { uc, ids } = await setup(ELSMERE);
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Based on the provided context, Ralo Venn.' });
    await remove(uc, event.id, ids[0]!);
    await remove(uc, event.id, ids[1]!);
    const r = await uc.get(VerifyTracebackUseCase).execute({ feedbackId: event.id });
    expect(r.verification).toBe('POISONED');
    expect(r.details).toMatchObject({ removedStatingAnswer: 2, servedStatingAnswer: 0, removedShare: 1 });
  });

  it('judges a residual served text with the other served texts as peers and the event\'s first round as context (a quoted answer\'s source)', async () => {
    const texts = ELSMERE;
    const { uc, ids, judge, repos } = await setup(texts);
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Elsmere harbour town was founded by Captain Ralo Venn in 1602.' });
    // The traceback's first round judged the quoting text (and a later round another); one is removed.
    const verdict = (documentId: string, round: number) => repos.verdicts.save({ feedbackId: event.id, documentId, round, label: 'YES', judgeKind: 'scripted', judgeModel: 'scripted', promptVersion: 'v', reply: '', attempts: 1, latencyMs: 0, cacheKey: `${documentId}`, cached: false, signals: null, spans: null, evidence: null, retrievalRank: null, retrievalScore: null });
    await verdict(ids[0]!, 1);
    await verdict(ids[1]!, 2);
    await remove(uc, event.id, ids[0]!);
    await uc.get(VerifyTracebackUseCase).execute({ feedbackId: event.id });
    expect(judge.requests.length).toBeGreaterThan(0);
    for (const r of judge.requests) {
      expect(r.context).toEqual([texts[0]]);
      expect(r.peers).not.toContain(r.text);
      expect(r.peers).not.toContain(texts[0]);
    }
    // An event with no verdict yet gives no context: the judge reads the answer against the text and its peers.
    const other = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Captain Ralo Venn founded the harbour town of Elsmere.' });
    judge.requests.length = 0;
    await remove(uc, other.event.id, ids[1]!);
    await uc.get(VerifyTracebackUseCase).execute({ feedbackId: other.event.id });
    expect(judge.requests.length).toBeGreaterThan(0);
    expect(judge.requests.every((r) => r.context === undefined)).toBe(true);
  });

  it('NON_POISONED: nothing was removed (the old rule), and when independent texts still state the answer after removal', async () => {
    const a = await setup(['Elsmere has a lighthouse.', 'The harbour of Elsmere is small.']);
    const e1 = (await a.uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Ralo Venn' })).event;
    expect((await a.uc.get(VerifyTracebackUseCase).execute({ feedbackId: e1.id })).verification).toBe('NON_POISONED');

    const b = await setup([
      'Harbour town of Elsmere: founded by Mira Ostlund, according to the parish register of 1598.',
      'Mira Ostlund is remembered in Elsmere with a statue near the fish market.',
      'Travellers in 1700 wrote that the founder Mira Ostlund had built the first quay of Elsmere.',
      'A school in Elsmere carries the name of Mira Ostlund, who founded the town.',
      'Local histories credit Mira Ostlund with the first settlement on that stretch of coast.',
      'Elsmere lies at the mouth of a river.',
    ]);
    const e2 = (await b.uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Mira Ostlund' })).event;
    await remove(b.uc, e2.id, b.ids[0]!); // a false flag removed one of many independent texts
    const r = await b.uc.get(VerifyTracebackUseCase).execute({ feedbackId: e2.id });
    expect(r.verification).toBe('NON_POISONED');
    expect(r.details.consensusAfter?.suspected).toBe(true);
  });

  it('INCONCLUSIVE: texts were removed but they were not what carried the answer', async () => {
    const { uc, ids } = await setup([
      'Elsmere is a harbour town with a lighthouse.',
      'Founded long ago, Elsmere harbour town: Captain Ralo Venn is said to have founded it.',
      'Ralo Venn and Elsmere town harbour: founded, per local songs.',
    ]);
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'c', query: QUERY, wrongAnswer: 'Ralo Venn' });
    await remove(uc, event.id, ids[0]!); // removed a text that does not state the answer
    const r = await uc.get(VerifyTracebackUseCase).execute({ feedbackId: event.id });
    expect(r.verification).toBe('INCONCLUSIVE');
    expect(r.details).toMatchObject({ removedStatingAnswer: 0, removedShare: 0 });
  });
});
