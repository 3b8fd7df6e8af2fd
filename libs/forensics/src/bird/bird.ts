import { BirdParams, validateBirdParams } from './bird.params';

/** One text of the forward ranking: its id and the retriever's similarity sim(q, d_i). */
export interface BirdForwardHit {
  id: string;
  /** Content relevance r_cr = sim(q, d_i) (Eq. 5), e.g. cosine in [−1, 1]. */
  score: number;
}

export interface BirdInput {
  query: {
    /** R_fw: the retriever's ranking for q, best first. Array order IS the ranking (ties in score keep the given order). */
    forward: BirdForwardHit[];
  };
  /**
   * R_bw^i for every forward candidate: ids ranked for d_i used as the query, best first, d_i
   * excluded (Algorithm 1, line 3). If d_i appears anyway it is skipped. A missing entry is an
   * error (an empty list is allowed: the corpus may hold nothing else).
   */
  backward: Record<string, string[]>;
}

export interface BirdResult {
  id: string;
  /** 1-based position in R_fw. */
  forwardRank: number;
  /** r_cr = sim(q, d_i) (Eq. 5): the forward score as given. */
  contentRelevance: number;
  /** r_cc = ρ(R_fw, R_bw^i) (Eq. 7), in [−1, 1]; 0 when |C| < 2. */
  contextConsistency: number;
  /** |C| = |R_fw ∩ R_bw^i| (Eq. 8). */
  commonSetSize: number;
  /** S = r_cr / (1 − r_cc) (Eq. 9); +Infinity when r_cc = 1. */
  score: number;
  /** S > ε (Eq. 10: clean iff S ≤ ε). */
  suspicious: boolean;
}

export interface SpearmanOverCommon {
  /** ρ in [−1, 1]; 0 when |C| < 2. */
  rho: number;
  /** |C|. */
  commonSetSize: number;
}

function assertUnique(ids: readonly string[], what: string): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new RangeError(`${what} lists id "${id}" twice`);
    seen.add(id);
  }
}

/**
 * Spearman's rank correlation of two rankings over their common set (BiRD, arXiv 2605.20123, §4.3,
 * Eq. 7–8):
 *   C = {d | d ∈ a ∧ d ∈ b},
 *   ρ = 1 − 6·Σ_{d∈C} (r_a(d) − r_b(d))² / (|C|·(|C|² − 1))  if |C| ≥ 2, else 0.
 *
 * Rank choice (the paper leaves it open; this is our choice): r_a and r_b are the ranks
 * **re-ranked 1..|C| within C** (the order of C's members in each list), not the raw positions in
 * the full lists. This keeps ρ in [−1, 1] and makes identical relative order give exactly ρ = 1.
 * Rankings are lists of distinct ids, so there are no rank ties; ρ is symmetric in (a, b).
 */
export function spearmanOverCommon(a: readonly string[], b: readonly string[]): SpearmanOverCommon {
  assertUnique(a, 'spearmanOverCommon: first ranking');
  assertUnique(b, 'spearmanOverCommon: second ranking');
  const inB = new Set(b);
  const commonInA = a.filter((id) => inB.has(id));
  const n = commonInA.length;
  if (n < 2) return { rho: 0, commonSetSize: n };
  const rankA = new Map<string, number>();
  commonInA.forEach((id, i) => rankA.set(id, i + 1));
  let sumSq = 0;
  let rb = 0;
  for (const id of b) {
    const ra = rankA.get(id);
    if (ra === undefined) continue;
    rb += 1;
    sumSq += (ra - rb) ** 2;
  }
  // Σd² and the denominator are integers, so identical order gives exactly 1 (no rounding).
  return { rho: 1 - (6 * sumSq) / (n * (n * n - 1)), commonSetSize: n };
}

/**
 * BiRD scores for the forward ranking of one query (BiRD, arXiv 2605.20123, §4, Algorithm 1).
 *
 * For each d_i in R_fw (first k of `query.forward`):
 * - r_cr = sim(q, d_i), the forward score (Eq. 5; units of the retriever's similarity);
 * - r_cc = ρ(R_fw, R_bw^i) via `spearmanOverCommon` over the first k of `backward[d_i]`
 *   (Eq. 6–8; ranks re-ranked 1..|C| within C; |C| < 2 → 0);
 * - S = r_cr / (1 − r_cc) (Eq. 9). Gap closed (Eq. 9 divides by zero there):
 *   r_cc = 1 → S = +Infinity, maximally suspicious, whatever the sign of r_cr;
 * - suspicious = S > ε (Eq. 10).
 *
 * Results are in forward order. Pure: the backward retrievals are done by the caller (batch and
 * cache them, BiRD §4.5).
 */
export function birdScores(input: BirdInput, params: Partial<BirdParams> = {}): BirdResult[] {
  const { k, epsilon } = validateBirdParams(params);
  const forward = input.query.forward.slice(0, k);
  for (const hit of forward) {
    if (typeof hit.score !== 'number' || !Number.isFinite(hit.score)) {
      throw new RangeError(`birdScores: forward score of "${hit.id}" must be finite, got ${String(hit.score)}`);
    }
  }
  const forwardIds = forward.map((h) => h.id);
  assertUnique(forwardIds, 'birdScores: forward ranking');
  return forward.map((hit, i) => {
    const list = Object.prototype.hasOwnProperty.call(input.backward, hit.id) ? input.backward[hit.id] : undefined;
    if (!Array.isArray(list)) throw new RangeError(`birdScores: backward ranking missing for candidate "${hit.id}"`);
    assertUnique(list, `birdScores: backward ranking of "${hit.id}"`);
    // d_i is excluded from its own backward retrieval (Algorithm 1, line 3); skip it if present.
    const backward = list.filter((id) => id !== hit.id).slice(0, k);
    const { rho, commonSetSize } = spearmanOverCommon(forwardIds, backward);
    const score = rho === 1 ? Number.POSITIVE_INFINITY : hit.score / (1 - rho);
    return {
      id: hit.id,
      forwardRank: i + 1,
      contentRelevance: hit.score,
      contextConsistency: rho,
      commonSetSize,
      score,
      suspicious: score > epsilon,
    };
  });
}
