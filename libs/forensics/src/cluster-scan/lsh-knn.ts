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
  // Every added vector's signatures, `tables` per vector, in one growing buffer (100k small arrays cost GC time).
  private sigs = new Uint32Array(0);
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

  private signatures(v: Float32Array, out: Uint32Array): void {
    const { tables, bits } = this.p;
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
  }

  /** The bucket signatures of an added vector (one per table; a view): what a caller keeps to re-add it later without the projections. */
  signatureOf(id: number): Uint32Array { return this.sigs.subarray(id * this.p.tables, (id + 1) * this.p.tables); }

  /**
   * Adds vectors; returns their indexes. A unit-length Float32Array is kept as given (never written
   * to), any other vector as a normalised copy. `known[x]`, when given with one entry per table, is
   * vector x's signature from an index with the same parameters and dimension (kept from an earlier
   * run): the 288 projections per vector are skipped, which is most of the cost of indexing.
   */
  add(vectors: readonly ArrayLike<number>[], known?: readonly (ArrayLike<number> | undefined)[]): number[] {
    const { tables } = this.p;
    const first = this.vectors.length;
    if (this.sigs.length < (first + vectors.length) * tables) {
      const grown = new Uint32Array(Math.max((first + vectors.length) * tables, this.sigs.length * 2));
      grown.set(this.sigs);
      this.sigs = grown;
    }
    const ids: number[] = new Array(vectors.length);
    for (let x = 0; x < vectors.length; x++) {
      const raw = vectors[x]!;
      let n = 0;
      for (let d = 0; d < raw.length; d++) n += raw[d]! * raw[d]!;
      let v: Float32Array;
      if (raw instanceof Float32Array && Math.abs(n - 1) < 1e-6) v = raw;
      else {
        v = new Float32Array(raw); // a typed copy (Float32Array.from would walk an iterator: several times slower)
        const inv = 1 / (Math.sqrt(n) || 1);
        for (let d = 0; d < v.length; d++) v[d]! *= inv;
      }
      const id = first + x;
      this.vectors.push(v);
      const sig = this.sigs.subarray(id * tables, (id + 1) * tables);
      const given = known?.[x];
      if (given && given.length === tables) sig.set(given); else this.signatures(v, sig);
      for (let t = 0; t < tables; t++) {
        const table = this.buckets[t]!;
        const b = table.get(sig[t]!);
        if (b) b.push(id); else table.set(sig[t]!, [id]);
      }
      ids[x] = id;
    }
    return ids;
  }

  /** The k nearest indexed vectors of each of `ids` (itself excluded), best first (ties by index), among bucket-mates. */
  knn(ids: readonly number[], k: number): KnnList[] {
    const { maxBucket, tables } = this.p;
    const dim = this.dim;
    const out: KnnList[] = [];
    const seen = new Int32Array(this.vectors.length).fill(-1);
    // Candidates, their cosines and the running top k in flat arrays reused across queries: no object
    // per candidate and no sort of all of them (~650 candidates a query at 100k texts; k is 20).
    const cand = new Int32Array(tables * (maxBucket + 1));
    const topJ = new Int32Array(k);
    const topS = new Float64Array(k);
    for (const i of ids) {
      const v = this.vectors[i]!;
      const sigs = this.signatureOf(i);
      let c = 0;
      for (let t = 0; t < tables; t++) {
        const b = this.buckets[t]!.get(sigs[t]!);
        if (!b) continue;
        const step = b.length > maxBucket ? b.length / maxBucket : 1;
        for (let x = 0; x < b.length; x += step) {
          const j = b[Math.floor(x)]!;
          if (j !== i && seen[j] !== i) { seen[j] = i; cand[c++] = j; }
        }
      }
      let n = 0;
      for (let x = 0; x < c; x++) {
        const j = cand[x]!;
        const w = this.vectors[j]!;
        let dot = 0;
        for (let d = 0; d < dim; d++) dot += v[d]! * w[d]!;
        // Insert into the top k (best first; equal cosines by index, as a full sort would order them).
        if (n === k && (dot < topS[k - 1]! || (dot === topS[k - 1]! && j > topJ[k - 1]!))) continue;
        let at = n < k ? n++ : k - 1;
        while (at > 0 && (topS[at - 1]! < dot || (topS[at - 1]! === dot && topJ[at - 1]! > j))) { topS[at] = topS[at - 1]!; topJ[at] = topJ[at - 1]!; at--; }
        topS[at] = dot; topJ[at] = j;
      }
      out.push({ j: Array.from(topJ.subarray(0, n)), s: Array.from(topS.subarray(0, n)) });
    }
    return out;
  }
}
