import {
  applyLogistic, auroc, birdFeature, combineCalibrated, fitEvidenceCalibration, fitLogistic, gradaFeatures, logit, mulberry32,
  progrankFeature, scoreEvidenceRows, sigmoid, subsetKey, type CalibrationRow,
} from '@forensics/algorithms';

describe('auroc', () => {
  it('is the Mann–Whitney probability, ties ½ (hand values)', () => {
    expect(auroc([0.9, 0.8, 0.1, 0.2], [true, true, false, false])).toBe(1);
    expect(auroc([0.1, 0.2, 0.9, 0.8], [true, true, false, false])).toBe(0);
    // pairs (pos, neg): (0.8,0.5) win, (0.8,0.9) loss, (0.5,0.5) tie, (0.5,0.9) loss → (1 + ½)/4
    expect(auroc([0.8, 0.5, 0.5, 0.9], [true, true, false, false])).toBeCloseTo(0.375, 12);
    expect(auroc([0.3, 0.3, 0.3], [true, false, false])).toBe(0.5);
    expect(auroc([0.3, 0.4], [true, true])).toBeNull();
    expect(() => auroc([1], [true, false])).toThrow(/differ/);
  });
});

describe('fixed transforms', () => {
  it('BiRD h(S) = u²/(1+u²), u = max(S,0)/2.5', () => {
    expect(birdFeature(2.5)).toBe(0.5);
    expect(birdFeature(3.5)).toBeCloseTo(1.96 / 2.96, 12);
    expect(birdFeature(-3)).toBe(0);
    expect(birdFeature(Number.POSITIVE_INFINITY)).toBe(1);
    expect(birdFeature(1e300)).toBe(1);
    expect(() => birdFeature(Number.NaN)).toThrow(/NaN/);
  });
  it('GRADA [rank drop, score deficit]', () => {
    // M = 5, d = 0.85: rank 1 → 4 at the teleport floor 0.03 = (1 − 0.85)/5: drop 3/4, deficit 1.
    expect(gradaFeatures({ rankBefore: 1, rankAfter: 4, score: 0.03, poolSize: 5 })).toEqual([0.75, expect.closeTo(1, 12)]);
    // Rising, above the uniform share 1/M: [0, 0].
    expect(gradaFeatures({ rankBefore: 5, rankAfter: 1, score: 0.27, poolSize: 5 })).toEqual([0, 0]);
    expect(gradaFeatures({ rankBefore: 1, rankAfter: 1, score: 1, poolSize: 1 })).toEqual([0, 0]);
    expect(() => gradaFeatures({ rankBefore: 0, rankAfter: 1, score: 0.1, poolSize: 5 })).toThrow(/rankBefore/);
    expect(() => gradaFeatures({ rankBefore: 1, rankAfter: 6, score: 0.1, poolSize: 5 })).toThrow(/rankAfter/);
  });
  it('ProGRank 1 − e^(−penalty)', () => {
    expect(progrankFeature(0)).toBe(0);
    expect(progrankFeature(Math.LN2)).toBeCloseTo(0.5, 12);
    expect(progrankFeature(-1)).toBe(0);
    expect(progrankFeature(Number.POSITIVE_INFINITY)).toBe(1);
  });
});

describe('fitLogistic', () => {
  it('recovers the weights of a logistic model from its samples', () => {
    const rand = mulberry32(11);
    const x: number[][] = [];
    const y: boolean[] = [];
    for (let i = 0; i < 20_000; i++) {
      const a = rand() * 2 - 1;
      const b = rand() * 2 - 1;
      x.push([a, b]);
      y.push(rand() < sigmoid(-0.5 + 2 * a - 1 * b));
    }
    const m = fitLogistic(x, y, 0);
    // Sampling error of each weight here is about 0.03.
    expect(Math.abs(m.weights[0] + 0.5)).toBeLessThan(0.12);
    expect(Math.abs(m.weights[1] - 2)).toBeLessThan(0.12);
    expect(Math.abs(m.weights[2] + 1)).toBeLessThan(0.12);
    expect(applyLogistic(m, [0, 0])).toBeCloseTo(sigmoid(m.weights[0]), 12);
  });
});

describe('fitEvidenceCalibration', () => {
  /** Synthetic rows: BiRD separates, GRADA a little, ProGRank is noise and absent on half the rows. */
  const rows: CalibrationRow[] = [];
  const rand = mulberry32(3);
  for (let i = 0; i < 2000; i++) {
    const poisoned = rand() < 0.4;
    rows.push({
      group: `g${i % 3}`,
      poisoned,
      bird: poisoned ? 2 + 4 * rand() : 3 * rand(),
      grada: { rankBefore: 1 + Math.floor(rand() * 5), rankAfter: 1 + Math.floor(rand() * 10), score: poisoned ? 0.02 + 0.1 * rand() : 0.05 + 0.1 * rand(), poolSize: 10 },
      progrank: i % 2 ? rand() * 2 : undefined,
    });
  }
  const cal = fitEvidenceCalibration(rows);
  it('fits every signal and every subset of signals', () => {
    expect(Object.keys(cal.combine).sort()).toEqual(['bird', 'bird+grada', 'bird+grada+progrank', 'bird+progrank', 'grada', 'grada+progrank', 'progrank'].sort());
    expect(cal.signals.bird.weights[1]).toBeGreaterThan(0);
    expect(subsetKey(['progrank', 'bird'])).toBe('bird+progrank');
  });
  it('the calibrated signal is a probability: its mean over the rows is the observed rate (score equation of the intercept)', () => {
    const p = scoreEvidenceRows(rows, cal);
    const mean = p.reduce((a, x) => a + x.bird!, 0) / rows.length;
    const rate = rows.filter((r) => r.poisoned).length / rows.length;
    expect(Math.abs(mean - rate)).toBeLessThan(1e-6);
  });
  it('the combination separates at least as well as the best single signal', () => {
    const p = scoreEvidenceRows(rows, cal);
    const y = rows.map((r) => r.poisoned);
    const bird = auroc(p.map((x) => x.bird!), y)!;
    const combined = auroc(p.map((x) => x.combined!), y)!;
    expect(bird).toBeGreaterThan(0.8);
    expect(combined).toBeGreaterThanOrEqual(bird - 0.01);
  });
  it('combines on logits; none present → undefined', () => {
    const hand = { signals: cal.signals, combine: { ...cal.combine, bird: { weights: [0.1, 2] } } };
    expect(combineCalibrated({ bird: 0.7 }, hand)).toBeCloseTo(sigmoid(0.1 + 2 * logit(0.7)), 12);
    expect(combineCalibrated({}, hand)).toBeUndefined();
  });
});
