import { createHash } from 'node:crypto';
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
import { poisonedTextsOf, reportedAnswer, type AnswerForm, type EvalRecord, type PoisonSet } from './eval-data';

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
  /**
   * `--false-flag` (issue 13): the report names the record's CORRECT answer as wrong, the corpus is its
   * clean texts only, the reporter has this trust. Records without a correct_answer are skipped.
   */
  falseFlag?: { trust: 'anonymous' | 'identified' };
  /** Consensus check settings (CONSENSUS_* from the environment; unset = library defaults). */
  consensus?: CoreSettings['consensus'];
  /** Decision policy (DECISION_POLICY / REVIEW_SERVING from the environment; unset = library default `judge-only`). */
  policy?: CoreSettings['policy'];
  /** Reporter trust settings (AUTO_QUARANTINE_MIN_TRUST, TRUST_HELD_SERVING, caps … from the environment; unset = library defaults). */
  trust?: CoreSettings['trust'];
  /**
   * Trust of the attack events' reporter (`--trust` without `--false-flag`): identified (default — a
   * service key naming its user, what the harness always used) | anonymous (the widget's token) | reviewer.
   */
  attackTrust?: 'anonymous' | 'identified' | 'reviewer';
  /**
   * The collection's vetted baseline (decision 0320; `--vetted`): none (default) | clean (the cutoff falls between the
   * clean texts and the planted ones) | all (after every text: the planted ones are inside the baseline).
   */
  vetted?: VettedScenario;
  /** With `vetted: 'clean'`: the share of each question's clean texts inside the baseline (by a hash of the text); default 1. */
  vettedShare?: number;
  /** How the feedback reports the wrong answer (`--answer-form`, eval-data.ts `reportedAnswer`); default given. */
  answerForm?: AnswerForm;
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
  /**
   * Where the traceback's decision left the text: quarantined, withheld for review, in review but still served, or
   * kept (no quarantine record). For reading a run text by text (what stayed served, and why).
   */
  outcome?: 'QUARANTINED' | 'REVIEW_WITHHELD' | 'REVIEW_SERVED' | 'KEPT';
  /** The verdict's score and confidence where its judge reports them (the offline judge). */
  score?: number;
  confidence?: string;
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
  /** Decisions (issue 13): texts taken out of serving automatically, texts sent to review, poisoned among each. */
  decisions: { auto: number; review: number; autoPoisoned: number; reviewPoisoned: number; suspectedFalseFlag: boolean; withheldBenign: number };
  /**
   * What a user feels (issue 33): planted texts the traceback never judged, planted texts still in
   * serving after it (neither auto-quarantined nor withheld for review), over every planted text.
   */
  planted: { total: number; neverJudged: number; stillServed: number };
  /** The consensus check as the traceback recorded it (null when it did not run). */
  consensus: Record<string, unknown> | null;
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
  /** Attack recall of the decisions: poisoned texts auto-quarantined or sent to review / poisoned texts (null without poisons). */
  autoReviewRecall?: number | null;
  /** With `--false-flag`: events, benign texts judged, benign texts auto-quarantined, events marked suspected false flags. */
  falseFlag?: { events: number; benignJudged: number; benignAutoQuarantined: number; suspectedEvents: number; benignWithheldForReview: number };
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
      if (setup.falseFlag && !record.correct_answer?.trim()) { done++; continue; }
      setup.onProgress?.(done, total, `${name} ${record.id}`);
      const ports = setup.retriever === 'bm25'
        ? { store: new Bm25RetrievalStore(handles) as VectorStore, embedder: new Bm25HandleEmbedder(handles) as Embedder }
        : { store: new InMemoryVectorStore() as VectorStore, embedder: setup.embedder! };
      questions.push(await evaluateQuestion(record, { ...ports, repos: createInMemoryRepositories(), judge, k: setup.k, trace: setup.trace, poisonSet: setup.poisonSet ?? 'given', poisonCount: setup.poisonCount, falseFlag: setup.falseFlag, consensus: setup.consensus, policy: setup.policy, trust: setup.trust, attackTrust: setup.attackTrust, vetted: setup.vetted, vettedShare: setup.vettedShare, answerForm: setup.answerForm }));
      done++;
    }
    summaries.push(summarize(name, judge, questions, setup.falseFlag !== undefined));
  }
  setup.onProgress?.(done, total, 'done');
  return summaries;
}

