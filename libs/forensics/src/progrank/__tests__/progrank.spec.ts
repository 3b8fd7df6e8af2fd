import {
  DEFAULT_PROGRANK_PARAMS,
  DEFAULT_TOKEN_DROPOUT_RATE,
  gateCenter,
  mulberry32,
  probeStatistics,
  progrankScores,
  quantileLinear,
  selectProbeSet,
  tokenDropout,
  tokenDropoutMask,
  validateProgrankParams,
} from '@forensics/algorithms';
import type { ProgrankInput } from '@forensics/algorithms';

const f32 = (...xs: number[][]): Float32Array[] => xs.map((x) => Float32Array.from(x));
const sigma = (x: number): number => 1 / (1 + Math.exp(-x));

/*
 * Hand example, R = 4 runs, 2-d gradients, τ = 0.1, α = 4, C = 6, ε = 1e-8.
 * Gate: corpusScores = 0.1 … 0.9 (|D| = 9) → m = ⌈√9⌉ = 3, level 1 − 3/9 = 2/3,
 *   h = 8·2/3 = 5.333 → μ = x5 + 0.333·(x6 − x5) = 0.6 + 0.0333 = 0.633333.
 * A (s = 0.9): g_r = (1,0) ×4 → ḡ = (1,0), Rep = 1/(1+ε) ≈ 1, P_rep ≈ 0; dev_r = 0 → c = 1 → P_dr = 0.
 *   w = σ(0.266667) = 0.566274; ŝ ≈ 0.9.
 * B (s = 0.8): g = (2,0),(0,0),(2,0),(0,0) → ḡ = (1,0), ||ḡ||² = 1, mean ||g||² = 2 → Rep = 0.5,
 *   P_rep = ln 2 = 0.693147; dev_r = 1 for all runs → c_r = e^−4 = 0.0183156 = c;
 *   P̃ = 4/e^−4 = 218.3926; P_dr = 6·218.3926/224.3926 = 5.839567;
 *   w = σ(0.166667) = 0.541570; ŝ = 0.8 − 0.541570·6.532714 = −2.737925.
 * C (s = 0.7): g = (1,0),(1,0),(1,0),(1,2) → ḡ = (1,0.5), ||ḡ||² = 1.25, mean ||g||² = (1+1+1+5)/4 = 2
 *   → Rep = 0.625, P_rep = −ln 0.625 = 0.470004;
 *   dev_1..3 = 0.5/√1.25 = 0.447214 → c = e^−1.788854 = 0.167152; dev_4 = 1.5/√1.25 = 1.341641
 *   → c = e^−5.366563 = 0.004670; τ = 0.1 quantile of [0.004670, 0.167152 ×3]: h = 3·0.1 = 0.3
 *   → c = 0.004670 + 0.3·0.162481 = 0.053415; P̃ = 2.929627/0.053415 = 54.8478;
 *   P_dr = 6·54.8478/60.8478 = 5.408360; w = σ(0.066667) = 0.516660; ŝ = 0.7 − 0.516660·5.878363 = −2.337118.
 * D (s = 0.2): not probed → penalty 0, ŝ = 0.2; w = σ(−0.433333) = 0.393331.
 * Rank after: A (0.9), D (0.2), C (−2.34), B (−2.74).
 */
const input: ProgrankInput = {
  candidates: [
    { id: 'A', score: 0.9, gradients: f32([1, 0], [1, 0], [1, 0], [1, 0]) },
    { id: 'B', score: 0.8, gradients: f32([2, 0], [0, 0], [2, 0], [0, 0]) },
    { id: 'C', score: 0.7, gradients: f32([1, 0], [1, 0], [1, 0], [1, 2]) },
    { id: 'D', score: 0.2 },
  ],
  corpusScores: [0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6],
};
const params = { runs: 4 };

describe('quantileLinear (numpy linear / type 7)', () => {
  it('pins hand values', () => {
    expect(quantileLinear([3, 1, 2, 4], 0.5)).toBeCloseTo(2.5, 12);
    expect(quantileLinear([10, 20], 0.1)).toBeCloseTo(11, 12);
    expect(quantileLinear([5], 0.3)).toBe(5);
    expect(quantileLinear([1, 2, 3], -1)).toBe(1);
    expect(quantileLinear([1, 2, 3], 2)).toBe(3);
    expect(() => quantileLinear([], 0.5)).toThrow(/empty/);
  });
});

