import {
  birdScores,
  birdSuspicion,
  combineEvidence,
  DEFAULT_BIRD_SUSPICION_PARAMS,
  DEFAULT_COMBINE_EVIDENCE_PARAMS,
  gradaRerank,
  gradaSuspicion,
  progrankScores,
  progrankSuspicion,
  validateCombineEvidenceParams,
  validateGradaSuspicionParams,
} from '@forensics/algorithms';

describe('birdSuspicion: u²/(1+u²), u = max(S,0)/ε', () => {
  it('pins hand values (ε = 2.5)', () => {
    expect(birdSuspicion(2.5)).toBe(0.5); // u = 1
    expect(birdSuspicion(3.5)).toBeCloseTo(1.96 / 2.96, 12); // u = 1.4 → 0.662162
    expect(birdSuspicion(1.2)).toBeCloseTo(0.2304 / 1.2304, 12); // u = 0.48 → 0.187256
    expect(birdSuspicion(0.4)).toBeCloseTo(0.0256 / 1.0256, 12); // u = 0.16 → 0.024961
    expect(birdSuspicion(0)).toBe(0);
    expect(birdSuspicion(-3)).toBe(0);
    expect(birdSuspicion(Number.POSITIVE_INFINITY)).toBe(1);
    expect(birdSuspicion(1e300)).toBe(1);
    expect(birdSuspicion(5, { epsilon: 5, hill: 1 })).toBe(0.5);
    expect(birdSuspicion({ score: 3.5 })).toBeCloseTo(1.96 / 2.96, 12);
    expect(DEFAULT_BIRD_SUSPICION_PARAMS).toEqual({ epsilon: 2.5, hill: 2 });
    expect(() => birdSuspicion(Number.NaN)).toThrow(/NaN/);
    expect(() => birdSuspicion(1, { epsilon: 0 })).toThrow(/epsilon/);
  });
  it('is monotone, in [0, 1], and ≥ ½ exactly when S ≥ ε', () => {
    const xs = [-1, 0, 0.5, 1, 2, 2.49, 2.5, 2.51, 4, 10, 100, Number.POSITIVE_INFINITY];
    const ys = xs.map((x) => birdSuspicion(x));
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThanOrEqual(ys[i - 1]);
    xs.forEach((x, i) => {
      expect(ys[i]).toBeGreaterThanOrEqual(0);
      expect(ys[i]).toBeLessThanOrEqual(1);
      expect(ys[i] >= 0.5).toBe(x >= 2.5);
    });
  });
  it('maps BiRD results end to end: r_cc = 1 → 1, |C| < 2 → S = r_cr', () => {
    // a: R_bw = [b c] keeps the forward order of {b, c} → ρ = 1 → S = +∞ → 1.
    // b: R_bw = [x] → |C| = 0 → S = 0.9 → u = 0.36 → 0.1296/1.1296 = 0.114731.
    const r = birdScores({ query: { forward: [{ id: 'a', score: 0.8 }, { id: 'b', score: 0.9 }, { id: 'c', score: 0.5 }] }, backward: { a: ['b', 'c'], b: ['x'], c: [] } });
    expect(birdSuspicion(r[0])).toBe(1);
    expect(birdSuspicion(r[1])).toBeCloseTo(0.114731, 6);
  });
});

describe('gradaSuspicion: ½·rank drop + ½·score deficit', () => {
  /*
   * On GRADA's HRSIM hand example (M = 5, d = 0.85; see grada.spec.ts):
   *   d1: rank 1 → 4, s = 0.03 (teleport floor): drop 3/4, deficit (1 − 0.15)/0.85 = 1 → 0.875
   *   d5: rank 2 → 5, s = 0.03: drop 3/4, deficit 1 → 0.875
   *   d3: rank 5 → 1, s = 0.270642 > 1/5: 0, 0 → 0
   *   d2: rank 3 → 2, s = 0.164679: drop 0, deficit (1 − 0.823395)/0.85 = 0.207771 → 0.103885
   */
  const results = gradaRerank(
    {
      query: 'alpha beta',
      candidates: [
        { id: 'd1', text: 'alpha beta', score: 0.95 },
        { id: 'd5', text: 'beta omega', score: 0.9 },
        { id: 'd2', text: 'alpha gamma', score: 0.8 },
        { id: 'd4', text: 'delta alpha', score: 0.7 },
        { id: 'd3', text: 'gamma delta', score: 0.6 },
      ],
    },
    { n: 2 },
  );
  const s = Object.fromEntries(results.map((r) => [r.id, gradaSuspicion(r)]));
  it('pins hand values', () => {
    expect(s.d1).toBeCloseTo(0.875, 9);
    expect(s.d5).toBeCloseTo(0.875, 9);
    expect(s.d3).toBe(0);
    expect(s.d2).toBeCloseTo(0.103885, 6);
    expect(s.d4).toBeCloseTo(0.103885, 6);
  });
  it('is monotone in rankAfter and in the score, in [0, 1]', () => {
    const base = { rankBefore: 2, rankAfter: 2, score: 0.1, poolSize: 10 };
    let prev = -1;
    for (let after = 1; after <= 10; after++) {
      const v = gradaSuspicion({ ...base, rankAfter: after });
      expect(v).toBeGreaterThanOrEqual(prev);
      expect(v).toBeLessThanOrEqual(1);
      prev = v;
    }
    expect(gradaSuspicion({ ...base, score: 0.2 })).toBeLessThanOrEqual(gradaSuspicion({ ...base, score: 0.05 }));
    // Rank 1 → 10 at the floor (1 − 0.85)/10 = 0.015: drop 1, deficit 1 → 1.
    expect(gradaSuspicion({ rankBefore: 1, rankAfter: 10, score: 0.015, poolSize: 10 })).toBeCloseTo(1, 12);
    expect(gradaSuspicion({ rankBefore: 1, rankAfter: 1, score: 1, poolSize: 1 })).toBe(0);
    // dropWeight 1: drop only, (4 − 2)/9.
    expect(gradaSuspicion({ rankBefore: 2, rankAfter: 4, score: 0.5, poolSize: 10 }, { dropWeight: 1 })).toBeCloseTo(2 / 9, 12);
    expect(() => gradaSuspicion({ rankBefore: 0, rankAfter: 1, score: 0.1, poolSize: 5 })).toThrow(/rankBefore/);
    expect(() => gradaSuspicion({ rankBefore: 1, rankAfter: 6, score: 0.1, poolSize: 5 })).toThrow(/rankAfter/);
    expect(() => validateGradaSuspicionParams({ damping: 1 })).toThrow(/damping/);
  });
});