/** A text's place in [0, 1), fixed by its hash: which clean texts a `--vetted-share` baseline covers. */
function shareOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/** Which of a question's texts the collection's vetted baseline covers in a run (`--vetted`, decision 0320). */
export type VettedScenario = 'none' | 'clean' | 'all';

interface QuestionDeps {
  repos: Repositories;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  k: number;
  trace: CoreSettings['trace'];
  poisonSet: PoisonSet;
  poisonCount?: number;
  falseFlag?: EvaluationSetup['falseFlag'];
  consensus?: CoreSettings['consensus'];
  policy?: CoreSettings['policy'];
  trust?: CoreSettings['trust'];
  attackTrust?: EvaluationSetup['attackTrust'];
  vetted?: VettedScenario;
  vettedShare?: number;
  answerForm?: AnswerForm;
}

const COLLECTION = 'eval';
/** Recorded as the actor of the harness's quarantines and audit entries. */
const ACTOR = 'eval-harness';

async function evaluateQuestion(r: EvalRecord, d: QuestionDeps): Promise<QuestionResult> {
  const poisonedTexts = d.falseFlag ? [] : poisonedTextsOf(r, d.poisonSet, d.poisonCount);
  const useCases = composeUseCases({
    repos: d.repos, store: d.store, embedder: d.embedder, judge: d.judge,
    settings: { defaultCollection: COLLECTION, defaultK: d.k, trace: d.trace, workerActor: ACTOR, consensus: d.consensus, ...(d.policy ? { policy: d.policy } : {}), ...(d.trust ? { trust: d.trust } : {}) },
  });
  const cleanRecords = r.clean_texts.map((text, i) => ({ id: `clean-${i}`, text, metadata: { kind: 'clean', ...(r.clean_sources?.[i] ? { source: r.clean_sources[i] } : {}) } }));
  const poisonRecords = poisonedTexts.map((text, i) => ({ id: `poisoned-${i}`, text, metadata: { kind: 'poisoned' } }));
  const ingestAll = (records: typeof cleanRecords) => useCases.get(IngestCorpusUseCase).execute({ collection: COLLECTION, records });
  /** Sets the vetted baseline's cutoff after every text registered so far (the next millisecond's texts are after it). */
  const vetNow = async () => {
    const at = Date.now() + 1;
    while (Date.now() < at) { /* the cutoff is a millisecond instant: let one pass so later texts fall after it */ }
    await d.repos.documents.setVettedBefore(COLLECTION, new Date(at));
    while (Date.now() <= at) { /* and one more, so nothing registered next shares the cutoff's millisecond */ }
  };
  // One call without a baseline (as always); with `clean`, the clean texts (the vetted share of them), the cutoff, then
  // the other clean texts and the planted ones. Ids are put back in record order (clean first) for the ground truth.
  const ingest = d.vetted === 'clean'
    ? await (async () => {
      const inBaseline = (text: string) => d.vettedShare === undefined || d.vettedShare >= 1 || shareOf(text) < d.vettedShare;
      const before = cleanRecords.filter((c) => inBaseline(c.text));
      const after = cleanRecords.filter((c) => !inBaseline(c.text));
      const b = await ingestAll(before);
      await vetNow();
      const a = await ingestAll([...after, ...poisonRecords]);
      const idOf = new Map<string, string>();
      before.forEach((c, i) => idOf.set(c.id, b.ids[i]!));
      after.forEach((c, i) => idOf.set(c.id, a.ids[i]!));
      return { ids: [...cleanRecords.map((c) => idOf.get(c.id)!), ...a.ids.slice(after.length)] };
    })()
    : await ingestAll([...cleanRecords, ...poisonRecords]);
  if (d.vetted === 'all') await vetNow();
  // Ground truth by document id (identity = text hash): a text given both as clean and as poisoned
  // is an attacker's text, so it counts as poisoned.
  const poisonIds = new Set(ingest.ids.slice(r.clean_texts.length));
  const docCount = new Set(ingest.ids).size;
  const isPoison = (id: string) => poisonIds.has(id);

  const [qvec] = await d.embedder.embed([r.question]);
  const before = await d.store.search(COLLECTION, { vector: qvec, k: d.k });
  // The answer as reported (`--answer-form`). A quoted sentence comes from what was served: the texts of the top K in
  // rank order, as an extractive generator reads its context; the record's own texts after them (a sentence no served
  // text holds was not served, but the report is still made).
  const served = before.map((h) => h.text);
  const wrongAnswer = reportedAnswer(d.falseFlag ? r.correct_answer! : r.incorrect_answer, d.answerForm ?? 'given', r.question, [...served, ...(d.falseFlag ? r.clean_texts : poisonedTexts)]);

  const { event } = await useCases.get(SubmitFeedbackUseCase).execute({ collection: COLLECTION, query: r.question, wrongAnswer, reporter: ACTOR, trust: d.falseFlag ? d.falseFlag.trust : d.attackTrust ?? 'identified' });
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
  const records = await d.repos.quarantines.list({ feedbackId: event.id });
  // Where the decisions left each text of the event; review items withheld from serving are out of serving too.
  const stateOf = new Map(records.map((q) => [q.documentId, q.state === 'QUARANTINED' ? 'QUARANTINED' as const : q.servedDuringReview ? 'REVIEW_SERVED' as const : 'REVIEW_WITHHELD' as const]));
  const idsIn = (...states: NonNullable<JudgedTextRow['outcome']>[]) => [...stateOf].filter(([, s]) => states.includes(s)).map(([id]) => id);
  const auto = idsIn('QUARANTINED');
  const review = idsIn('REVIEW_SERVED', 'REVIEW_WITHHELD');
  const outOfServing = new Set(idsIn('QUARANTINED', 'REVIEW_WITHHELD'));
  const judgedIds = new Set(judged.map((j) => j.documentId));
  for (const j of judged) {
    j.outcome = stateOf.get(j.documentId) ?? 'KEPT';
    const sig = verdicts.get(j.documentId)?.signals;
    if (typeof sig?.score === 'number') j.score = sig.score;
    if (typeof sig?.confidence === 'string') j.confidence = sig.confidence;
  }
  const trace = (await d.repos.feedback.get(event.id))?.trace as { consensus?: Record<string, unknown> | null } | null | undefined;
  return {
    id: r.id, question: r.question, wrongAnswer,
    planted: { total: nPoison, neverJudged: [...poisonIds].filter((id) => !judgedIds.has(id)).length, stillServed: [...poisonIds].filter((id) => !outOfServing.has(id)).length },
    consensus: trace?.consensus ?? null,
    decisions: {
      auto: auto.length, review: review.length, autoPoisoned: auto.filter(isPoison).length, reviewPoisoned: review.filter(isPoison).length,
      suspectedFalseFlag: outcome.suspectedFalseFlag === true,
      // Review items withheld from serving are out of serving too: a false flag that withholds a good text removes it until review.
      withheldBenign: idsIn('REVIEW_WITHHELD').filter((id) => !isPoison(id)).length,
    },
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

function summarize(name: string, judge: Judge, qs: QuestionResult[], falseFlag = false): JudgeSummary {
  const pooled = pooledRates(qs.map((q) => q.confusion));
  const poisons = qs.reduce((a, q) => a + q.texts.poisoned, 0);
  return {
    autoReviewRecall: poisons ? qs.reduce((a, q) => a + q.decisions.autoPoisoned + q.decisions.reviewPoisoned, 0) / poisons : null,
    ...(falseFlag ? {
      falseFlag: {
        events: qs.length,
        benignJudged: qs.reduce((a, q) => a + q.judged.filter((j) => !j.poisoned).length, 0),
        benignAutoQuarantined: qs.reduce((a, q) => a + q.decisions.auto - q.decisions.autoPoisoned, 0),
        suspectedEvents: qs.filter((q) => q.decisions.suspectedFalseFlag).length,
        benignWithheldForReview: qs.reduce((a, q) => a + q.decisions.withheldBenign, 0),
      },
    } : {}),
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

