import { DEFAULT_GRADA_PARAMS, gradaRerank, gradaRerankDetailed, gradaWeights, propagateGradaScores, validateGradaParams } from '@forensics/algorithms';
import type { GradaInput } from '@forensics/algorithms';

/*
 * Hand example 1 — HRSIM over BM25 (the default), M = 5, n = 2, α = 0.4, d = 0.85.
 * q = "alpha beta". Pool (retrieval order): d1 "alpha beta" (copy of q), d5 "beta omega",
 * d2 "alpha gamma", d4 "delta alpha", d3 "gamma delta". Every text has 2 distinct terms, so
 * |D|/avgdl = 1 and each matched term contributes IDF·(1.2+1)/(1+1.2) = IDF:
 *   BM25(x → y) = Σ_{t ∈ x ∩ y} IDF(t),  IDF(t) = ln(1 + (5 − n_t + 0.5)/(n_t + 0.5)).
 *   alpha (n=3): A = ln(12/7) = 0.5389965;  beta, gamma, delta (n=2): B = ln 2.4 = 0.8754687;
 *   omega (n=1): ln 4.
 * Pair sims (already symmetric): s12 = s14 = s24 = A; s15 = s23 = s34 = B; others 0.
 * Query sims: d1 = A+B, d2 = A, d3 = 0, d4 = A, d5 = B.
 * HRSIM w_ij = max(s_ij − 0.4(q_i + q_j), 0):
 *   w12 = A − 0.4(2A + B) < 0 → 0;  w14 → 0;  w15 = B − 0.4(A + 2B) = −0.0405 → 0
 *   w23 = w34 = B − 0.4A = X = 0.6598701;  w24 = A − 0.8A = Y = 0.2A = 0.1077993
 * d1 and d5 have all-zero weights → teleport only: (1 − 0.85)/5 = 0.03.
 * Triangle d2–d3–d4 (s2 = s4 by symmetry), p = X/(X+Y) = 0.8595759:
 *   s3 = t + d·p·(s2 + s4),  component mass s2 + s3 + s4 = 3t/(1−d) = 0.6
 *   ⇒ s2 = (0.6 − t)/(2(1 + d·p)) = 0.57/3.4612790 = 0.1646790,  s3 = 0.6 − 2·s2 = 0.2706420.
 * Rerank: d3 (0.2706), d2 (0.1647), d4 (0.1647, tie → retrieval order), d1 (0.03), d5 (0.03, tie).
 * Top-2 before = {d1, d5}: both dropped. Top-2 after = {d3, d2}.
 */
const hrsimInput: GradaInput = {
  query: 'alpha beta',
  candidates: [
    { id: 'd1', text: 'alpha beta', score: 0.95 },
    { id: 'd5', text: 'beta omega', score: 0.9 },
    { id: 'd2', text: 'alpha gamma', score: 0.8 },
    { id: 'd4', text: 'delta alpha', score: 0.7 },
    { id: 'd3', text: 'gamma delta', score: 0.6 },
  ],
};
const A = Math.log(12 / 7);
const B = Math.log(2.4);

/*
 * Hand example 2 — D2DSIM-EBD, M = 4, n = 2. Vectors x1 = (1,0,0), x2 = (0.6,0.8,0),
 * x3 = (0,1,0), x4 = (0,0,1): w12 = 0.6, w23 = 0.8, all else 0 (x4 isolated).
 * Transitions: 1 → 2 all; 3 → 2 all; 2 → 1: 0.6/1.4 = 3/7, 2 → 3: 4/7. t = 0.15/4 = 3/80, d = 17/20.
 *   s2 = t + d(s1 + s3),  s1 = t + d(3/7)s2,  s3 = t + d(4/7)s2
 *   ⇒ s2 = t(1 + 2d)/(1 − d²) = 27/74 = 0.3648649
 *   s1 = 3/80 + 1377/10360 = 3531/20720 = 0.1704151,  s3 = 4449/20720 = 0.2147201,  s4 = 3/80 = 0.0375
 * Retrieval order [x4 (poison), x1, x2, x3] → after: x2, x3, x1, x4.
 */
const ebdInput: GradaInput = {
  query: 'unused',
  candidates: [
    { id: 'x4', text: '', vector: [0, 0, 1], score: 0.9 },
    { id: 'x1', text: '', vector: [1, 0, 0], score: 0.8 },
    { id: 'x2', text: '', vector: [0.6, 0.8, 0], score: 0.7 },
    { id: 'x3', text: '', vector: [0, 1, 0], score: 0.6 },
  ],
};

