import {
  confusionOf, macroRates, meanOf, poisonHitAtK, poisonRecallAtK, pooledRates,
  type ConfusionCounts, type DetectionRates, type MacroRates,
} from '@forensics/algorithms';
import {
  IngestCorpusUseCase, RunTracebackUseCase, SubmitFeedbackUseCase,
  type CoreSettings, type Embedder, type Judge, type Repositories, type VectorStore,
} from '@forensics/core';
import { composeUseCases, createInMemoryRepositories, InMemoryVectorStore } from '@forensics/core/testing';
import { Bm25HandleEmbedder, Bm25RetrievalStore, TextHandles } from './bm25-retrieval';
import { poisonedTextsOf, type EvalRecord, type PoisonSet } from './eval-data';

export type RetrieverKind = 'embed' | 'bm25';

export interface EvaluationSetup {
  records: readonly EvalRecord[];
  k: number;
  retriever: RetrieverKind;
  /** Needed for `retriever: 'embed'` (the configured embedder, usually wrapped in a disk cache). */
  embedder?: Embedder;
  /** The judges to measure, each through the same traceback; the first is the primary one. */
  judges: readonly { name: string; judge: Judge }[];
  trace: CoreSettings['trace'];
  poisonSet?: PoisonSet;
  poisonCount?: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

export interface JudgedTextRow {
  documentId: string;
  poisoned: boolean;
  label: 'YES' | 'NO' | 'UNDETERMINED';
  round: number;
  /** The verdict's reply: for the offline judge, the signals that decided it in words. */
  reply: string;
  text: string;
}

export interface QuestionResult {
  id: string;
  question: string;
  wrongAnswer: string;
  texts: { clean: number; poisoned: number };
  status: 'TRACED' | 'BOUNDED';
  traceStatus: string;
  boundReason?: string;
  confusion: ConfusionCounts;
  rates: DetectionRates;
  undetermined: number;
  judgeCalls: number;
  rounds: number;
  ms: number;
  hitBefore: 0 | 1;
  hitAfter: 0 | 1;
  recallBefore: number;
  recallAfter: number;
  judged: JudgedTextRow[];
}

export interface JudgeSummary {
  judge: string;
  kind: string;
  model: string;
  events: number;
  pooled: DetectionRates & { counts: ConfusionCounts };
  macro: MacroRates;
  poisonHitRateBefore: number | null;
  poisonHitRateAfter: number | null;
  poisonRecallBefore: number | null;
  poisonRecallAfter: number | null;
  judgeCallsPerEvent: number | null;
  msPerEvent: number | null;
  undetermined: number;
  bounded: number;
  exhausted: number;
  questions: QuestionResult[];
}

/**
 * Runs the traceback of every record with every judge and measures it (metrics of RAGForensics,
 * arXiv 2504.21668, App. 8.2, Eq. 3–5, and ProGRank, arXiv 2603.22934, §4.1, Eq. 17–18). Per record
 * and judge, in isolation: fresh in-memory repositories and store, and the use cases composed over
 * them from their `static inject` maps (`composeUseCases`, as the worker's CoreModule does); the
 * knowledge base = clean_texts ∪ poisoned texts, ingested with `IngestCorpusUseCase`; the feedback
 * (question, incorrect_answer) submitted with `SubmitFeedbackUseCase`; then
 * `RunTracebackUseCase.execute` — the traceback step of the worker's pipeline, unchanged. Poison
 * Hit/Recall@K are measured on the store's top-K for the question before the traceback and after
 * it (quarantined texts are out of serving).
 */
export async function runEvaluation(setup: EvaluationSetup): Promise<JudgeSummary[]> {
  if (setup.retriever === 'embed' && !setup.embedder) throw new Error("runEvaluation: retriever 'embed' needs an embedder");
  const handles = new TextHandles();
  const total = setup.records.length * setup.judges.length;
  let done = 0;
  const summaries: JudgeSummary[] = [];
  for (const { name, judge } of setup.judges) {
    const questions: QuestionResult[] = [];
    for (const record of setup.records) {
      setup.onProgress?.(done, total, `${name} ${record.id}`);
      const ports = setup.retriever === 'bm25'
        ? { store: new Bm25RetrievalStore(handles) as VectorStore, embedder: new Bm25HandleEmbedder(handles) as Embedder }
        : { store: new InMemoryVectorStore() as VectorStore, embedder: setup.embedder! };
      questions.push(await evaluateQuestion(record, { ...ports, repos: createInMemoryRepositories(), judge, k: setup.k, trace: setup.trace, poisonSet: setup.poisonSet ?? 'given', poisonCount: setup.poisonCount }));
      done++;
    }
    summaries.push(summarize(name, judge, questions));
  }
  setup.onProgress?.(done, total, 'done');
  return summaries;
}

interface QuestionDeps {
  repos: Repositories;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  k: number;
  trace: CoreSettings['trace'];
  poisonSet: PoisonSet;
  poisonCount?: number;
}

const COLLECTION = 'eval';
/** Recorded as the actor of the harness's quarantines and audit entries. */
const ACTOR = 'eval-harness';

async function evaluateQuestion(r: EvalRecord, d: QuestionDeps): Promise<QuestionResult> {
  const poisonedTexts = poisonedTextsOf(r, d.poisonSet, d.poisonCount);
  const useCases = composeUseCases({
    repos: d.repos, store: d.store, embedder: d.embedder, judge: d.judge,
    settings: { defaultCollection: COLLECTION, defaultK: d.k, trace: d.trace, workerActor: ACTOR },
  });
  const ingest = await useCases.get(IngestCorpusUseCase).execute({
    collection: COLLECTION,
    records: [
      ...r.clean_texts.map((text, i) => ({ id: `clean-${i}`, text, metadata: { kind: 'clean' } })),
      ...poisonedTexts.map((text, i) => ({ id: `poisoned-${i}`, text, metadata: { kind: 'poisoned' } })),
    ],
  });
  // Ground truth by document id (identity = text hash): a text given both as clean and as poisoned
  // is an attacker's text, so it counts as poisoned.
  const poisonIds = new Set(ingest.ids.slice(r.clean_texts.length));
  const docCount = new Set(ingest.ids).size;
  const isPoison = (id: string) => poisonIds.has(id);

  const [qvec] = await d.embedder.embed([r.question]);
  const before = await d.store.search(COLLECTION, { vector: qvec, k: d.k });

  const { event } = await useCases.get(SubmitFeedbackUseCase).execute({ collection: COLLECTION, query: r.question, wrongAnswer: r.incorrect_answer, reporter: ACTOR });
  const t0 = performance.now();
  const outcome = await useCases.get(RunTracebackUseCase).execute({ feedbackId: event.id });
  const ms = performance.now() - t0;

  const after = await d.store.search(COLLECTION, { vector: qvec, k: d.k });
  const verdicts = new Map((await d.repos.verdicts.list(event.id)).map((v) => [v.documentId, v]));
  const docs = new Map((await d.repos.documents.get([...outcome.poisoned, ...outcome.benign, ...outcome.undetermined])).map((x) => [x.id, x]));
  const judged: JudgedTextRow[] = [
    ...outcome.poisoned.map((id) => ({ id, label: 'YES' as const })),
    ...outcome.benign.map((id) => ({ id, label: 'NO' as const })),
    ...outcome.undetermined.map((id) => ({ id, label: 'UNDETERMINED' as const })),
  ].map(({ id, label }) => ({ documentId: id, poisoned: isPoison(id), label, round: verdicts.get(id)?.round ?? -1, reply: verdicts.get(id)?.reply ?? '', text: docs.get(id)?.text ?? '' }));
  // UNDETERMINED is not a YES: a poisoned text left undetermined is missed (FN), a clean one is not flagged.
  const confusion = confusionOf(judged.map((j) => ({ poisoned: j.poisoned, flagged: j.label === 'YES' })));
  const nPoison = poisonIds.size;
  return {
    id: r.id, question: r.question, wrongAnswer: r.incorrect_answer,
    texts: { clean: docCount - nPoison, poisoned: nPoison },
    status: outcome.status, traceStatus: outcome.traceStatus, boundReason: outcome.boundReason,
    confusion, rates: pooledRates([confusion]), undetermined: outcome.undetermined.length,
    judgeCalls: outcome.judgeCalls, rounds: outcome.rounds, ms,
    hitBefore: poisonHitAtK(before.map((h) => isPoison(h.id)), d.k),
    hitAfter: poisonHitAtK(after.map((h) => isPoison(h.id)), d.k),
    recallBefore: poisonRecallAtK(before.map((h) => isPoison(h.id)), d.k, nPoison),
    recallAfter: poisonRecallAtK(after.map((h) => isPoison(h.id)), d.k, nPoison),
    judged,
  };
}

function summarize(name: string, judge: Judge, qs: QuestionResult[]): JudgeSummary {
  const pooled = pooledRates(qs.map((q) => q.confusion));
  return {
    judge: name, kind: judge.kind, model: judge.model, events: qs.length,
    pooled: { dacc: pooled.dacc, fpr: pooled.fpr, fnr: pooled.fnr, counts: pooled.counts },
    macro: macroRates(qs.map((q) => q.confusion)),
    poisonHitRateBefore: meanOf(qs.map((q) => q.hitBefore)),
    poisonHitRateAfter: meanOf(qs.map((q) => q.hitAfter)),
    poisonRecallBefore: meanOf(qs.map((q) => q.recallBefore)),
    poisonRecallAfter: meanOf(qs.map((q) => q.recallAfter)),
    judgeCallsPerEvent: meanOf(qs.map((q) => q.judgeCalls)),
    msPerEvent: meanOf(qs.map((q) => q.ms)),
    undetermined: qs.reduce((a, q) => a + q.undetermined, 0),
    bounded: qs.filter((q) => q.status === 'BOUNDED').length,
    exhausted: qs.filter((q) => q.traceStatus === 'EXHAUSTED').length,
    questions: qs,
  };
}