describe('progrankSuspicion: 1 − exp(−penalty)', () => {
  it('pins hand values', () => {
    expect(progrankSuspicion(0)).toBe(0);
    expect(progrankSuspicion(Math.LN2)).toBeCloseTo(0.5, 12);
    // Candidate B of progrank.spec.ts: penalty 0.541570·(ln 2 + 5.839567) = 3.537925 → 0.970926.
    expect(progrankSuspicion(3.537925)).toBeCloseTo(0.970926, 6);
    expect(progrankSuspicion(-1)).toBe(0);
    expect(progrankSuspicion(Number.POSITIVE_INFINITY)).toBe(1);
    expect(progrankSuspicion(2 * Math.LN2, { scale: 2 })).toBeCloseTo(0.5, 12);
    expect(() => progrankSuspicion(Number.NaN)).toThrow(/NaN/);
    // From a result: unprobed → penalty 0 → 0.
    const [r] = progrankScores({ candidates: [{ id: 'u', score: 0.5 }], corpusScores: [0.5] });
    expect(progrankSuspicion(r)).toBe(0);
  });
});

describe('combineEvidence', () => {
  it('weighted mean of present signals; agrees at ≥ 0.5 (hand values)', () => {
    // (0.662162 + 0.875 + 0)/3 = 0.512387 → agrees; bird and grada fired.
    const c = combineEvidence({ bird: 1.96 / 2.96, grada: 0.875, progrank: 0 });
    expect(c.suspicion).toBeCloseTo(0.512387, 6);
    expect(c).toMatchObject({ agrees: true, signals: ['bird', 'grada'], present: ['bird', 'grada', 'progrank'], available: true });
    // One strong signal against two quiet ones does not agree: (1 + 0 + 0.2)/3 = 0.4.
    const lone = combineEvidence({ bird: 1, grada: 0, progrank: 0.2 });
    expect(lone.suspicion).toBeCloseTo(0.4, 12);
    expect(lone).toMatchObject({ agrees: false, signals: ['bird'] });
    // Exactly at the threshold agrees.
    expect(combineEvidence({ grada: 0.5 }).agrees).toBe(true);
  });
  it('weights, missing signals and no evidence', () => {
    // (2·0.2 + 1·0.8)/3 = 0.4
    expect(combineEvidence({ bird: 0.2, progrank: 0.8 }, { weights: { bird: 2, grada: 1, progrank: 1 } }).suspicion).toBeCloseTo(0.4, 12);
    expect(combineEvidence({ bird: 0.9, grada: undefined })).toMatchObject({ present: ['bird'], available: true });
    expect(combineEvidence({ bird: 0.9, grada: 0.1 }, { weights: { bird: 1, grada: 0, progrank: 1 } })).toMatchObject({ suspicion: 0.9, present: ['bird'] });
    expect(combineEvidence({})).toEqual({ suspicion: 0, agrees: false, signals: [], present: [], available: false });
  });
  it('is permutation invariant in its keys and monotone in each signal', () => {
    const a = combineEvidence({ progrank: 0.3, bird: 0.6, grada: 0.7 });
    const b = combineEvidence({ grada: 0.7, bird: 0.6, progrank: 0.3 });
    expect(a).toEqual(b);
    expect(combineEvidence({ bird: 0.7, grada: 0.7, progrank: 0.3 }).suspicion).toBeGreaterThan(a.suspicion);
  });
  it('validates', () => {
    expect(DEFAULT_COMBINE_EVIDENCE_PARAMS).toEqual({ weights: { bird: 1, grada: 1, progrank: 1 }, agreeThreshold: 0.5, signalThreshold: 0.5 });
    expect(() => combineEvidence({ bird: 1.2 })).toThrow(/bird suspicion must be in \[0, 1\]/);
    expect(() => combineEvidence({ grada: Number.NaN })).toThrow(RangeError);
    expect(() => validateCombineEvidenceParams({ agreeThreshold: 2 })).toThrow(/agreeThreshold/);
    expect(() => validateCombineEvidenceParams({ weights: { bird: -1, grada: 1, progrank: 1 } })).toThrow(/weights.bird/);
  });
});
