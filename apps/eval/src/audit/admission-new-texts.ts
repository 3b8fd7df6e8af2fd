/**
 * The admission check in the production scenario of issue 57 (item 2): a knowledge base of some questions'
 * texts, one true report per question traced (so every one is watched), and THEN the texts of questions nobody
 * reported arrive in one ingest, mixed with rewrites and held-out copies of the reported attacks.
 *
 * - `genuine`: the new questions' clean texts. Nothing about them concerns a watched attack; each one held is
 *   a good text kept out of serving until a person looks (target: ≤ 1 % held).
 * - `reinjected`: for every watched question, the 2 of its given poisons left out of the first collection, and
 *   its `poisoned_variants.gpt4` rewrites where the file has them (target: ≥ 0.98 held).
 * - `freshPlanted`: the new questions' own poisons — an attack on a question nobody reported yet. The check
 *   cannot know of it; how many it holds anyway is said, not a target.
 *
 * Questions are drawn with a fixed seed; in-memory repositories and the exact vector store as the rest of
 * `eval:audit` (the storage is not what is measured), the configured encoder through the embedding cache.
 */
import { mulberry32 } from '@forensics/algorithms';
import {
  activeRecords, IngestCorpusUseCase, RunTracebackUseCase, SubmitFeedbackUseCase, watchedEvents, watchOptions, type AuditSettings, type Embedder, type Judge,
} from '@forensics/core';
import { composeUseCases, createInMemoryRepositories, InMemoryAuditRunRepository, InMemoryVectorStore } from '@forensics/core/testing';
import type { EvalRecord } from '../eval-data';

export interface NewTextsOptions {
  /** Questions reported and traced first (default 60, as in the production run of issue 57). */
  watched?: number;
  /** Questions whose texts arrive afterwards (default 100; fewer where the file has fewer). */
  fresh?: number;
  seed?: number;
}

interface Count { ingested: number; held: number; byRoute: Record<string, number> }

export interface NewTextsResult {
  watchedQuestions: number; watchedEvents: number; freshQuestions: number; judged: number; seconds: number;
  genuine: Count; reinjected: Count & { givenHeldOut: number; gpt4: number }; freshPlanted: Count;
  /** Genuine texts held, each with the watched question and wrong answer it was held for (the first 20). */
  genuineExamples: { text: string; query: string; wrongAnswer: string; route: string; label: string }[];
  /** Every hold: which arm the text is from, the route, the judge's label, its similarity to the question and the top-N score. */
  holds: { arm: string; route: string; label: string; similarity: number | null; threshold: number | null; seedSim: number | null; query: string; wrongAnswer: string; text: string }[];
  /** The re-injected texts the check let through, each with the report it belongs to. */
  missed: { arm: string; query: string; wrongAnswer: string; text: string }[];
}

const HELD_OUT_POISONS = 2;

