/** A source of uniform numbers in [0, 1). Algorithms take one as a parameter; they never call Math.random. */
export type Rng = () => number;

/**
 * mulberry32: a 32-bit-state PRNG (Tommy Ettinger's public-domain construction), fast and good
 * enough for perturbation sampling; not cryptographic. Same seed → same sequence on every
 * platform (integer maths via Math.imul and unsigned shifts). The seed is taken modulo 2³².
 */
export function mulberry32(seed: number): Rng {
  if (!Number.isFinite(seed)) throw new RangeError(`mulberry32: seed must be a finite number, got ${String(seed)}`);
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}
