import { birdScores, DEFAULT_BIRD_PARAMS, spearmanOverCommon, validateBirdParams } from '@forensics/algorithms';
import type { BirdInput } from '@forensics/algorithms';

/*
 * Hand example, k = 5. R_fw = [a 0.9, b 0.8, c 0.8, d 0.7, e 0.6] (b and c tie on score; array
 * order is the ranking). Ranks are re-ranked 1..|C| within C = R_fw ∩ R_bw^i; ρ = 1 − 6Σδ²/(|C|(|C|²−1)).
 *
 *  a: R_bw = [b c d e x]  C = {b,c,d,e}; fw order b c d e, bw order b c d e → Σδ² = 0
 *     ρ = 1 → S = +∞ (gap rule), suspicious.
 *  b: R_bw = [x y a]      C = {a}, |C| = 1 < 2 → ρ = 0 → S = 0.8 / 1 = 0.8.
 *  c: R_bw = [e d b a]    C = {a,b,d,e}; fw a1 b2 d3 e4, bw e1 d2 b3 a4
 *     δ² = 9 + 1 + 1 + 9 = 20; ρ = 1 − 120/60 = −1 → S = 0.8 / 2 = 0.4.
 *  d: R_bw = [a b y e c]  C = {a,b,c,e}; fw a1 b2 c3 e4, bw a1 b2 e3 c4
 *     δ² = 0 + 0 + 1 + 1 = 2; ρ = 1 − 12/60 = 0.8 → S = 0.7 / 0.2 = 3.5 > 2.5, suspicious.
 *  e: R_bw = [b a c z]    C = {a,b,c}; fw a1 b2 c3, bw b1 a2 c3
 *     δ² = 1 + 1 + 0 = 2; ρ = 1 − 12/24 = 0.5 → S = 0.6 / 0.5 = 1.2.
 */
const input: BirdInput = {
  query: { forward: [{ id: 'a', score: 0.9 }, { id: 'b', score: 0.8 }, { id: 'c', score: 0.8 }, { id: 'd', score: 0.7 }, { id: 'e', score: 0.6 }] },
  backward: {
    a: ['b', 'c', 'd', 'e', 'x'],
    b: ['x', 'y', 'a'],
    c: ['e', 'd', 'b', 'a'],
    d: ['a', 'b', 'y', 'e', 'c'],
    e: ['b', 'a', 'c', 'z'],
  },
};

describe('spearmanOverCommon (BiRD, arXiv 2605.20123, Eq. 7–8, ranks re-ranked within C)', () => {
  it('pins hand values', () => {
    expect(spearmanOverCommon(['a', 'b', 'c', 'd', 'e'], ['e', 'd', 'b', 'a'])).toEqual({ rho: -1, commonSetSize: 4 });
    expect(spearmanOverCommon(['a', 'b', 'c', 'd', 'e'], ['a', 'b', 'y', 'e', 'c']).rho).toBeCloseTo(0.8, 12);
    expect(spearmanOverCommon(['a', 'b', 'c'], ['b', 'a', 'c', 'z']).rho).toBeCloseTo(0.5, 12);
  });
  it('re-ranks within C: gaps in either list do not matter', () => {
    // Raw positions differ (x, y interleaved) but the relative order of C is the same → exactly 1.
    expect(spearmanOverCommon(['a', 'x', 'b', 'c'], ['y', 'a', 'b', 'z', 'c'])).toEqual({ rho: 1, commonSetSize: 3 });
  });
  it('|C| < 2 gives 0', () => {
    expect(spearmanOverCommon(['a', 'b'], ['c', 'd'])).toEqual({ rho: 0, commonSetSize: 0 });
    expect(spearmanOverCommon(['a', 'b'], ['b', 'd'])).toEqual({ rho: 0, commonSetSize: 1 });
    expect(spearmanOverCommon([], [])).toEqual({ rho: 0, commonSetSize: 0 });
  });
  it('is symmetric and stays in [−1, 1]', () => {
    const a = ['p', 'q', 'r', 's', 't', 'u'];
    const b = ['u', 'r', 'x', 'p', 't', 'q'];
    const ab = spearmanOverCommon(a, b);
    expect(spearmanOverCommon(b, a).rho).toBeCloseTo(ab.rho, 12);
    // C = {p q r t u}: a-order p1 q2 r3 t4 u5; b-order u1 r2 p3 t4 q5 → δ² = 4+9+1+0+16 = 30 → 1 − 180/120 = −0.5
    expect(ab.rho).toBeCloseTo(-0.5, 12);
    expect(ab.rho).toBeGreaterThanOrEqual(-1);
    expect(ab.rho).toBeLessThanOrEqual(1);
  });
  it('rejects duplicate ids', () => {
    expect(() => spearmanOverCommon(['a', 'a'], ['a'])).toThrow(/twice/);
  });
});