export async function newTextsAdmission(
  records: readonly EvalRecord[], embedder: Embedder, judge: Judge, settings: { audit: AuditSettings; consensus: object },
  log: (m: string) => void, opts: NewTextsOptions = {},
): Promise<NewTextsResult | null> {
  const attacked = records.filter((r) => !!r.incorrect_answer && r.poisoned_texts.length > HELD_OUT_POISONS);
  // Where the file gives clean texts for some questions only (RevPRAG: 252 of 3,000), those questions: the
  // scenario is a knowledge base of genuine texts with attacks in it, and the genuine arm needs new ones.
  const withClean = attacked.filter((r) => r.clean_texts.length > 0);
  const usable = withClean.length >= 20 ? withClean : attacked;
  if (usable.length < 4) return null;
  const order = [...usable];
  const rnd = mulberry32(opts.seed ?? 57);
  shuffle(order, rnd);
  const nWatched = Math.min(opts.watched ?? 60, Math.floor(order.length * 0.6));
  const watched = order.slice(0, nWatched);
  const fresh = order.slice(nWatched, nWatched + (opts.fresh ?? 100));
  const t0 = Date.now();

  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const uc = composeUseCases({
    repos, store, embedder, judge, auditRuns: new InMemoryAuditRunRepository(),
    settings: { defaultCollection: 'new', workerActor: 'eval', consensus: settings.consensus, audit: settings.audit },
  });
  const base = new Set<string>();
  for (const r of watched) {
    for (const t of r.clean_texts) base.add(t);
    for (const t of r.poisoned_texts.slice(0, -HELD_OUT_POISONS)) base.add(t);
  }
  await uc.get(IngestCorpusUseCase).execute({ collection: 'new', records: [...base].map((text) => ({ text })) });
  log(`new texts: ${base.size} texts of ${watched.length} questions ingested; tracing one report each`);
  const reportOf = new Map<string, EvalRecord>();
  for (const [n, r] of watched.entries()) {
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({
      collection: 'new', query: r.question, wrongAnswer: r.incorrect_answer, reporter: `eval-user-${n}`, trust: 'identified', reporterSource: `key:eval/${n}`,
    });
    reportOf.set(event.id, r);
    await uc.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    if ((n + 1) % 20 === 0) log(`new texts: ${n + 1}/${watched.length} reports traced`);
  }
  const watchedCount = (await watchedEvents(repos, 'new', 100_000, watchOptions({ audit: settings.audit }))).length;

  // The later batch. A text already in the collection, or in two roles, is left out (it is not new, or not one thing).
  const kind = new Map<string, 'genuine' | 'given' | 'gpt4' | 'freshPlanted'>();
  const add = (t: string, k: 'genuine' | 'given' | 'gpt4' | 'freshPlanted', clash: Set<string>) => {
    if (base.has(t)) return;
    if (kind.has(t) && kind.get(t) !== k) clash.add(t);
    else kind.set(t, k);
  };
  const clash = new Set<string>();
  for (const r of fresh) { for (const t of r.clean_texts) add(t, 'genuine', clash); for (const t of r.poisoned_texts) add(t, 'freshPlanted', clash); }
  const plantedFor = new Map<string, EvalRecord>();
  for (const r of watched) {
    for (const t of r.poisoned_texts.slice(-HELD_OUT_POISONS)) { add(t, 'given', clash); plantedFor.set(t, r); }
    for (const t of r.poisoned_variants?.gpt4 ?? []) { add(t, 'gpt4', clash); plantedFor.set(t, r); }
  }
  for (const t of clash) kind.delete(t);
  const batch = [...kind.keys()];
  shuffle(batch, rnd);
  log(`new texts: ingesting ${batch.length} texts (${fresh.length} new questions' texts, re-injected rewrites) with the admission check on`);
  const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'new', records: batch.map((text) => ({ text })) });
  const held = new Set(res.admission.heldIds);
  const records_ = (await activeRecords(repos.quarantines, 'new')).inReview.filter((q) => q.policy === 'admission');
  type HoldEvidence = { policy?: { inputs?: { route?: string; eventId?: string; similarity?: number; threshold?: number; seedSim?: number | null } }; judge?: { label?: string } };
  const holdOf = new Map(records_.map((q) => {
    const e = q.evidence as HoldEvidence;
    const i = e.policy?.inputs;
    return [q.documentId, { route: i?.route ?? 'rank', eventId: i?.eventId ?? '', label: e.judge?.label ?? '', similarity: i?.similarity ?? null, threshold: i?.threshold ?? null, seedSim: i?.seedSim ?? null }];
  }));
  const holds = batch.flatMap((t, i) => {
    const h = holdOf.get(res.ids[i]!);
    return h && held.has(res.ids[i]!) ? [{ arm: kind.get(t)!, ...h, query: reportOf.get(h.eventId)?.question ?? '', wrongAnswer: reportOf.get(h.eventId)?.incorrect_answer ?? '', text: t }] : [];
  });
  const count = (want: (k: string) => boolean): Count => {
    const c: Count = { ingested: 0, held: 0, byRoute: {} };
    batch.forEach((t, i) => {
      if (!want(kind.get(t)!)) return;
      c.ingested++;
      const id = res.ids[i]!;
      if (!held.has(id)) return;
      c.held++;
      const route = holdOf.get(id)?.route ?? 'rank';
      c.byRoute[route] = (c.byRoute[route] ?? 0) + 1;
    });
    return c;
  };
  const genuine = count((k) => k === 'genuine');
  const reinjected = { ...count((k) => k === 'given' || k === 'gpt4'), givenHeldOut: batch.filter((t) => kind.get(t) === 'given').length, gpt4: batch.filter((t) => kind.get(t) === 'gpt4').length };
  const freshPlanted = count((k) => k === 'freshPlanted');
  const genuineExamples = holds.filter((h) => h.arm === 'genuine').slice(0, 20)
    .map((h) => ({ text: h.text.slice(0, 200), query: h.query, wrongAnswer: h.wrongAnswer, route: h.route, label: h.label }));
  // The re-injected texts the check let through, with the report they belong to (what to read when recall drops).
  const missed = batch.flatMap((t, i) => (kind.get(t) === 'given' || kind.get(t) === 'gpt4') && !held.has(res.ids[i]!)
    ? [{ arm: kind.get(t)!, query: plantedFor.get(t)?.question ?? '', wrongAnswer: plantedFor.get(t)?.incorrect_answer ?? '', text: t }] : []);
  const out = {
    watchedQuestions: watched.length, watchedEvents: watchedCount, freshQuestions: fresh.length, judged: res.admission.judged, seconds: +((Date.now() - t0) / 1000).toFixed(1),
    genuine, reinjected, freshPlanted, genuineExamples, holds, missed,
  };
  log(`new texts: genuine held ${genuine.held}/${genuine.ingested}, re-injected held ${reinjected.held}/${reinjected.ingested}, new questions' poisons held ${freshPlanted.held}/${freshPlanted.ingested}`);
  return out;
}

function shuffle<T>(a: T[], rnd: () => number): void {
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [a[i], a[j]] = [a[j]!, a[i]!]; }
}
