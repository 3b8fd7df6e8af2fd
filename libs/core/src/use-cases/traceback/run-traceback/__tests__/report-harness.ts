import type { Judge } from '../../../../ports/judge.port';
import { documentIdFor, textHash } from '../../../../domain/text-identity';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore } from '../../../../testing';
import type { DecisionPolicyParams } from '@forensics/algorithms';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { RunTracebackUseCase } from '../run-traceback.use-case';
import { feedbackReportKey } from '../../../feedback/submit-feedback/report-key';

/**
 * One report traced end to end on in-memory parts (the decision specs of issue 33): `texts` ingested into
 * collection 'kb', an identified report of (`query`, `wrongAnswer`) at top-`k`, the traceback run with `judge`
 * and the `policy` settings. Returns the outcome and lookups by text: its document id, its quarantine record
 * (undefined = decided KEEP) and whether it is still served.
 */
export async function traceReport(o: { texts: readonly string[]; judge: Judge; query: string; wrongAnswer: string; k?: number; policy?: Partial<DecisionPolicyParams> }) {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const embedder = new HashingEmbedder(128);
  const useCases = composeUseCases({
    repos, store, embedder, judge: o.judge,
    settings: { trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 2 }, ...(o.policy ? { policy: o.policy } : {}) },
  });
  await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: o.texts.map((text) => ({ text })) });
  const { event } = await repos.feedback.create({ collection: 'kb', query: o.query, wrongAnswer: o.wrongAnswer, k: o.k ?? 5, trust: 'identified', reporterSource: 'key:svc/u1', reportKey: feedbackReportKey(o.query, o.wrongAnswer) });
  const out = await useCases.get(RunTracebackUseCase).execute({ feedbackId: event.id });
  const id = (t: string) => documentIdFor('kb', textHash(t));
  const records = await repos.quarantines.list({ feedbackId: event.id });
  const recordOf = (t: string) => records.find((r) => r.documentId === id(t));
  const servedOf = async (t: string) => !(await store.fetch('kb', [id(t)]))[0]!.quarantined;
  return { repos, store, embedder, event, out, id, recordOf, servedOf };
}
