import { mulberry32, similarity64, similarityGradient64, tailForward64, tailVjp64 } from '@forensics/algorithms';
import type { LayerNormInput, UseLiteTailParams } from '@forensics/algorithms';

/*
 * Pure checks of the float64 USE-lite tail (LayerNorm → FFN → residual → mean pooling → tanh →
 * l2_normalize) and its closed-form gradient on a tiny random tail (hidden 4, inner 6); the
 * integration test test/use-lite-probe.test.ts repeats them with the real model's weights.
 */
const H = 4;
const I = 6;

const rng = mulberry32(7);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const f32 = (n: number, scale: number, offset = 0): Float32Array => Float32Array.from({ length: n }, () => offset + scale * normal());

const PARAMS: UseLiteTailParams = {
  hidden: H,
  inner: I,
  gamma: f32(H, 0.2, 1),
  beta: f32(H, 0.1),
  epsilon: 1e-6,
  w1: f32(H * I, 0.6),
  b1: f32(I, 0.1),
  w2: f32(I * H, 0.5),
  b2: f32(H, 0.1),
  wh: f32(H * H, 0.5),
  bh: f32(H, 0.1),
  l2Floor: 1e-12,
};
const input = (tokens: number): LayerNormInput => ({ data: Float64Array.from({ length: tokens * H }, () => 2 * normal()), tokens });
const Q = input(3);
const P = input(5);

function finiteDifferences(shared: boolean, h = 1e-6): Float64Array {
  const out = new Float64Array(2 * H);
  for (let k = 0; k < 2 * H; k++) {
    const plus = { gamma: Float64Array.from(PARAMS.gamma), beta: Float64Array.from(PARAMS.beta) };
    const minus = { gamma: Float64Array.from(PARAMS.gamma), beta: Float64Array.from(PARAMS.beta) };
    const key = k < H ? 'gamma' : 'beta';
    plus[key][k % H] += h;
    minus[key][k % H] -= h;
    out[k] = (similarity64(Q, P, PARAMS, plus, shared) - similarity64(Q, P, PARAMS, minus, shared)) / (2 * h);
  }
  return out;
}

describe('tailForward64', () => {
  it('returns a unit-length embedding, tanh outputs in (−1, 1) and the per-token intermediates', () => {
    const fw = tailForward64(P, PARAMS);
    expect(Math.hypot(...fw.f)).toBeCloseTo(1, 12);
    for (const v of fw.e) expect(Math.abs(v)).toBeLessThan(1);
    expect(fw.xhat).toHaveLength(5 * H);
    expect(fw.z).toHaveLength(5 * I);
  });

  it('with no tokens the pooled vector is 0, so e = tanh(bh)', () => {
    const fw = tailForward64({ data: [], tokens: 0 }, PARAMS);
    for (let j = 0; j < H; j++) expect(fw.e[j]).toBeCloseTo(Math.tanh(PARAMS.bh[j]), 12);
  });

  it('an override of γ/β changes the output; the same values as the parameters do not', () => {
    const base = tailForward64(P, PARAMS).f;
    const same = tailForward64(P, PARAMS, { gamma: Array.from(PARAMS.gamma), beta: Array.from(PARAMS.beta) }).f;
    expect(Array.from(same)).toEqual(Array.from(base));
    const moved = tailForward64(P, PARAMS, { gamma: Array.from(PARAMS.gamma, (g) => g * 1.5) }).f;
    expect(Math.max(...Array.from(moved, (v, j) => Math.abs(v - base[j])))).toBeGreaterThan(1e-6);
  });
});

describe('similarityGradient64 (closed form of ∂s/∂(γ, β))', () => {
  it.each([
    ['shared encoder (both sides)', true],
    ['fixed query side (passage only)', false],
  ])('matches central finite differences: %s', (_name, shared) => {
    const { score, gradient } = similarityGradient64(Q, P, PARAMS, shared);
    expect(score).toBeCloseTo(similarity64(Q, P, PARAMS, {}, shared), 12);
    expect(gradient).toHaveLength(2 * H);
    const fd = finiteDifferences(shared);
    for (let k = 0; k < 2 * H; k++) expect(gradient[k]).toBeCloseTo(fd[k], 6);
  });

  it('a text with no tokens gets no gradient from its own side', () => {
    const fw = tailForward64({ data: [], tokens: 0 }, PARAMS);
    expect(Array.from(tailVjp64(fw, 0, tailForward64(Q, PARAMS).f, PARAMS))).toEqual(new Array(2 * H).fill(0));
  });
});