describe('gateCenter (Eq. 11)', () => {
  it('μ = Quantile_{1−m/|D|}, m = ⌈√|D|⌉', () => {
    expect(gateCenter(input.corpusScores)).toBeCloseTo(0.633333, 6);
    // m = 1: level 8/9, h = 8·8/9 = 7.111 → 0.8 + 0.111·0.1 = 0.811111.
    expect(gateCenter(input.corpusScores, { gateM: 1 })).toBeCloseTo(0.811111, 6);
  });
  it('pool smaller than the gate size: level clamped to 0, μ = min', () => {
    expect(gateCenter([0.5, 0.3], { gateM: 5 })).toBe(0.3);
    // |D| = 1: m = 1, level 1 − 1/1 = 0 → the only score.
    expect(gateCenter([0.42])).toBe(0.42);
  });
  it('corpusSize > pool: top-B scores of a larger D', () => {
    // |D| = 4, m = 2, level 0.5: full D ascending [x, 0.7, 0.8, 0.9], h = 1.5 → 0.75 whatever x is.
    expect(gateCenter([0.9, 0.8, 0.7], { corpusSize: 4 })).toBeCloseTo(0.75, 12);
    // |D| = 100, m = 10: j = 10·99/100 = 9.9 > B − 1 = 2 → clamped to the pool minimum.
    expect(gateCenter([0.9, 0.8, 0.7], { corpusSize: 100 })).toBe(0.7);
    // corpusSize = B gives the plain quantile.
    expect(gateCenter([0.9, 0.8, 0.7], { corpusSize: 3 })).toBeCloseTo(quantileLinear([0.9, 0.8, 0.7], 1 - 2 / 3), 12);
    expect(() => gateCenter([0.9, 0.8], { corpusSize: 1 })).toThrow(/corpusSize/);
    expect(() => gateCenter([])).toThrow(/empty/);
  });
});

describe('probeStatistics (Eq. 4–10)', () => {
  it('pins candidate C by hand', () => {
    const st = probeStatistics(input.candidates[2].gradients!, params);
    expect(st.rep).toBeCloseTo(0.625, 7);
    expect(st.pRep).toBeCloseTo(0.470004, 6);
    expect(st.dispersion).toBeCloseTo(0.053415, 6);
    expect(st.pDr).toBeCloseTo(5.40836, 4);
  });
  it('perfectly stable gradients give no penalty; all-zero gradients give Rep = 0', () => {
    const stable = probeStatistics(f32([0.3, -0.4], [0.3, -0.4], [0.3, -0.4]));
    expect(stable.rep).toBeCloseTo(1, 6);
    expect(stable.pRep).toBeCloseTo(0, 6);
    expect(stable.dispersion).toBe(1);
    expect(stable.pDr).toBe(0);
    const zero = probeStatistics(f32([0, 0], [0, 0]));
    expect(zero.rep).toBe(0);
    expect(zero.pRep).toBeCloseTo(-Math.log(1e-8), 8);
  });
  it('ranges: Rep ∈ [0,1], c ∈ (0,1], P_dr ∈ [0, C) on random gradients', () => {
    const rng = mulberry32(7);
    for (let t = 0; t < 50; t++) {
      const gs = Array.from({ length: 5 }, () => Float32Array.from({ length: 6 }, () => rng() * 2 - 1));
      const st = probeStatistics(gs);
      expect(st.rep).toBeGreaterThanOrEqual(0);
      expect(st.rep).toBeLessThanOrEqual(1);
      expect(st.dispersion).toBeGreaterThan(0);
      expect(st.dispersion).toBeLessThanOrEqual(1);
      expect(st.pDr).toBeGreaterThanOrEqual(0);
      expect(st.pDr).toBeLessThan(6);
      // Permuting the runs changes nothing (mean, norms and the quantile are order-free).
      const back = probeStatistics([...gs].reverse());
      expect(back.rep).toBeCloseTo(st.rep, 12);
      expect(back.pDr).toBeCloseTo(st.pDr, 10);
    }
  });
  it('rejects ragged or non-finite gradients', () => {
    expect(() => probeStatistics([Float32Array.from([1, 2]), Float32Array.from([1])])).toThrow(/length/);
    expect(() => probeStatistics([Float32Array.from([Number.NaN])])).toThrow(/finite/);
    expect(() => probeStatistics([])).toThrow(/no gradients/);
  });
});

