/**
 * GRADA parameters (GRADA, arXiv 2505.07546, §3). Defaults from the paper: HRSIM over BM25
 * (§4.1, "Defense setup"), α = 0.4 (§4.2, "Impact of α and M"), d = 0.85 and uniform s* (§3.2),
 * n = 5 of M = 10 retrieved (§4.1); the convergence tolerance and the round cap are ours (the
 * paper iterates "to a stationary score distribution").
 */
export type GradaSimilarity = 'hrsim' | 'd2dsim-ebd' | 'd2dsim-bm25';

export interface GradaParams {
  /**
   * Edge weight w_ij (GRADA, arXiv 2505.07546, §3.1):
   * - 'd2dsim-ebd': cosine of the text vectors, negatives clamped to 0;
   * - 'd2dsim-bm25': ½(BM25(v_i, v_j) + BM25(v_j, v_i)), BM25 index over the candidate pool;
   * - 'hrsim' (default, strongest in the paper): max(sim(v_i,v_j) − α·(sim(v_i,q) + sim(v_j,q)), 0).
   */
  similarity: GradaSimilarity;
  /** sim(·,·) inside HRSIM: 'bm25' (default, as in the paper) or 'embedding' (cosine; needs vectors and queryVector). */
  hrsimBase: 'bm25' | 'embedding';
  /** α: HRSIM query-similarity penalty. Default 0.4 (paper, Fig. 4). Finite, ≥ 0. */
  alpha: number;
  /** d: PageRank damping factor (Eq. 1). Default 0.85. In [0, 1). */
  damping: number;
  /** Convergence: stop when the L1 change of the score vector is < tolerance. Default 1e-9. Finite, > 0. */
  tolerance: number;
  /** Hard cap on propagation rounds. Default 100. Integer in [1, 100000]. */
  maxIterations: number;
  /** n: texts kept after reranking. Default 5 (paper). Integer ≥ 1; the pool must hold M ≥ 2n texts. */
  n: number;
}

export const DEFAULT_GRADA_PARAMS: Readonly<GradaParams> = Object.freeze({
  similarity: 'hrsim',
  hrsimBase: 'bm25',
  alpha: 0.4,
  damping: 0.85,
  tolerance: 1e-9,
  maxIterations: 100,
  n: 5,
});

const SIMILARITIES: readonly GradaSimilarity[] = ['hrsim', 'd2dsim-ebd', 'd2dsim-bm25'];

/** Fill defaults and range-check; throws `RangeError` naming the field. */
export function validateGradaParams(p: Partial<GradaParams> = {}): GradaParams {
  const d = DEFAULT_GRADA_PARAMS;
  const out: GradaParams = {
    similarity: p.similarity ?? d.similarity,
    hrsimBase: p.hrsimBase ?? d.hrsimBase,
    alpha: p.alpha ?? d.alpha,
    damping: p.damping ?? d.damping,
    tolerance: p.tolerance ?? d.tolerance,
    maxIterations: p.maxIterations ?? d.maxIterations,
    n: p.n ?? d.n,
  };
  if (!SIMILARITIES.includes(out.similarity)) throw new RangeError(`GradaParams.similarity must be one of ${SIMILARITIES.join(', ')}, got ${String(out.similarity)}`);
  if (out.hrsimBase !== 'bm25' && out.hrsimBase !== 'embedding') throw new RangeError(`GradaParams.hrsimBase must be 'bm25' or 'embedding', got ${String(out.hrsimBase)}`);
  if (!Number.isFinite(out.alpha) || out.alpha < 0) throw new RangeError(`GradaParams.alpha must be a finite number ≥ 0, got ${String(out.alpha)}`);
  if (!Number.isFinite(out.damping) || out.damping < 0 || out.damping >= 1) throw new RangeError(`GradaParams.damping must be in [0, 1), got ${String(out.damping)}`);
  if (!Number.isFinite(out.tolerance) || out.tolerance <= 0) throw new RangeError(`GradaParams.tolerance must be a finite number > 0, got ${String(out.tolerance)}`);
  if (!Number.isInteger(out.maxIterations) || out.maxIterations < 1 || out.maxIterations > 100000) {
    throw new RangeError(`GradaParams.maxIterations must be an integer in [1, 100000], got ${String(out.maxIterations)}`);
  }
  if (!Number.isInteger(out.n) || out.n < 1) throw new RangeError(`GradaParams.n must be an integer ≥ 1, got ${String(out.n)}`);
  return out;
}
