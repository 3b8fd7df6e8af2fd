/** Seed sets and paraphrase tests of the audits (admission check, sibling sweep): their pure part, no I/O. */
import { polarAnswer, POLAR_MIN_COVERAGE } from '../offline-judge';
import { containsAnswer, contentTerms, stripCitationMarkers } from '../text';

/** A paraphrase is at least this close to one seed even when the seeds are diverse. */
export const PARAPHRASE_FLOOR = 0.5;

/**
 * The texts an attacked event took out of serving (its seeds), as the sibling sweep and the admission
 * check compare candidates with them. A candidate is a **paraphrase of the set** when it is at least
 * as close (cosine) to one seed as the seeds are to each other — their smallest pair, not below the
 * floor — and states the event's wrong answer (`statesAnswer`). One seed alone sets no bar (nothing is a paraphrase).
 */
export class SeedSet {
  private constructor(private readonly seeds: Float32Array[], readonly bar: number) {}

  static of(vectors: readonly ArrayLike<number>[], floor = PARAPHRASE_FLOOR): SeedSet {
    const seeds = vectors.map(unit);
    let minPair = 1;
    for (let a = 0; a < seeds.length; a++) for (let b = a + 1; b < seeds.length; b++) minPair = Math.min(minPair, dot(seeds[a]!, seeds[b]!));
    return new SeedSet(seeds, seeds.length >= 2 ? Math.max(floor, minPair) : Infinity);
  }

  /** Adds an anchor (a sibling judged to induce the answer): candidates close to it count as paraphrases; the bar stays the seeds'. */
  anchor(vector: ArrayLike<number>): void {
    if (this.active) this.seeds.push(unit(vector));
  }

  /** Whether any candidate can be a paraphrase (at least two seeds). */
  get active(): boolean { return this.bar !== Infinity; }

  /** The highest cosine between `v` and a seed (-1 with no seeds). */
  similarity(v: ArrayLike<number>): number {
    let n = 0;
    for (let d = 0; d < v.length; d++) n += v[d]! * v[d]!;
    n = Math.sqrt(n) || 1;
    let best = -1;
    for (const s of this.seeds) {
      let x = 0;
      for (let d = 0; d < v.length; d++) x += v[d]! * s[d]!;
      best = Math.max(best, x / n);
    }
    return best;
  }

  /** The candidate's closeness to the seeds when it is a paraphrase of them that `states` the wrong answer (see `statesAnswer`), else null. */
  paraphrase(vector: ArrayLike<number>, text: string, states: (text: string) => boolean): { seedSim: number; threshold: number } | null {
    if (!this.active) return null;
    // The dot products first: the admission check asks this of every (new text, watched event) pair, and
    // few are close to the seeds; the lexical filter normalises the whole text.
    const seedSim = this.similarity(vector);
    if (seedSim < this.bar || !states(text)) return null;
    return { seedSim: +seedSim.toFixed(4), threshold: +this.bar.toFixed(4) };
  }
}

function unit(v: ArrayLike<number>): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n) || 1;
  return Float32Array.from(v as ArrayLike<number>, (x) => x / n);
}

function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}

/**
 * Whether a text states an event's wrong answer, as the audits' lexical filters ask it (the admission
 * check's answer route, the paraphrase test of the sweep and the admission check): the text contains the
 * answer (token-boundary match), its reference marks ("[2]") left out as the judge leaves them out (in the
 * production-shape bench they sent passages about other TV series to review for a watched wrong answer '2'). A yes/no answer is not a word a text contains ("Silene is not a plant"
 * answers 'no' without the word): there the filter is the proposition instead — the text restates at
 * least half of the question's terms, as the offline judge asks of a stance (POLAR_MIN_COVERAGE).
 */
export function statesAnswer(query: string, wrongAnswer: string): (text: string) => boolean {
  if (!polarAnswer(wrongAnswer)) return (text) => containsAnswer(stripCitationMarkers(text), wrongAnswer);
  const q = [...new Set(contentTerms(query))];
  return (text) => {
    if (q.length === 0) return false;
    const t = new Set(contentTerms(text));
    return q.filter((x) => t.has(x)).length / q.length >= POLAR_MIN_COVERAGE;
  };
}

/**
 * The sibling sweep's filter for its paraphrase route, which sends a text to review even when the judge
 * says NO: `statesAnswer`, except for a 'yes' answer. An on-topic passage affirms by default (the judge reads
 * a stance without a negation as 'yes'), so for 'yes' restating the question is no sign of stating the
 * answer and the route stays closed (a text must contain the word); for 'no' it is, and the judge often
 * misses the stance (a contrast instead of a negation: "X is a cactus. Y, on the other hand, is a fish").
 * Measured with the sweep's evaluation: HotpotQA 0.932 → 0.959 of the planted rewrites found, clean texts
 * to review unchanged (20); NQ 0.966 → 0.969, unchanged (91); with 'yes' included too, NQ 0.970 but 130 clean
 * texts to review (its two 'yes' questions brought 34).
 */
export function paraphraseStates(query: string, wrongAnswer: string): (text: string) => boolean {
  return polarAnswer(wrongAnswer) === 'yes' ? (text) => containsAnswer(text, wrongAnswer) : statesAnswer(query, wrongAnswer);
}

/**
 * The share of a question's own content terms (the wrong answer's left out) that a text contains: whether it is
 * ABOUT the question, which a similarity score alone does not say in a collection with few texts on the question
 * (there a question's 50th or 500th text is about something else). A targeted poison must be retrieved for the
 * question, so it restates the question's subject ("The O.C. ran for 5 seasons"); a genuine passage that only
 * shares the answer ("Bill Russell (5 time MVP)" for "how many seasons of the oc are there" → 5) does not.
 * 1 when the question has no term of its own.
 */
export function questionTermShare(query: string, wrongAnswer: string): (text: string) => number {
  const answer = new Set(contentTerms(foldAcronyms(wrongAnswer)));
  const q = [...new Set(contentTerms(foldAcronyms(query)))].filter((t) => !answer.has(t));
  return (text) => {
    if (q.length === 0) return 1;
    const t = new Set(contentTerms(foldAcronyms(text)));
    return q.filter((x) => t.has(x)).length / q.length;
  };
}

/** "The O.C." → "The OC": a dotted acronym is one term, as a question typed without the dots ("the oc") has it. */
function foldAcronyms(text: string): string {
  return text.replace(/\b(?:[A-Za-z]\.){2,}/g, (m) => m.replace(/\./g, ''));
}