describe('progrankScores (Eq. 11–13)', () => {
  const r = progrankScores(input, params);
  const by = Object.fromEntries(r.map((x) => [x.id, x]));

  it('pins the hand example', () => {
    expect(r.map((x) => x.id)).toEqual(['A', 'B', 'C', 'D']);
    expect(by.A.gateWeight).toBeCloseTo(0.566274, 6);
    expect(by.A.penalty).toBeCloseTo(0, 6);
    expect(by.A.defendedScore).toBeCloseTo(0.9, 6);
    expect(by.B.rep).toBeCloseTo(0.5, 7);
    expect(by.B.pRep).toBeCloseTo(Math.LN2, 7);
    expect(by.B.dispersion).toBeCloseTo(Math.exp(-4), 7);
    expect(by.B.pDr).toBeCloseTo(5.839567, 5);
    expect(by.B.gateWeight).toBeCloseTo(0.54157, 5);
    expect(by.B.defendedScore).toBeCloseTo(-2.737925, 5);
    expect(by.C.defendedScore).toBeCloseTo(-2.337118, 4);
    expect(by.D).toMatchObject({ probed: false, rep: null, pRep: null, dispersion: null, pDr: null, penalty: 0, defendedScore: 0.2 });
    expect(by.D.gateWeight).toBeCloseTo(0.393331, 6);
    expect(r.map((x) => [x.id, x.rankBefore, x.rankAfter])).toEqual([['A', 1, 1], ['B', 2, 4], ['C', 3, 3], ['D', 4, 2]]);
  });

  it('ŝ = s − w·(P_rep + P_dr) and the gate weight is σ(s − μ) for every text', () => {
    for (const x of r) {
      expect(x.gateWeight).toBeCloseTo(sigma(x.score - 0.633333333333), 10);
      expect(x.defendedScore).toBeCloseTo(x.score - x.penalty, 12);
      if (x.probed) expect(x.penalty).toBeCloseTo(x.gateWeight * (x.pRep! + x.pDr!), 12);
    }
  });

  it('ties on base score keep input order; candidate order does not change per-id values', () => {
    const tie = progrankScores({ candidates: [{ id: 'x', score: 0.5 }, { id: 'y', score: 0.5 }], corpusScores: [0.5, 0.5] }, params);
    expect(tie.map((x) => [x.rankBefore, x.rankAfter])).toEqual([[1, 1], [2, 2]]);
    expect(tie[0].gateWeight).toBe(0.5);
    const rev = progrankScores({ ...input, candidates: [...input.candidates].reverse() }, params);
    for (const x of rev) {
      expect(x.defendedScore).toBeCloseTo(by[x.id].defendedScore, 12);
      expect(x.rankAfter).toBe(by[x.id].rankAfter);
    }
  });

  it('a pool smaller than the gate size gates everything in', () => {
    const small = progrankScores({ candidates: [{ id: 'p', score: 0.4, gradients: f32([2, 0], [0, 0]) }], corpusScores: [0.4, 0.3] }, { runs: 2, gateM: 10 });
    // μ = min = 0.3 → w = σ(0.1) = 0.524979; Rep = 1/2, dev = 1, c = e^−4 → same P_rep and P_dr as B.
    expect(small[0].gateWeight).toBeCloseTo(0.524979, 6);
    expect(small[0].penalty).toBeCloseTo(0.524979 * (Math.LN2 + 5.839567), 5);
  });

  it('gate temperature sharpens w (T = 1 is the paper)', () => {
    const sharp = progrankScores(input, { ...params, gateTemperature: 0.05 });
    expect(sharp.find((x) => x.id === 'A')!.gateWeight).toBeCloseTo(sigma(0.266667 / 0.05), 5);
    expect(sharp.find((x) => x.id === 'D')!.gateWeight).toBeLessThan(1e-3);
  });

  it('validates params and input', () => {
    expect(DEFAULT_PROGRANK_PARAMS).toEqual({ runs: 20, tau: 0.1, alpha: 4, capC: 6, eps: 1e-8, gateTemperature: 1 });
    expect(() => progrankScores(input)).toThrow(/has 4 gradient runs, params.runs is 20/);
    expect(() => validateProgrankParams({ tau: 1 })).toThrow(/tau/);
    expect(() => validateProgrankParams({ alpha: 0 })).toThrow(/alpha/);
    expect(() => validateProgrankParams({ capC: -1 })).toThrow(/capC/);
    expect(() => validateProgrankParams({ eps: 0 })).toThrow(/eps/);
    expect(() => validateProgrankParams({ runs: 0 })).toThrow(/runs/);
    expect(() => validateProgrankParams({ gateM: 0 })).toThrow(/gateM/);
    expect(() => progrankScores({ candidates: [{ id: 'a', score: 1 }, { id: 'a', score: 1 }], corpusScores: [1] })).toThrow(/twice/);
  });
});

