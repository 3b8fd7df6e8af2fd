/**
 * Quantile with linear interpolation between order statistics (Hyndman & Fan type 7, numpy's
 * default `method='linear'`): sort ascending x_0 ≤ … ≤ x_{N−1}, h = (N − 1)·p,
 *   Q(p) = x_⌊h⌋ + (h − ⌊h⌋)·(x_⌊h⌋+1 − x_⌊h⌋).
 * p is clamped to [0, 1]. Throws on an empty sample or non-finite values.
 */
export function quantileLinear(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) throw new RangeError('quantileLinear: empty sample');
  if (Number.isNaN(p)) throw new RangeError('quantileLinear: p is NaN');
  const sorted = Array.from(values);
  for (const v of sorted) if (!Number.isFinite(v)) throw new RangeError(`quantileLinear: values must be finite, got ${v}`);
  sorted.sort((a, b) => a - b);
  return interpolate(sorted, (n - 1) * Math.min(1, Math.max(0, p)));
}

/** Linear interpolation of a sorted array at fractional index h ∈ [0, N − 1]. */
export function interpolate(sorted: readonly number[], h: number): number {
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}