describe('GRADA (arXiv 2505.07546, §3, Eq. 1)', () => {
  it('HRSIM/BM25 weights match the hand computation', () => {
    const w = gradaWeights(hrsimInput, { n: 2 });
    // index order: d1, d5, d2, d4, d3
    const X = B - 0.4 * A;
    const expected = [
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0.2 * A, X],
      [0, 0, 0.2 * A, 0, X],
      [0, 0, X, X, 0],
    ];
    w.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(expected[i][j], 10)));
    expect(X).toBeCloseTo(0.6598701, 6);
  });

  it('D2DSIM-BM25 weights are the raw symmetrised BM25 (no query penalty)', () => {
    const w = gradaWeights(hrsimInput, { similarity: 'd2dsim-bm25' });
    expect(w[0][2]).toBeCloseTo(A, 10); // d1–d2 share alpha
    expect(w[0][1]).toBeCloseTo(B, 10); // d1–d5 share beta
    expect(w[2][4]).toBeCloseTo(B, 10); // d2–d3 share gamma
    expect(w[0][4]).toBe(0); // d1–d3 share nothing
    w.forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(w[j][i], 12)));
  });

  it('HRSIM/BM25 rerank pins the hand example (isolated nodes keep only the teleport term)', () => {
    const detail = gradaRerankDetailed(hrsimInput, { n: 2 });
    expect(detail.converged).toBe(true);
    const r = detail.results;
    expect(r.map((x) => x.id)).toEqual(['d3', 'd2', 'd4', 'd1', 'd5']);
    const by = Object.fromEntries(r.map((x) => [x.id, x]));
    expect(by.d3.score).toBeCloseTo(0.270642, 6);
    expect(by.d2.score).toBeCloseTo(0.164679, 6);
    expect(by.d4.score).toBeCloseTo(0.164679, 6);
    expect(by.d1.score).toBeCloseTo(0.03, 12);
    expect(by.d5.score).toBeCloseTo(0.03, 12);
    expect(by.d1).toMatchObject({ rankBefore: 1, rankAfter: 4, keptInTopN: false, droppedFromTopN: true });
    expect(by.d5).toMatchObject({ rankBefore: 2, rankAfter: 5, keptInTopN: false, droppedFromTopN: true });
    expect(by.d3).toMatchObject({ rankBefore: 5, rankAfter: 1, keptInTopN: true, droppedFromTopN: false });
    expect(by.d2).toMatchObject({ rankBefore: 3, rankAfter: 2, keptInTopN: true, droppedFromTopN: false });
    // Tie d2 = d4 broken by retrieval rank.
    expect(by.d4).toMatchObject({ rankBefore: 4, rankAfter: 3, keptInTopN: false, droppedFromTopN: false });
  });

  it('D2DSIM-EBD pins hand example 2', () => {
    const r = gradaRerank(ebdInput, { similarity: 'd2dsim-ebd', n: 2 });
    expect(r.map((x) => x.id)).toEqual(['x2', 'x3', 'x1', 'x4']);
    const by = Object.fromEntries(r.map((x) => [x.id, x.score]));
    expect(by.x2).toBeCloseTo(27 / 74, 7);
    expect(by.x1).toBeCloseTo(3531 / 20720, 7);
    expect(by.x3).toBeCloseTo(4449 / 20720, 7);
    expect(by.x4).toBeCloseTo(3 / 80, 12);
    expect(r.find((x) => x.id === 'x1')).toMatchObject({ rankBefore: 2, rankAfter: 3, droppedFromTopN: true });
  });

  it('ties: a symmetric triangle scores 1/4 each, broken by retrieval order; negative cosines are clamped', () => {
    // (1,1,0)/√2, (1,0,1)/√2, (0,1,1)/√2 pairwise cos = 1/2; (1,−1,−1)/√3 has cos 0, 0, −2/√6 → 0.
    // Triangle: s = t + d·s ⇒ s = t/(1−d) = 0.0375/0.15 = 0.25; isolated: 0.0375.
    const r = gradaRerank(
      {
        query: '',
        candidates: [
          { id: 'iso', text: '', vector: [1, -1, -1], score: 1 },
          { id: 'c', text: '', vector: [0, 1, 1], score: 0.9 },
          { id: 'b', text: '', vector: [1, 0, 1], score: 0.8 },
          { id: 'a', text: '', vector: [1, 1, 0], score: 0.7 },
        ],
      },
      { similarity: 'd2dsim-ebd', n: 2 },
    );
    expect(r.map((x) => x.id)).toEqual(['c', 'b', 'a', 'iso']);
    for (const x of r.slice(0, 3)) expect(x.score).toBeCloseTo(0.25, 7);
    expect(r[3].score).toBeCloseTo(0.0375, 12);
  });

  it('HRSIM over embeddings uses cosine with the query vector', () => {
    // x1·x2 = 0.6; q = (1,0,0): cos(q,x1) = 1, cos(q,x2) = 0.6 → w12 = max(0.6 − 0.4·1.6, 0) = 0;
    // w23 = max(0.8 − 0.4·(0.6 + 0), 0) = 0.56.
    const w = gradaWeights({ ...ebdInput, queryVector: [1, 0, 0] }, { hrsimBase: 'embedding' });
    expect(w[1][2]).toBe(0);
    expect(w[2][3]).toBeCloseTo(0.56, 12);
    expect(() => gradaWeights(ebdInput, { hrsimBase: 'embedding' })).toThrow(/queryVector/);
    expect(() => gradaWeights(hrsimInput, { similarity: 'd2dsim-ebd' })).toThrow(/has no vector/);
  });

  it('propagation: all-zero graph keeps only the teleport term; damping 0 gives uniform scores', () => {
    const zero = propagateGradaScores([[0, 0, 0], [0, 0, 0], [0, 0, 0]]);
    for (const s of zero.scores) expect(s).toBeCloseTo(0.05, 15);
    expect(zero.converged).toBe(true);
    const flat = propagateGradaScores([[0, 1], [1, 0]], { damping: 0 });
    expect(flat.scores).toEqual([0.5, 0.5]);
    expect(propagateGradaScores([])).toEqual({ scores: [], iterations: 0, converged: true });
    expect(() => propagateGradaScores([[0, -1], [-1, 0]])).toThrow(/≥ 0/);
    const capped = propagateGradaScores([[0, 1, 0], [1, 0, 1], [0, 1, 0]], { maxIterations: 1 });
    expect(capped).toMatchObject({ iterations: 1, converged: false });
  });

  it('invariants: score range, permutation invariance by id, determinism', () => {
    const r = gradaRerank(hrsimInput, { similarity: 'd2dsim-bm25', n: 2 });
    const floor = 0.15 / 5;
    let total = 0;
    for (const x of r) {
      expect(x.score).toBeGreaterThanOrEqual(floor - 1e-15);
      expect(x.score).toBeLessThanOrEqual(1);
      total += x.score;
    }
    // Connected graph with no dangling node: mass is conserved (Σ s = 1).
    expect(total).toBeCloseTo(1, 8);
    const reversed = gradaRerank({ ...hrsimInput, candidates: [...hrsimInput.candidates].reverse() }, { similarity: 'd2dsim-bm25', n: 2 });
    const byId = (xs: typeof r) => Object.fromEntries(xs.map((x) => [x.id, x.score]));
    const a = byId(r);
    const b = byId(reversed);
    for (const id of Object.keys(a)) expect(b[id]).toBeCloseTo(a[id], 10);
    expect(gradaRerank(hrsimInput, { n: 2 })).toEqual(gradaRerank(hrsimInput, { n: 2 }));
  });

  it('requires M ≥ 2n and validates params', () => {
    expect(DEFAULT_GRADA_PARAMS).toMatchObject({ similarity: 'hrsim', hrsimBase: 'bm25', alpha: 0.4, damping: 0.85, tolerance: 1e-9, maxIterations: 100, n: 5 });
    expect(() => gradaRerank(hrsimInput)).toThrow(/M ≥ 2n.*M = 5, n = 5/);
    expect(() => gradaRerank(hrsimInput, { n: 3 })).toThrow(RangeError);
    expect(() => validateGradaParams({ damping: 1 })).toThrow(/damping/);
    expect(() => validateGradaParams({ alpha: -0.1 })).toThrow(/alpha/);
    expect(() => validateGradaParams({ n: 0 })).toThrow(/GradaParams.n/);
    expect(() => validateGradaParams({ tolerance: 0 })).toThrow(/tolerance/);
    expect(() => validateGradaParams({ maxIterations: 1.5 })).toThrow(/maxIterations/);
    expect(() => validateGradaParams({ similarity: 'cosine' as never })).toThrow(/similarity/);
    const dup = { query: 'q', candidates: [...hrsimInput.candidates.slice(0, 3), hrsimInput.candidates[0]] };
    expect(() => gradaRerank(dup, { n: 2 })).toThrow(/twice/);
  });
});
