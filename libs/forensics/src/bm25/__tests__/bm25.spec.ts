import { bm25Idf, bm25Score, bm25TopK, buildBm25Index, DEFAULT_BM25_PARAMS, validateBm25Params } from '@forensics/algorithms';

// Corpus d0 = [a b], d1 = [a], d2 = [c]: N = 3, avgdl = 4/3.
const index = buildBm25Index([['a', 'b'], ['a'], ['c']]);

describe('Okapi BM25', () => {
  it('uses k1 = 1.2, b = 0.75 by default', () => {
    expect(DEFAULT_BM25_PARAMS).toEqual({ k1: 1.2, b: 0.75 });
    expect(index.avgDocLength).toBeCloseTo(4 / 3, 12);
  });
  it('IDF = ln(1 + (N − n + 0.5)/(n + 0.5))', () => {
    expect(bm25Idf(index, 'a')).toBeCloseTo(Math.log(1.6), 10); // n = 2
    expect(bm25Idf(index, 'c')).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 10); // n = 1
    expect(bm25Idf(index, 'zzz')).toBeCloseTo(Math.log(1 + 3.5 / 0.5), 10); // unseen
  });
  it('scores by hand: d0 = ln1.6·2.2/2.65, d1 = ln1.6·2.2/1.975', () => {
    // d0: |D|/avgdl = 1.5 → 1 + 1.2·(0.25 + 1.125) = 2.65; d1: 0.75 → 1 + 1.2·0.8125 = 1.975.
    expect(bm25Score(index, ['a'], 0)).toBeCloseTo(0.390192, 5);
    expect(bm25Score(index, ['a'], 1)).toBeCloseTo(0.523549, 5);
    expect(bm25Score(index, ['a'], 2)).toBe(0);
  });
  it('ranks, excludes and breaks ties on the lower index', () => {
    expect(bm25TopK(index, ['a'], 2).map((r) => r.index)).toEqual([1, 0]);
    expect(bm25TopK(index, ['a'], 2, new Set([1])).map((r) => r.index)).toEqual([0, 2]);
    expect(bm25TopK(buildBm25Index([['x'], ['x']]), ['x'], 2).map((r) => r.index)).toEqual([0, 1]);
  });
  it('b = 0 switches off length normalisation; k1 = 0 is binary presence', () => {
    const noLen = buildBm25Index([['a', 'b'], ['a']], { b: 0 });
    expect(bm25Score(noLen, ['a'], 0)).toBeCloseTo(bm25Score(noLen, ['a'], 1), 12);
    const binary = buildBm25Index([['a', 'a', 'a'], ['a', 'b', 'c']], { k1: 0 });
    expect(bm25Score(binary, ['a'], 0)).toBeCloseTo(bm25Idf(binary, 'a'), 12);
  });
  it('validates params', () => {
    expect(() => validateBm25Params({ b: 1.5 })).toThrow(/b must be in \[0, 1\]/);
    expect(() => validateBm25Params({ k1: -1 })).toThrow(RangeError);
    expect(() => bm25Score(index, ['a'], 7)).toThrow(RangeError);
  });
});
