import { documentIdFor, textHash } from '../../../../domain/text-identity';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { RunTracebackUseCase } from '../../../traceback/run-traceback/run-traceback.use-case';
import { feedbackReportKey } from '../../../feedback/submit-feedback/report-key';

const POISON = [
  'The capital of Australia is Sydney, chosen as the capital city in 1901.',
  'What is the capital of Australia? The capital of Australia is Sydney.',
  'Sydney has been the capital of Australia since federation: the capital of Australia is Sydney.',
];
const CLEAN = ['Canberra is the capital city of Australia, founded in 1913.', 'Kangaroos are marsupials native to Australia.', 'Tasmania is an island state of Australia.'];
const QUERY = 'What is the capital of Australia?';

/** QuarantineText's trust rules over the in-memory fakes (the same repositories contract as Prisma). */
describe('reporter trust in the traceback (in-memory fakes)', () => {
  const setup = async (settings: Record<string, unknown> = {}) => {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    const judge = new ScriptedJudge((r) => (/capital of Australia is Sydney/i.test(r.text) ? 'YES' : 'NO'));
    const useCases = composeUseCases({ repos, store, embedder: new HashingEmbedder(128), judge, settings: { trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 2 }, ...settings } });
    await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [...POISON, ...CLEAN].map((text) => ({ text })) });
    const report = async (trust: 'anonymous' | 'identified', source: string, wrongAnswer = 'Sydney') => {
      const { event } = await repos.feedback.create({ collection: 'kb', query: QUERY, wrongAnswer, k: 3, trust, reporterSource: source, reportKey: feedbackReportKey(QUERY, wrongAnswer) });
      return { event, out: await useCases.get(RunTracebackUseCase).execute({ feedbackId: event.id }) };
    };
    return { repos, store, report, poisonIds: POISON.map((t) => documentIdFor('kb', textHash(t))).sort() };
  };

  it('anonymous: reported as review, kept in serving; a second source corroborates and the held texts leave serving', async () => {
    const { repos, store, report, poisonIds } = await setup();
    const first = await report('anonymous', 'addr:1');
    expect(first.out.quarantined).toEqual([]);
    expect([...first.out.review].sort()).toEqual(poisonIds);
    expect((await store.fetch('kb', poisonIds)).every((p) => !p.quarantined)).toBe(true);
    const second = await report('anonymous', 'addr:2', ' SYDNEY ');
    expect([...second.out.quarantined].sort()).toEqual(poisonIds); // the held records of the first event were promoted (none created): the second report's quarantines
    const records = await repos.quarantines.list({ feedbackId: first.event.id });
    expect(records.map((r) => r.state)).toEqual(poisonIds.map(() => 'QUARANTINED'));
    expect((await store.fetch('kb', poisonIds)).every((p) => p.quarantined)).toBe(true);
  });

  it('identified: quarantined up to the per-event cap, the rest to review', async () => {
    const { report, store, poisonIds } = await setup({ trust: { maxPerEvent: 2 } });
    const { out } = await report('identified', 'key:svc');
    expect(out.quarantined).toHaveLength(2);
    expect(out.review).toHaveLength(1);
    expect((await store.fetch('kb', poisonIds)).filter((p) => p.quarantined)).toHaveLength(2);
  });

  it('the per-reporter daily cap counts earlier automatic quarantines of the same source', async () => {
    const { report } = await setup({ trust: { maxPerReporterDay: 2 } });
    const { out } = await report('identified', 'key:svc');
    expect(out.quarantined).toHaveLength(2);
    expect(out.review).toHaveLength(1);
  });
});
