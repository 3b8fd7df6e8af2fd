import {
  birdScores,
  birdSuspicion,
  combineEvidence,
  FITTED_EVIDENCE_CALIBRATION,
  gradaRerank,
  gradaSuspicion,
  logit,
  progrankScores,
  progrankSuspicion,
  sigmoid,
  validateCombineEvidenceThresholds,
  type EvidenceCalibration,
} from '@forensics/algorithms';

/** A hand calibration, so the hand values below do not move when the fit is redone. */
const HAND: EvidenceCalibration = {
  signals: { bird: { weights: [-2, 4] }, grada: { weights: [-1, 2, 1] }, progrank: { weights: [-1.5, 3] } },
  combine: {
    bird: { weights: [0, 1] }, grada: { weights: [0, 1] }, progrank: { weights: [0, 1] },
    'bird+grada': { weights: [0.5, 1, 0.5] }, 'bird+progrank': { weights: [0, 1, 1] }, 'grada+progrank': { weights: [0, 1, 1] },
    'bird+grada+progrank': { weights: [0.2, 1, 0.5, 0.25] },
  },
};
const hand = { calibration: HAND };

describe('birdSuspicion: σ(a + b·h(S)), h(S) = u²/(1+u²), u = max(S,0)/2.5', () => {
  it('pins hand values', () => {
    expect(birdSuspicion(2.5, hand)).toBeCloseTo(sigmoid(-2 + 4 * 0.5), 12); // = ½
    expect(birdSuspicion(3.5, hand)).toBeCloseTo(sigmoid(-2 + 4 * (1.96 / 2.96)), 12);
    expect(birdSuspicion(0, hand)).toBeCloseTo(sigmoid(-2), 12);
    expect(birdSuspicion(-3, hand)).toBeCloseTo(sigmoid(-2), 12);
    expect(birdSuspicion(Number.POSITIVE_INFINITY, hand)).toBeCloseTo(sigmoid(2), 12);
    expect(birdSuspicion({ score: 3.5 }, hand)).toBe(birdSuspicion(3.5, hand));
    expect(() => birdSuspicion(Number.NaN)).toThrow(/NaN/);
  });
  it('maps BiRD results end to end: r_cc = 1 → h = 1, |C| < 2 → S = r_cr', () => {
    // a: R_bw = [b c] keeps the forward order of {b, c} → ρ = 1 → S = +∞ → h = 1.
    // b: R_bw = [x] → |C| = 0 → S = 0.9 → u = 0.36 → h = 0.1296/1.1296.
    const r = birdScores({ query: { forward: [{ id: 'a', score: 0.8 }, { id: 'b', score: 0.9 }, { id: 'c', score: 0.5 }] }, backward: { a: ['b', 'c'], b: ['x'], c: [] } });
    expect(birdSuspicion(r[0], hand)).toBeCloseTo(sigmoid(2), 12);
    expect(birdSuspicion(r[1], hand)).toBeCloseTo(sigmoid(-2 + 4 * (0.1296 / 1.1296)), 12);
  });
  it('the fitted scale is a probability, non-decreasing in S', () => {
    const xs = [-1, 0, 0.5, 1, 2, 2.5, 4, 10, 100, Number.POSITIVE_INFINITY];
    const ys = xs.map((x) => birdSuspicion(x));
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThanOrEqual(ys[i - 1]);
    for (const y of ys) expect(y > 0 && y < 1).toBe(true);
  });
});