describe('selectProbeSet (§3.5)', () => {
  it('picks s ≥ μ (w ≥ ½) plus the top-K, best first', () => {
    // scores 0.1 … 0.9 shuffled; μ = 0.633 → 0.9, 0.8, 0.7 (indices 2, 6, 4).
    const scores = [0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6];
    expect(selectProbeSet(scores)).toEqual([2, 6, 4]);
    expect(selectProbeSet(scores, { topK: 5 })).toEqual([2, 6, 4, 8, 0]);
    expect(selectProbeSet(scores, { maxProbes: 2 })).toEqual([2, 6]);
    expect(selectProbeSet(scores, { minGateWeight: 0 })).toHaveLength(9);
    expect(selectProbeSet([])).toEqual([]);
    // Pool smaller than the gate: μ = min, everything is probed; ties keep the lower index.
    expect(selectProbeSet([0.3, 0.3, 0.5], { gateM: 10 })).toEqual([2, 0, 1]);
    expect(() => selectProbeSet(scores, { minGateWeight: 2 })).toThrow(/minGateWeight/);
  });
});

describe('mulberry32 and token dropout', () => {
  // Independent oracle: the same recurrence in exact BigInt arithmetic mod 2³².
  function reference(seed: number, count: number): number[] {
    const M = 1n << 32n;
    const imul = (a: bigint, b: bigint): bigint => (a * b) % M;
    let s = BigInt(seed >>> 0);
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      s = (s + 0x6d2b79f5n) % M;
      let z = imul(s ^ (s >> 15n), s | 1n);
      z = z ^ ((z + imul(z ^ (z >> 7n), z | 61n)) % M);
      out.push(Number(z ^ (z >> 14n)) / 2 ** 32);
    }
    return out;
  }

  it('matches the BigInt reference and is deterministic per seed', () => {
    for (const seed of [0, 1, 42, 2 ** 31 + 5]) {
      const rng = mulberry32(seed);
      const got = Array.from({ length: 20 }, () => rng());
      expect(got).toEqual(reference(seed, 20));
      for (const x of got) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThan(1);
      }
    }
    const a = mulberry32(1);
    const b = mulberry32(2);
    expect(a()).not.toBe(b());
    expect(() => mulberry32(Number.NaN)).toThrow(RangeError);
  });

  const special = (id: number): boolean => id === 101 || id === 102;

  it('drops where the draw is below the rate, keeps special tokens (scripted rng)', () => {
    const draws = [0.05, 0.5, 0.09, 0.95];
    let k = 0;
    const rng = (): number => draws[k++];
    // [CLS] 7 8 9 10 [SEP]: draws 0.05 < 0.1 drop, 0.5 keep, 0.09 drop, 0.95 keep.
    expect(tokenDropoutMask([101, 7, 8, 9, 10, 102], 0.1, rng, special)).toEqual([1, 0, 1, 0, 1, 1]);
    expect(k).toBe(4);
  });

  it('restores one ordinary token when all were dropped', () => {
    // rng ≡ 0: every ordinary token dropped; restore index ⌊0·3⌋ = first ordinary token.
    expect(tokenDropout([101, 5, 6, 7, 102], 0.1, () => 0, special)).toEqual([101, 5, 102]);
    // Only special tokens: nothing to restore, nothing drawn.
    expect(tokenDropout([101, 102], 0.5, () => { throw new Error('no draw expected'); }, special)).toEqual([101, 102]);
  });

  it('is deterministic under a seed, rate 0 keeps all, the drop share ≈ rate', () => {
    const ids = Array.from({ length: 20000 }, (_, i) => 1000 + i);
    const m1 = tokenDropoutMask(ids, undefined, mulberry32(9), special);
    const m2 = tokenDropoutMask(ids, undefined, mulberry32(9), special);
    expect(m1).toEqual(m2);
    const dropShare = m1.filter((x) => x === 0).length / ids.length;
    expect(DEFAULT_TOKEN_DROPOUT_RATE).toBe(0.1);
    expect(dropShare).toBeGreaterThan(0.09);
    expect(dropShare).toBeLessThan(0.11);
    expect(tokenDropout(ids.slice(0, 50), 0, mulberry32(3))).toEqual(ids.slice(0, 50));
    expect(() => tokenDropout(ids, 1, mulberry32(3))).toThrow(/rate/);
  });
});
