/**
 * BiRD parameters (BiRD, arXiv 2605.20123, §4, Algorithm 1; defaults k = 20, ε = 2.5 from §5.1,
 * "Implementation Details").
 */
export interface BirdParams {
  /**
   * k: length of the forward ranking R_fw = top-k(q, D) and of every backward ranking
   * R_bw^i = top-k(d_i, D \ {d_i}) (Eq. 4, 6). Longer input lists are truncated to k.
   * Default 20 (paper). Integer in [1, 10000].
   */
  k: number;
  /**
   * ε: threshold on the composite score S (Eq. 10): a text with S > ε is poisoned-looking.
   * Default 2.5. Finite, > 0 (the evidence normalisation divides by it).
   */
  epsilon: number;
}

export const DEFAULT_BIRD_PARAMS: Readonly<BirdParams> = Object.freeze({ k: 20, epsilon: 2.5 });

/** Fill defaults and range-check; throws `RangeError` naming the field. */
export function validateBirdParams(p: Partial<BirdParams> = {}): BirdParams {
  const k = p.k ?? DEFAULT_BIRD_PARAMS.k;
  const epsilon = p.epsilon ?? DEFAULT_BIRD_PARAMS.epsilon;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > 10000) {
    throw new RangeError(`BirdParams.k must be an integer in [1, 10000], got ${String(k)}`);
  }
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon <= 0) {
    throw new RangeError(`BirdParams.epsilon must be a finite number > 0, got ${String(epsilon)}`);
  }
  return { k, epsilon };
}