describe('gradaSuspicion: σ(a + b₁·drop + b₂·deficit)', () => {
  /*
   * On GRADA's HRSIM hand example (M = 5, d = 0.85; see grada.spec.ts):
   *   d1: rank 1 → 4, s = 0.03 (teleport floor): drop 3/4, deficit 1
   *   d3: rank 5 → 1, s = 0.270642 > 1/5: drop 0, deficit 0
   *   d2: rank 3 → 2, s = 0.164679: drop 0, deficit (1 − 0.823395)/0.85 = 0.207771
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
  const s = Object.fromEntries(results.map((r) => [r.id, gradaSuspicion(r, hand)]));
  it('pins hand values', () => {
    expect(s.d1).toBeCloseTo(sigmoid(-1 + 2 * 0.75 + 1), 9);
    expect(s.d3).toBeCloseTo(sigmoid(-1), 9);
    expect(s.d2).toBeCloseTo(sigmoid(-1 + 0.207771), 6);
  });
  it('validates its input', () => {
    expect(() => gradaSuspicion({ rankBefore: 0, rankAfter: 1, score: 0.1, poolSize: 5 })).toThrow(/rankBefore/);
    expect(() => gradaSuspicion({ rankBefore: 1, rankAfter: 6, score: 0.1, poolSize: 5 })).toThrow(/rankAfter/);
    expect(() => gradaSuspicion({ rankBefore: 1, rankAfter: 1, score: -1, poolSize: 5 })).toThrow(/score/);
  });
  it('the fitted scale is a probability', () => {
    for (const r of results) {
      const v = gradaSuspicion(r);
      expect(v > 0 && v < 1).toBe(true);
    }
  });
});

describe('progrankSuspicion: σ(a + b·(1 − e^(−penalty)))', () => {
  it('pins hand values', () => {
    expect(progrankSuspicion(0, hand)).toBeCloseTo(sigmoid(-1.5), 12);
    expect(progrankSuspicion(Math.LN2, hand)).toBeCloseTo(sigmoid(0), 12);
    expect(progrankSuspicion(Number.POSITIVE_INFINITY, hand)).toBeCloseTo(sigmoid(1.5), 12);
    expect(progrankSuspicion(-1, hand)).toBe(progrankSuspicion(0, hand));
    expect(() => progrankSuspicion(Number.NaN)).toThrow(/NaN/);
    // From a result: unprobed → penalty 0.
    const [r] = progrankScores({ candidates: [{ id: 'u', score: 0.5 }], corpusScores: [0.5] });
    expect(progrankSuspicion(r, hand)).toBeCloseTo(sigmoid(-1.5), 12);
  });
});

describe('combineEvidence: σ(c₀ + Σ c_k·logit(P_k)) for the subset present', () => {
  it('pins hand values; agrees at ≥ 0.5', () => {
    const c = combineEvidence({ bird: 0.7, grada: 0.6, progrank: 0.2 }, hand);
    expect(c.suspicion).toBeCloseTo(sigmoid(0.2 + logit(0.7) + 0.5 * logit(0.6) + 0.25 * logit(0.2)), 12);
    expect(c).toMatchObject({ agrees: true, signals: ['bird', 'grada'], present: ['bird', 'grada', 'progrank'], available: true });
    const two = combineEvidence({ bird: 0.2, grada: 0.9 }, hand);
    expect(two.suspicion).toBeCloseTo(sigmoid(0.5 + logit(0.2) + 0.5 * logit(0.9)), 12);
    expect(two.agrees).toBe(two.suspicion >= 0.5);
    expect(combineEvidence({ grada: 0.5 }, hand)).toMatchObject({ suspicion: 0.5, agrees: true });
  });
  it('missing signals and no evidence', () => {
    expect(combineEvidence({ bird: 0.9, grada: undefined }, hand)).toMatchObject({ present: ['bird'], available: true });
    expect(combineEvidence({})).toEqual({ suspicion: 0, agrees: false, signals: [], present: [], available: false });
  });
  it('is permutation invariant in its keys', () => {
    expect(combineEvidence({ progrank: 0.3, bird: 0.6, grada: 0.7 })).toEqual(combineEvidence({ grada: 0.7, bird: 0.6, progrank: 0.3 }));
  });
  it('the fitted combination is a probability and has a model for every subset', () => {
    expect(Object.keys(FITTED_EVIDENCE_CALIBRATION.combine).sort()).toEqual(['bird', 'bird+grada', 'bird+grada+progrank', 'bird+progrank', 'grada', 'grada+progrank', 'progrank']);
    const v = combineEvidence({ bird: 0.6, grada: 0.7, progrank: 0.3 }).suspicion;
    expect(v > 0 && v < 1).toBe(true);
  });
  it('validates', () => {
    expect(() => combineEvidence({ bird: 1.2 })).toThrow(/bird suspicion must be in \[0, 1\]/);
    expect(() => combineEvidence({ grada: Number.NaN })).toThrow(RangeError);
    expect(() => validateCombineEvidenceThresholds({ agreeThreshold: 2 })).toThrow(/agreeThreshold/);
  });
});
