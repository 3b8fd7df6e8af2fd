import { affineEmbedding, cosine, mulberry32, pooledNormalizedInput, similarityGradient } from '@forensics/algorithms';
import type { AffineEmbedding } from '@forensics/algorithms';

/*
 * Pure checks of the closed-form ∂s/∂(γ, β) of the last LayerNorm on small synthetic inputs (no
 * model): the integration test test/gradient-probe.test.ts repeats them on a real ONNX graph.
 */
const SEQ = 5;
const H = 6;
const EPS = 1e-5;

const rng = mulberry32(20240607);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const vec = (n: number, scale = 1, offset = 0): Float64Array => Float64Array.from({ length: n }, () => offset + scale * normal());

/** Two rows (query = row 0, passage = row 1) of a [2, SEQ, H] LayerNorm input. */
const LN_INPUT = Float32Array.from({ length: 2 * SEQ * H }, () => 3 * normal() + 0.5);
const MASK_Q = [1, 1, 1, 0, 0];
const MASK_P = [1, 0, 1, 1, 1];
const GAMMA = vec(H, 0.2, 1);
const BETA = vec(H, 0.1);

const xq = pooledNormalizedInput(LN_INPUT, 0, SEQ, H, MASK_Q, EPS).xbar;
const xp = pooledNormalizedInput(LN_INPUT, 1, SEQ, H, MASK_P, EPS).xbar;

/** s with the passage side (and, if shared, the query side) using γ', β'. */
function score(gamma: ArrayLike<number>, beta: ArrayLike<number>, shared: boolean): number {
  const q = shared ? affineEmbedding(xq, gamma, beta) : affineEmbedding(xq, GAMMA, BETA);
  return cosine(q, affineEmbedding(xp, gamma, beta));
}

/** Central differences over every γ_i and β_i: [∂s/∂γ ‖ ∂s/∂β]. */
function finiteDifferences(shared: boolean, h = 1e-6): Float64Array {
  const out = new Float64Array(2 * H);
  for (let k = 0; k < 2 * H; k++) {
    const plus = [Float64Array.from(GAMMA), Float64Array.from(BETA)];
    const minus = [Float64Array.from(GAMMA), Float64Array.from(BETA)];
    const [which, i] = k < H ? [0, k] : [1, k - H];
    plus[which][i] += h;
    minus[which][i] -= h;
    out[k] = (score(plus[0], plus[1], shared) - score(minus[0], minus[1], shared)) / (2 * h);
  }
  return out;
}

describe('pooledNormalizedInput', () => {
  it('averages the LayerNorm-normalised attended tokens only', () => {
    const r = pooledNormalizedInput(LN_INPUT, 1, SEQ, H, MASK_P, EPS);
    expect(r.count).toBe(4);
    const expected = new Float64Array(H);
    for (const t of [0, 2, 3, 4]) {
      const row = Array.from(LN_INPUT.subarray((SEQ + t) * H, (SEQ + t + 1) * H));
      const mean = row.reduce((a, b) => a + b, 0) / H;
      const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / H;
      row.forEach((x, i) => (expected[i] += (x - mean) / Math.sqrt(variance + EPS) / 4));
    }
    expected.forEach((v, i) => expect(r.xbar[i]).toBeCloseTo(v, 6));
    // x̂_t has zero mean over the hidden axis, so x̄ does too.
    expect(r.xbar.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 6);
  });

  it('returns zeros and count 0 for an all-masked row', () => {
    const r = pooledNormalizedInput(LN_INPUT, 0, SEQ, H, [0, 0, 0, 0, 0], EPS);
    expect(r.count).toBe(0);
    expect(Array.from(r.xbar)).toEqual(new Array(H).fill(0));
  });
});

describe('affineEmbedding / cosine', () => {
  it('computes e = γ ⊙ x̄ + β and its unit vector', () => {
    const a: AffineEmbedding = affineEmbedding(xp, GAMMA, BETA);
    for (let i = 0; i < H; i++) expect(a.e[i]).toBeCloseTo(GAMMA[i] * xp[i] + BETA[i], 12);
    expect(Math.hypot(...a.u)).toBeCloseTo(1, 12);
    expect(a.norm).toBeCloseTo(Math.hypot(...a.e), 12);
    expect(cosine(a, a)).toBeCloseTo(1, 12);
  });

  it('rejects γ/β of the wrong width', () => {
    expect(() => affineEmbedding(xp, GAMMA.subarray(1), BETA)).toThrow(/hidden size is 6/);
  });
});

describe('similarityGradient (closed form of ∂s/∂(γ, β))', () => {
  const q = affineEmbedding(xq, GAMMA, BETA);
  const p = affineEmbedding(xp, GAMMA, BETA);

  it.each([
    ['shared encoder (query and passage)', true],
    ['fixed query encoder (passage side only)', false],
  ])('matches central finite differences: %s', (_name, shared) => {
    const g = similarityGradient(q, p, shared);
    expect(g).toHaveLength(2 * H);
    const fd = finiteDifferences(shared);
    for (let k = 0; k < 2 * H; k++) expect(g[k]).toBeCloseTo(fd[k], 5);
  });

  it('the shared gradient is the sum of the two one-sided gradients', () => {
    const passage = similarityGradient(q, p, false);
    const query = similarityGradient(p, q, false); // roles swapped: the query side's contribution
    const shared = similarityGradient(q, p, true);
    for (let k = 0; k < 2 * H; k++) expect(shared[k]).toBeCloseTo(passage[k] + query[k], 6);
  });
});
