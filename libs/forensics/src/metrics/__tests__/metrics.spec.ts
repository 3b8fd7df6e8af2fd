import { confusionOf, detectionRates, macroRates, pooledRates } from '../detection-metrics';
import { meanOf, poisonHitAtK, poisonInTopK, poisonRecallAtK } from '../retrieval-metrics';

// Hand-computed oracle (RAGForensics, arXiv 2504.21668, App. 8.2, Eq. 3–5):
//   A: TP 5 FP 0 TN 5 FN 0 → DACC 1,   FPR 0,   FNR 0
//   B: TP 1 FP 1 TN 1 FN 1 → DACC 1/2, FPR 1/2, FNR 1/2
//   C: TP 0 FP 2 TN 3 FN 0 → DACC 3/5, FPR 2/5, FNR undefined (no poisoned text judged)
//   pooled: TP 6 FP 3 TN 9 FN 1 (19 texts) → DACC 15/19, FPR 3/12, FNR 1/7
//   macro:  DACC (1 + 1/2 + 3/5)/3 = 0.7, FPR (0 + 1/2 + 2/5)/3 = 0.3, FNR (0 + 1/2)/2 = 0.25
const A = { tp: 5, fp: 0, tn: 5, fn: 0 };
const B = { tp: 1, fp: 1, tn: 1, fn: 1 };
const C = { tp: 0, fp: 2, tn: 3, fn: 0 };

describe('detection metrics', () => {
  it('counts a confusion table from judged texts', () => {
    expect(confusionOf([
      { poisoned: true, flagged: true }, { poisoned: true, flagged: false },
      { poisoned: false, flagged: true }, { poisoned: false, flagged: false }, { poisoned: false, flagged: false },
    ])).toEqual({ tp: 1, fn: 1, fp: 1, tn: 2 });
  });

  it('computes DACC, FPR, FNR of one table', () => {
    const r = detectionRates(C);
    expect(r.dacc).toBeCloseTo(0.6, 12);
    expect(r.fpr).toBeCloseTo(0.4, 12);
    expect(r.fnr).toBeNull();
  });

  it('pooled and macro differ on a small example', () => {
    const pooled = pooledRates([A, B, C]);
    expect(pooled.counts).toEqual({ tp: 6, fp: 3, tn: 9, fn: 1 });
    expect(pooled.dacc).toBeCloseTo(15 / 19, 12);
    expect(pooled.fpr).toBeCloseTo(0.25, 12);
    expect(pooled.fnr).toBeCloseTo(1 / 7, 12);
    const macro = macroRates([A, B, C]);
    expect(macro.dacc).toBeCloseTo(0.7, 12);
    expect(macro.fpr).toBeCloseTo(0.3, 12);
    expect(macro.fnr).toBeCloseTo(0.25, 12);
    expect(macro.events).toEqual({ dacc: 3, fpr: 3, fnr: 2 });
    expect(macro.dacc).not.toBeCloseTo(pooled.dacc!, 3);
  });

  it('returns null rates for empty input, never 0', () => {
    expect(detectionRates({ tp: 0, fp: 0, tn: 0, fn: 0 })).toEqual({ dacc: null, fpr: null, fnr: null });
    expect(macroRates([])).toEqual({ dacc: null, fpr: null, fnr: null, events: { dacc: 0, fpr: 0, fnr: 0 } });
    expect(pooledRates([]).dacc).toBeNull();
  });

  it('rejects negative or fractional counts', () => {
    expect(() => detectionRates({ tp: -1, fp: 0, tn: 0, fn: 0 })).toThrow(RangeError);
    expect(() => detectionRates({ tp: 0.5, fp: 0, tn: 0, fn: 0 })).toThrow(/tp/);
  });
});

describe('retrieval metrics (ProGRank, arXiv 2603.22934, Eq. 17–18)', () => {
  // ranked best first; true = poisoned. 5 poisoned texts exist for the query.
  const ranked = [false, true, false, true, true, true, false];

  it('Hit@K is 1 as soon as one poisoned text is in the top-K', () => {
    expect(poisonHitAtK(ranked, 1)).toBe(0);
    expect(poisonHitAtK(ranked, 2)).toBe(1);
    expect(poisonHitAtK([false, false], 5)).toBe(0);
  });

  it('Recall@K is the share of the query\'s poisoned texts in the top-K', () => {
    expect(poisonInTopK(ranked, 5)).toBe(3);
    expect(poisonRecallAtK(ranked, 5, 5)).toBeCloseTo(3 / 5, 12);
    expect(poisonRecallAtK(ranked, 3, 5)).toBeCloseTo(1 / 5, 12);
    expect(poisonRecallAtK([], 5, 0)).toBe(0);
  });

  it('averages over queries and validates inputs', () => {
    // queries: hit [1, 0, 1] → 2/3; recall [3/5, 0, 1/5] → 4/15
    const hits = [poisonHitAtK(ranked, 5), poisonHitAtK([false], 5), poisonHitAtK([true], 5)];
    expect(meanOf(hits)).toBeCloseTo(2 / 3, 12);
    expect(meanOf([3 / 5, 0, 1 / 5])).toBeCloseTo(4 / 15, 12);
    expect(meanOf([])).toBeNull();
    expect(() => poisonHitAtK(ranked, 0)).toThrow(RangeError);
    expect(() => poisonRecallAtK(ranked, 5, 2)).toThrow(/only 2 exist/);
  });
});
