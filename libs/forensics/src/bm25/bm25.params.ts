/**
 * Okapi BM25 parameters (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009, Eq. 3.15 family). Defaults k1 = 1.2, b = 0.75, the common textbook values also
 * used by GRADA's BM25 similarity (GRADA, arXiv 2505.07546, §3.1).
 */
export interface Bm25Params {
  /** Term-frequency saturation, ≥ 0 (0 = binary term presence). Default 1.2. */
  k1: number;
  /** Length normalisation, in [0, 1] (0 = none, 1 = full). Default 0.75. */
  b: number;
}

export const DEFAULT_BM25_PARAMS: Readonly<Bm25Params> = Object.freeze({ k1: 1.2, b: 0.75 });

/** Fill defaults and range-check; throws RangeError naming the bad field. */
export function validateBm25Params(p: Partial<Bm25Params> = {}): Bm25Params {
  const out: Bm25Params = { ...DEFAULT_BM25_PARAMS, ...stripUndefined(p) };
  if (!Number.isFinite(out.k1) || out.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${out.k1}`);
  if (!Number.isFinite(out.b) || out.b < 0 || out.b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${out.b}`);
  return out;
}

function stripUndefined<T extends object>(p: T): Partial<T> {
  return Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Partial<T>;
}