describe('birdScores (BiRD, arXiv 2605.20123, §4, Algorithm 1, Eq. 9)', () => {
  const results = birdScores(input, { k: 5 });
  const byId = Object.fromEntries(results.map((r) => [r.id, r]));

  it('pins the hand example', () => {
    expect(results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(byId.a).toEqual({ id: 'a', forwardRank: 1, contentRelevance: 0.9, contextConsistency: 1, commonSetSize: 4, score: Number.POSITIVE_INFINITY, suspicious: true });
    expect(byId.b).toMatchObject({ contextConsistency: 0, commonSetSize: 1, score: 0.8, suspicious: false });
    expect(byId.c).toMatchObject({ contextConsistency: -1, commonSetSize: 4, suspicious: false });
    expect(byId.c.score).toBeCloseTo(0.4, 12);
    expect(byId.d.contextConsistency).toBeCloseTo(0.8, 12);
    expect(byId.d.score).toBeCloseTo(3.5, 10);
    expect(byId.d.suspicious).toBe(true);
    expect(byId.e.contextConsistency).toBeCloseTo(0.5, 12);
    expect(byId.e.score).toBeCloseTo(1.2, 12);
    expect(byId.e.suspicious).toBe(false);
  });

  it('tied forward scores keep the given order (b before c), and r_cr is the score as given', () => {
    expect(byId.b.forwardRank).toBe(2);
    expect(byId.c.forwardRank).toBe(3);
    expect(byId.b.contentRelevance).toBe(byId.c.contentRelevance);
  });

  it('S exactly at ε is clean (Eq. 10: clean iff S ≤ ε)', () => {
    // e: r_cr = 1.25, ρ = 0.5 → S = 2.5 = ε.
    const atEps = birdScores({ ...input, query: { forward: input.query.forward.map((h) => (h.id === 'e' ? { id: 'e', score: 1.25 } : h)) } }, { k: 5 });
    const e = atEps.find((r) => r.id === 'e')!;
    expect(e.score).toBe(2.5);
    expect(e.suspicious).toBe(false);
    expect(birdScores(input, { k: 5, epsilon: 1 }).find((r) => r.id === 'e')!.suspicious).toBe(true);
  });

  it('truncates forward and backward rankings to k', () => {
    // k = 3: R_fw = [a b c]; a: R_bw = [b c d] → C = {b,c}, same order → ρ = 1 → +∞.
    // c: R_bw = [e d b] → C = {b} → ρ = 0 → S = 0.8 (with k = 5 it was −1 / 0.4).
    const r3 = birdScores(input, { k: 3 });
    expect(r3.map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(r3[0].score).toBe(Number.POSITIVE_INFINITY);
    expect(r3[0].commonSetSize).toBe(2);
    expect(r3[2]).toMatchObject({ commonSetSize: 1, contextConsistency: 0, score: 0.8 });
  });

  it('skips d_i if it appears in its own backward ranking', () => {
    const withSelf = birdScores({ ...input, backward: { ...input.backward, e: ['e', 'b', 'a', 'c', 'z'] } }, { k: 5 });
    expect(withSelf[4].contextConsistency).toBeCloseTo(0.5, 12);
  });

  it('r_cc = 1 gives +∞ even with a negative r_cr', () => {
    const r = birdScores({ query: { forward: [{ id: 'p', score: -0.2 }, { id: 'u', score: -0.3 }, { id: 'v', score: -0.4 }] }, backward: { p: ['u', 'v'], u: [], v: [] } });
    expect(r[0].score).toBe(Number.POSITIVE_INFINITY);
    expect(r[0].suspicious).toBe(true);
    expect(r[1]).toMatchObject({ commonSetSize: 0, contextConsistency: 0, score: -0.3, suspicious: false });
  });

  it('does not depend on the key order of `backward` and is deterministic', () => {
    const reversed: Record<string, string[]> = {};
    for (const key of Object.keys(input.backward).reverse()) reversed[key] = input.backward[key];
    expect(birdScores({ ...input, backward: reversed }, { k: 5 })).toEqual(results);
    expect(birdScores(input, { k: 5 })).toEqual(results);
  });

  it('scores lie in the documented ranges', () => {
    for (const r of results) {
      expect(r.contextConsistency).toBeGreaterThanOrEqual(-1);
      expect(r.contextConsistency).toBeLessThanOrEqual(1);
      expect(r.suspicious).toBe(r.score > DEFAULT_BIRD_PARAMS.epsilon);
    }
  });

  it('validates params and input', () => {
    expect(DEFAULT_BIRD_PARAMS).toEqual({ k: 20, epsilon: 2.5 });
    expect(() => validateBirdParams({ k: 0 })).toThrow(/BirdParams.k/);
    expect(() => validateBirdParams({ k: 2.5 })).toThrow(RangeError);
    expect(() => validateBirdParams({ epsilon: 0 })).toThrow(/BirdParams.epsilon/);
    expect(() => validateBirdParams({ epsilon: Number.NaN })).toThrow(RangeError);
    expect(() => birdScores({ query: { forward: [{ id: 'a', score: 1 }] }, backward: {} })).toThrow(/backward ranking missing for candidate "a"/);
    expect(() => birdScores({ query: { forward: [{ id: 'a', score: 1 }, { id: 'a', score: 0.5 }] }, backward: { a: [] } })).toThrow(/twice/);
    expect(() => birdScores({ query: { forward: [{ id: 'a', score: Number.NaN }] }, backward: { a: [] } })).toThrow(/finite/);
  });
});
