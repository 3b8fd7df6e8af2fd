/**
 * Approximate k-NN lists for a corpus-wide self-join (the cluster scan on large collections), by
 * random-hyperplane LSH (SimHash): `tables` hash tables of `bits` signs each; two texts are compared
 * only when they share a bucket in some table, then scored exactly (cosine). The probability that a
 * pair with angle θ shares a bucket in one table is (1 − θ/π)^bits, so near-duplicates (cos ≥ 0.85:
 * ≈ 0.92 over 24 tables of 12 bits) are found while unrelated pairs are rarely compared.
 *
 * Why ours and not the store's ANN search: the store's index is tuned for one query's top-K with high
 * recall (many probes, exact refine), ~20–30 ms a query on 2 cores — 100k queries are ~40 minutes.
 * The scan needs only each text's near-duplicates, which bucket collisions find in one pass; and new
 * texts are added to the same tables, so an incremental scan compares only them (`LshIndex.add`).
 * Buckets larger than `maxBucket` (a dense region, e.g. boilerplate) are sampled, not scanned whole.
 */
import type { KnnList } from './cluster-scan';

export interface LshParams { tables: number; bits: number; maxBucket: number; seed: number }
export const DEFAULT_LSH_PARAMS: Readonly<LshParams> = Object.freeze({ tables: 24, bits: 12, maxBucket: 64, seed: 7 });

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

interface BucketTable { get(sig: number): number[] | undefined; set(sig: number, ids: number[]): unknown }

class ArrayBuckets implements BucketTable {
  private readonly slots: (number[] | undefined)[];
  constructor(bits: number) { this.slots = new Array(1 << bits); }
  get(sig: number): number[] | undefined { return this.slots[sig]; }
  set(sig: number, ids: number[]): void { this.slots[sig] = ids; }
}

export class LshIndex {
  private readonly planes: Float32Array; // tables × bits × dim
  // One bucket table per hash table: a dense array indexed by signature (2^bits slots) up to 16 bits — array
  // indexing is several times cheaper than a Map at 100k texts × 24 tables — else a Map.
  private readonly buckets: BucketTable[];
  private readonly vectors: Float32Array[] = [];
  private readonly sigs: number[][] = [];
  readonly p: LshParams;

  constructor(readonly dim: number, params: Partial<LshParams> = {}) {
    this.p = { ...DEFAULT_LSH_PARAMS, ...params };
    if (this.p.bits < 1 || this.p.bits > 30) throw new RangeError('bits must be in [1, 30]');
    const r = prng(this.p.seed);
    const n = this.p.tables * this.p.bits * dim;
    this.planes = new Float32Array(n);
    for (let i = 0; i < n; i++) this.planes[i] = r() * 2 - 1;
    this.buckets = Array.from({ length: this.p.tables }, () => (this.p.bits <= 16 ? new ArrayBuckets(this.p.bits) : new Map<number, number[]>()));
  }

  get size(): number { return this.vectors.length; }

  private signatures(v: Float32Array): number[] {
    const { tables, bits } = this.p;
    const out: number[] = new Array(tables);
    let off = 0;
    for (let t = 0; t < tables; t++) {
      let sig = 0;
      for (let b = 0; b < bits; b++) {
        let dot = 0;
        for (let d = 0; d < this.dim; d++) dot += this.planes[off + d]! * v[d]!;
        off += this.dim;
        if (dot >= 0) sig |= 1 << b;
      }
      out[t] = sig;
    }
    return out;
  }

  /** The bucket signatures of an added vector (one per table): what a caller keeps to re-add it later without the projections. */
  signatureOf(id: number): readonly number[] { return this.sigs[id]!; }

  /**
   * Adds vectors (normalised here); returns their indexes. `known[x]`, when given with one entry per
   * table, is vector x's signature from an index with the same parameters and dimension (kept from an
   * earlier run): the 288 projections per vector are skipped, which is most of the cost of indexing.
   */
  add(vectors: readonly ArrayLike<number>[], known?: readonly (readonly number[] | undefined)[]): number[] {
    const ids: number[] = [];
    for (const [x, raw] of vectors.entries()) {
      const v = new Float32Array(raw); // a typed copy (Float32Array.from would walk an iterator: several times slower)
      let n = 0;
      for (let d = 0; d < v.length; d++) n += v[d]! * v[d]!;
      n = Math.sqrt(n) || 1;
      for (let d = 0; d < v.length; d++) v[d]! /= n;
      const id = this.vectors.length;
      this.vectors.push(v);
      const given = known?.[x];
      const sigs = given && given.length === this.p.tables ? [...given] : this.signatures(v);
      this.sigs.push(sigs);
      for (let t = 0; t < sigs.length; t++) {
        const table = this.buckets[t]!;
        const b = table.get(sigs[t]!);
        if (b) b.push(id); else table.set(sigs[t]!, [id]);
      }
      ids.push(id);
    }
    return ids;
  }

  /** The k nearest indexed vectors of each of `ids` (itself excluded), best first, among bucket-mates. */
  knn(ids: readonly number[], k: number): KnnList[] {
    const { maxBucket } = this.p;
    const out: KnnList[] = [];
    const seen = new Int32Array(this.vectors.length).fill(-1);
    for (const i of ids) {
      const v = this.vectors[i]!;
      const sigs = this.sigs[i]!;
      const cand: number[] = [];
      sigs.forEach((sig, t) => {
        const b = this.buckets[t]!.get(sig);
        if (!b) return;
        const step = b.length > maxBucket ? b.length / maxBucket : 1;
        for (let x = 0; x < b.length; x += step) {
          const j = b[Math.floor(x)]!;
          if (j !== i && seen[j] !== i) { seen[j] = i; cand.push(j); }
        }
      });
      const scored = cand.map((j) => {
        const w = this.vectors[j]!;
        let dot = 0;
        for (let d = 0; d < this.dim; d++) dot += v[d]! * w[d]!;
        return { j, s: dot };
      }).sort((a, b) => b.s - a.s || a.j - b.j).slice(0, k);
      out.push({ j: scored.map((x) => x.j), s: scored.map((x) => x.s) });
    }
    return out;
  }
}
