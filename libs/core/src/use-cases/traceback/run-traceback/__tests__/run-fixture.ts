import { initTrace } from '@forensics/algorithms';
import { documentIdFor, textHash } from '../../../../domain/text-identity';
import type { Judge } from '../../../../ports/judge.port';
import type { CoreSettings } from '../../../../settings';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { feedbackReportKey } from '../../../feedback/submit-feedback/report-key';
import { newTraceRun, type TraceRun } from '../trace-run';

/**
 * In-memory parts for the unit specs of the traceback's steps: `texts` ingested into collection 'kb', one identified
 * report of (`query`, `wrongAnswer`) at top-`k`, and a fresh TraceRun over it (as RunTracebackUseCase.load builds it),
 * so each step can be driven alone. `judge` defaults to one that says YES to texts containing the wrong answer.
 */
export async function runFixture(o: {
  texts: readonly string[]; query: string; wrongAnswer: string; k?: number; servedTexts?: readonly string[];
  judge?: Judge; settings?: Partial<CoreSettings>;
}) {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const embedder = new HashingEmbedder(128);
  const judge = o.judge ?? new ScriptedJudge((r) => (r.text.includes(o.wrongAnswer) ? 'YES' : 'NO'));
  const useCases = composeUseCases({ repos, store, embedder, judge, settings: { trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 2 }, ...o.settings } });
  await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: o.texts.map((text) => ({ text })) });
  const id = (t: string) => documentIdFor('kb', textHash(t));
  const { event } = await repos.feedback.create({
    collection: 'kb', query: o.query, wrongAnswer: o.wrongAnswer, k: o.k ?? 3, trust: 'identified', reporterSource: 'key:svc/u1',
    reportKey: feedbackReportKey(o.query, o.wrongAnswer), ...(o.servedTexts ? { servedIds: o.servedTexts.map(id) } : {}),
  });
  const newRun = async (): Promise<TraceRun> => {
    const ev = (await repos.feedback.get(event.id))!;
    const [queryVector] = await embedder.embed([ev.query]);
    const prior = new Map((await repos.verdicts.list(ev.id)).map((v) => [v.documentId, v]));
    return newTraceRun({ ev, collection: (await repos.documents.getCollection('kb'))!, queryVector: queryVector!, proxyIds: [], prior, state: initTrace({ k: ev.k, maxRounds: 10, maxJudgeCalls: 50 }) });
  };
  return { repos, store, embedder, judge, useCases, event, id, newRun };
}
