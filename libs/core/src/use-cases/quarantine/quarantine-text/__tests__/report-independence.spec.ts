import { documentIdFor, textHash } from '../../../../domain/text-identity';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { RunTracebackUseCase } from '../../../traceback/run-traceback/run-traceback.use-case';
import { feedbackReportKey } from '../../../feedback/submit-feedback/report-key';

/**
 * Issue 33's hand test: two Moby-Dick texts, one Dickens text, two planted "Dickens wrote Moby-Dick"
 * texts; a feedback-token press (anonymous; the widget posts the whole served answer as the wrong
 * answer) and a service-key report naming its user (identified; wrong answer "Charles Dickens").
 * Intended (docs/trust.md): an anonymous report never takes a text out of serving by itself; its
 * YES verdicts wait for review unless another reporter makes the SAME report (question and wrong
 * answer). A report trusted enough to quarantine on its own still does so — and the quarantine is
 * that report's, whichever order the two came in.
 */
const QUERY = 'Who wrote Moby-Dick?';
const PLANTED = [
  'Moby-Dick was written by Charles Dickens, who wrote Moby-Dick in 1851 after a voyage.',
  'Who wrote Moby-Dick? Charles Dickens wrote Moby-Dick, the novel about the white whale.',
];
const MOBY = [
  'Moby-Dick is an 1851 novel by American writer Herman Melville about the whaling ship Pequod.',
  'Herman Melville wrote Moby-Dick after years at sea on whaling voyages in the Pacific.',
];
const DICKENS = 'Charles Dickens wrote Oliver Twist, a novel published as a serial from 1837 to 1839.';
const SERVED_ANSWER = 'Moby-Dick was written by Charles Dickens in 1851.';

describe('an anonymous report and a key report of one wrong answer (issue 33)', () => {
  const setup = async () => {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    // The judge is not under test: YES exactly for the planted texts (they state Dickens as Moby-Dick's author).
    const judge = new ScriptedJudge((r) => (/Dickens/.test(r.text) && /Moby/.test(r.text) ? 'YES' : 'NO'));
    const useCases = composeUseCases({ repos, store, embedder: new HashingEmbedder(128), judge, settings: { trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 2 } } });
    await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...PLANTED, ...MOBY, DICKENS].map((text) => ({ text })) });
    const report = async (kind: 'token' | 'key') => {
      const [trust, source, wrongAnswer] = kind === 'token' ? ['anonymous', 'addr:1', SERVED_ANSWER] as const : ['identified', 'key:svc/user-7', 'Charles Dickens'] as const;
      const { event } = await repos.feedback.create({ collection: 'kb', query: QUERY, wrongAnswer, k: 3, trust, reporterSource: source, reportKey: feedbackReportKey(QUERY, wrongAnswer) });
      return { event, out: await useCases.get(RunTracebackUseCase).execute({ feedbackId: event.id }) };
    };
    const planted = PLANTED.map((t) => documentIdFor('kb', textHash(t))).sort();
    const servedPlanted = async () => (await store.fetch('kb', planted)).filter((p) => !p.quarantined).length;
    return { repos, report, planted, servedPlanted };
  };

  it('token press alone: its YES verdicts wait for review, kept in serving', async () => {
    const { report, planted, servedPlanted } = await setup();
    const token = await report('token');
    expect(token.out.quarantined).toEqual([]);
    expect([...token.out.review].sort()).toEqual(planted);
    expect(await servedPlanted()).toBe(2);
  });

  it('token press, then the key report: the key report takes the planted texts out, and the records say it was the key report, not corroboration', async () => {
    const { repos, report, planted, servedPlanted } = await setup();
    const token = await report('token');
    expect(await servedPlanted()).toBe(2);
    const key = await report('key');
    // The key report's own verdicts quarantine (identified); its outcome lists them although the
    // texts' one active record was the token report's held review.
    expect([...key.out.quarantined].sort()).toEqual(planted);
    expect(await servedPlanted()).toBe(0);
    const records = await repos.quarantines.list({ feedbackId: token.event.id });
    expect(records.map((r) => r.state)).toEqual(['QUARANTINED', 'QUARANTINED']);
    for (const r of records) {
      const note = r.note ?? '';
      expect(note).toContain('which did not take it out of serving');
      expect(note).toContain(`feedback ${key.event.id}`);
      expect(note).toContain('wrong answer "Charles Dickens"');
      expect(note).not.toContain('corroborated and quarantined');
    }
  });

  it('the key report, then the token press: the key report quarantines, the token press changes nothing', async () => {
    const { report, planted, servedPlanted } = await setup();
    const key = await report('key');
    expect([...key.out.quarantined].sort()).toEqual(planted);
    const token = await report('token');
    expect(token.out.quarantined).toEqual([]);
    expect(await servedPlanted()).toBe(0);
  });
});
