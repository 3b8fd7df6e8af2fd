import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { Clock } from '../../../ports/runtime.port';
import type { FeedbackEventRepository, QuarantineRepository } from '../../../ports/repositories';
import { CLOCK, CORE_SETTINGS, EMBEDDER, FEEDBACK_EVENTS, JUDGE, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { DEFAULT_AUDIT_SETTINGS } from '../audit-queue.port';
import { paraphraseStates, questionTermShare, SeedSet, statesAnswer } from '@forensics/algorithms';
import { watchedEvents, watchOptions } from '../watchlist';

export interface AdmissionCheckDeps {
  quarantines: QuarantineRepository;
  feedback: FeedbackEventRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  settings: CoreSettings;
  clock: Clock;
}

/** A watched attack (see `watchedEvents`): the event, its unit query vector and the score a new text must reach to enter its top-N. */
export interface WatchedAttack {
  eventId: string; query: string; wrongAnswer: string; vector: Float32Array; threshold: number;
  /**
   * The score of the question's `answerTopN`-th text (below the top-N, a new text above it that states
   * the wrong answer is judged too), searched only when a new text states the answer: few do, and
   * the deeper search costs ~3× the top-N's on an ANN index (1M texts: 260 vs 85 ms).
   */
  answerThreshold: () => Promise<number>;
  /** Whether a text states the wrong answer (the answer route's filter; see `statesAnswer`). */
  states: (text: string) => boolean;
  /** The paraphrase route's filter (`paraphraseStates`, as the sibling sweep's: a 'yes' needs the word). */
  paraphraseStates: (text: string) => boolean;
  /** The share of the question's own terms a text contains (`questionTermShare`): whether it is about the question at all. */
  about: (text: string) => number;
  /** The event's texts taken out of serving (the seeds): a new text that paraphrases them is judged whatever its rank. */
  seeds: SeedSet;
  /** The seeds' texts: the context a new text is judged in (its peers), as the sibling sweep judges its candidates. */
  peers: readonly string[];
}

export interface AdmissionHold {
  index: number; eventId: string; query: string; wrongAnswer: string; similarity: number; threshold: number; reply: string;
  /** Why it was judged: it would rank in the watched question's top-N ('rank'), or it is a paraphrase of the event's seeds stating its wrong answer ('paraphrase'). */
  route: 'rank' | 'paraphrase' | 'answer'; seedSim: number | null;
  /** The judge's label: YES, or NO / UNDETERMINED for a paraphrase of the seeds (held as the sibling sweep holds it) or a verdict inside the judge's confidence band. */
  label: 'YES' | 'NO' | 'UNDETERMINED';
}

/**
 * The admission check (issue 12): new texts are checked against the watchlist of attacked
 * (query, wrong answer) pairs (see `watchedEvents`) BEFORE they
 * become searchable. A new text whose similarity to a watched query would put it in that query's
 * top-N (N = ADMISSION_TOP_N, default 50: on NQ it held 0.93 of the re-injected texts of watched
 * questions against 0.67 at 10, for 3 clean texts of 195 against 1, and 0.96 at 100) is judged against the event's wrong
 * answer, with the event's texts taken out of serving as its peers (the context the traceback judged
 * them in; the sibling sweep does the same) — a rewrite of a planted text agrees with them, a true
 * passage rarely does; YES → it is written to the store already withheld and sent to review (NEEDS_REVIEW).
 * At ingestion rather than by the next scheduled run because a re-injected poison would otherwise be
 * served until that run; the cost is one dot product per (new text, watched query) plus one judge
 * call per new text that ranks that high (`ingest` reports how many were judged and held).
 * The watchlist is read once per ingest call (`watchedEvents`: events whose texts were taken out of
 * serving, and with AUDIT_WATCH=reported, the default, every traced report from a trusted reporter
 * that no reviewer cleared — a held text of such a report waits for review; nothing served is touched).
 *
 * A second way in, as in the sibling sweep: a new text that is a paraphrase of the event's seeds (at
 * least as close to one of them as they are to each other — their smallest pair cosine, not below
 * 0.5; one seed alone sets no bar) and states the event's wrong answer (`paraphraseStates`) is judged
 * whatever its rank — re-injected rewrites of a confirmed poison, each ranked just below the top-N on
 * its own, would otherwise never be judged — and held for review whatever the judge says, as the sweep
 * sends such a text to review (the record says the judge's label). Measured with `eval:audit`: NQ
 * 2456 → 2471 / 2506 held, HotpotQA 2436 → 2451 / 2499, clean texts held 4 → 5 / 195 and 2 → 3 / 199; under
 * 100 false reports (true texts taken out as seeds) 10 → 14 / 195 and 4 → 7 / 199 clean texts held.
 */
export class AdmissionCheck {
  static readonly inject: InjectMap<AdmissionCheckDeps> = {
    quarantines: QUARANTINES, feedback: FEEDBACK_EVENTS, store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, settings: CORE_SETTINGS, clock: CLOCK,
  };
  private readonly queryVectors = new Map<string, Float32Array>();
  private readonly thresholds = new Map<string, { at: number; score: number }>();
  constructor(private readonly deps: AdmissionCheckDeps) {}

  get judgeKind(): string { return this.deps.judge.kind; }
  get judgeModel(): string { return this.deps.judge.model; }

  private get params() {
    return { ...DEFAULT_AUDIT_SETTINGS.admission, ...this.deps.settings.audit?.admission };
  }

  /** The current watchlist of a collection (empty when the check is off). */
  async watchlist(collection: string): Promise<WatchedAttack[]> {
    const p = this.params;
    if (!p.enabled) return [];
    const out: WatchedAttack[] = [];
    const answerTopN = p.answerTopN ?? DEFAULT_AUDIT_SETTINGS.admission.answerTopN!;
    for (const { event: ev, seedIds } of await watchedEvents(this.deps, collection, p.maxWatched, watchOptions(this.deps.settings))) {
      const id = ev.id;
      const seedRecords = await this.deps.store.fetch(collection, seedIds);
      const seeds = SeedSet.of(seedRecords.map((r) => r.vector));
      const v = await this.queryVector(id, ev.query);
      const threshold = await this.thresholdOf(collection, id, v, p.topN);
      const answerThreshold = () => (answerTopN === 0 ? Promise.resolve(Infinity) : this.thresholdOf(collection, id, v, answerTopN));
      out.push({ eventId: id, query: ev.query, wrongAnswer: ev.wrongAnswer, vector: unitVector(v), threshold, answerThreshold, seeds, peers: seedRecords.map((r) => r.text), states: statesAnswer(ev.query, ev.wrongAnswer), paraphraseStates: paraphraseStates(ev.query, ev.wrongAnswer), about: questionTermShare(ev.query, ev.wrongAnswer) });
    }
    return out;
  }

  /** A watched question's embedding, embedded once per process. */
  private async queryVector(eventId: string, query: string): Promise<Float32Array> {
    let v = this.queryVectors.get(eventId);
    if (!v) {
      [v] = await this.deps.embedder.embed([query]) as [Float32Array];
      this.queryVectors.set(eventId, v);
    }
    return v;
  }

  /**
   * The score of the question's n-th served text: one search, kept for THRESHOLD_TTL_MS. Every ingest
   * call reads the whole watchlist, and a search for each watched question each time would cost more
   * than the check (1M texts, HNSW index: ~85 ms per top-50 search). A kept threshold errs on the safe
   * side as texts arrive (new texts only raise the n-th score: more texts are judged, none missed);
   * only removals (quarantines) lower it, by a rank or two per removed text, for a few minutes.
   */
  private async thresholdOf(collection: string, eventId: string, v: Float32Array, n: number): Promise<number> {
    const key = `${collection}\u0000${eventId}\u0000${n}`;
    const now = this.deps.clock.now().getTime();
    const kept = this.thresholds.get(key);
    if (kept && now - kept.at < THRESHOLD_TTL_MS) return kept.score;
    const top = await this.deps.store.search(collection, { vector: v, k: n });
    const score = top.length < n ? -1 : top[n - 1]!.score;
    if (this.thresholds.size >= 10_000) this.thresholds.clear(); // bounded: a watchlist holds at most maxWatched events per collection
    this.thresholds.set(key, { at: now, score });
    return score;
  }

  /** Which of the new texts to hold: those that would enter a watched query's top-N and that the judge says induce its wrong answer. */
  async check(watch: readonly WatchedAttack[], texts: readonly string[], vectors: readonly ArrayLike<number>[]): Promise<{ holds: AdmissionHold[]; judged: number }> {
    const holds: AdmissionHold[] = [];
    let judged = 0;
    if (watch.length === 0) return { holds, judged };
    for (let i = 0; i < texts.length; i++) {
      const v = vectors[i]!;
      let vn = 0;
      for (let d = 0; d < v.length; d++) vn += v[d]! * v[d]!;
      vn = Math.sqrt(vn) || 1;
      for (const w of watch) {
        let q = 0;
        for (let d = 0; d < v.length; d++) q += v[d]! * w.vector[d]!;
        const sim = q / vn;
        // The rank and answer routes judge only a text about the question (see ABOUT_ANSWER); each lexical test runs once.
        const near = sim >= w.threshold;
        const ranks = near && w.about(texts[i]!) > 0;
        const paraphrase = w.seeds.paraphrase(v, texts[i]!, w.paraphraseStates);
        const states = !near && !paraphrase && w.states(texts[i]!) && w.about(texts[i]!) >= ABOUT_ANSWER && sim >= await w.answerThreshold();
        if (!ranks && !paraphrase && !states) continue;
        judged++;
        const verdict = await this.deps.judge.judge({ query: w.query, wrongAnswer: w.wrongAnswer, text: texts[i]!, peers: w.peers });
        // A paraphrase of the texts taken out is held for review whatever the judge says, as the sibling sweep
        // sends one to review: the judge's NO on a rewrite of a confirmed poison is its weakness, not evidence.
        // So is a verdict inside the judge's confidence band (not clear either way), as the decision policy
        // sends band verdicts to review: judge v5, NQ 2447 -> 2480 / 2506 held, clean texts held 3 -> 8 / 195.
        const band = verdict.signals?.confidence === 'band';
        if (verdict.label !== 'YES' && !paraphrase && !band) continue;
        holds.push({
          index: i, eventId: w.eventId, query: w.query, wrongAnswer: w.wrongAnswer, similarity: +sim.toFixed(4), threshold: +w.threshold.toFixed(4), reply: verdict.reply.slice(0, 500),
          route: ranks ? 'rank' : paraphrase ? 'paraphrase' : 'answer', seedSim: paraphrase?.seedSim ?? null, label: verdict.label,
        });
        break;
      }
    }
    return { holds, judged };
  }
}

/**
 * How much of the watched question a text must restate to be judged on the rank and the answer routes
 * (`questionTermShare`: the share of the question's own content terms it contains, the answer's left out).
 * Rank needs one term (a share above 0): in a collection with few texts on a question, its top 50 runs into texts about
 * something else ("Rome is a major archaeological hub" for "where did aeneas go when he left carthage" →
 * Rome), and the judge, given the event's planted texts as peers, reads such a text stating the answer as
 * pushing it. The answer route (below the top 50, within the top 500) needs more than a third: there a text that shares
 * only the answer is common ("Bill Russell (5 time MVP)" for "how many seasons of the oc" → 5). Measured
 * with `eval:audit --only new-texts` (60 questions reported and traced, then 40 new questions' texts and the
 * reported attacks' rewrites in one ingest; offline judge, USE-lite): on PoisonedRAG NQ, genuine new texts held
 * 68 → 4 of 1,899, re-injected rewrites held 1,593 → 1,570 of 1,622. A paraphrase of the seeds (the third
 * route) is close to the planted texts themselves and keeps no such test.
 */
const ABOUT_ANSWER = 0.34;

/** How long a watched question's rank thresholds are kept (see `thresholdOf`). */
const THRESHOLD_TTL_MS = 5 * 60_000;

function unitVector(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return Float32Array.from(v, (x) => x / n);
}
