import { containsAnswer } from '@forensics/algorithms';

/** A paraphrase is at least this close to one seed even when the seeds are diverse. */
export const PARAPHRASE_FLOOR = 0.5;

/**
 * The texts an attacked event took out of serving (its seeds), as the sibling sweep and the admission
 * check compare candidates with them. A candidate is a **paraphrase of the set** when it is at least
 * as close (cosine) to one seed as the seeds are to each other — their smallest pair, not below the
 * floor — and states the event's wrong answer. One seed alone sets no bar (nothing is a paraphrase).
 */
export class SeedSet {
  private constructor(private readonly seeds: Float32Array[], readonly bar: number) {}

  static of(vectors: readonly ArrayLike<number>[], floor = PARAPHRASE_FLOOR): SeedSet {
    const seeds = vectors.map(unit);
    let minPair = 1;
    for (let a = 0; a < seeds.length; a++) for (let b = a + 1; b < seeds.length; b++) minPair = Math.min(minPair, dot(seeds[a]!, seeds[b]!));
    return new SeedSet(seeds, seeds.length >= 2 ? Math.max(floor, minPair) : Infinity);
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

  /** The candidate's closeness to the seeds when it is a paraphrase of them stating `wrongAnswer`, else null. */
  paraphrase(vector: ArrayLike<number>, text: string, wrongAnswer: string): { seedSim: number; threshold: number } | null {
    if (!this.active || !containsAnswer(text, wrongAnswer)) return null;
    const seedSim = this.similarity(vector);
    return seedSim >= this.bar ? { seedSim: +seedSim.toFixed(4), threshold: +this.bar.toFixed(4) } : null;
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
