import { bm25Score, buildBm25Index } from '../bm25/bm25';
import { contentTerms } from '../text/tokenizer';
import { GradaParams, validateGradaParams } from './grada.params';

export interface GradaCandidate {
  id: string;
  text: string;
  /** Text embedding (L2-normalised or not: cosine is computed). Needed for 'd2dsim-ebd' and HRSIM over embeddings. */
  vector?: ArrayLike<number>;
  /** Retrieval score. Only informative: the retrieval rank is the input order. */
  score: number;
}

export interface GradaInput {
  query: string;
  /** Query embedding; needed only for HRSIM with hrsimBase 'embedding'. */
  queryVector?: ArrayLike<number>;
  /** The M retrieved texts, best first (input order = retrieval rank). */
  candidates: GradaCandidate[];
}

export interface GradaResult {
  id: string;
  /** Final PageRank score s_i (Eq. 1), in [(1−d)/M, 1]. */
  score: number;
  /** 1-based retrieval rank (input order). */
  rankBefore: number;
  /** 1-based rank after reranking (score descending, ties → better retrieval rank first). */
  rankAfter: number;
  /** rankAfter ≤ n: GRADA keeps it as context. */
  keptInTopN: boolean;
  /** rankBefore ≤ n and rankAfter > n: retrieval would have served it, GRADA drops it. */
  droppedFromTopN: boolean;
  /** M, the number of texts in the graph (so a result can be read, and normalised, on its own). */
  poolSize: number;
}

export interface GradaPropagation {
  /** Stationary scores in node order. */
  scores: number[];
  /** Rounds run. */
  iterations: number;
  /** False when maxIterations was hit before the L1 change fell below tolerance. */
  converged: boolean;
}

export interface GradaRerankDetail {
  /** Results in reranked order (rankAfter 1, 2, …). */
  results: GradaResult[];
  /** Symmetric M×M edge weights in input order, zero diagonal. */
  weights: number[][];
  iterations: number;
  converged: boolean;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>, what: string): number {
  if (a.length !== b.length) throw new RangeError(`gradaRerank: vector length mismatch (${what}: ${a.length} vs ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

function vectorsOf(input: GradaInput, needQuery: boolean): { docs: ArrayLike<number>[]; query?: ArrayLike<number> } {
  const docs = input.candidates.map((c) => {
    if (!c.vector) throw new RangeError(`gradaRerank: candidate "${c.id}" has no vector (required by the embedding similarity)`);
    return c.vector;
  });
  if (needQuery && !input.queryVector) throw new RangeError('gradaRerank: queryVector is required for HRSIM over embeddings');
  return { docs, query: input.queryVector };
}

/**
 * Symmetrised BM25 between pool texts, ½(BM25(v_i, v_j) + BM25(v_j, v_i)) (GRADA, arXiv 2505.07546,
 * §3.1), where BM25(v_i, v_j) scores text j for text i's terms as the query. The index (IDF, avgdl)
 * is built over the candidate pool only, tokenised with `contentTerms` (stopwords removed, light
 * stem). Also returns BM25(q → v_i), the query scored against each pool text with the same index.
 */
function bm25Similarities(input: GradaInput): { pair: number[][]; query: number[] } {
  const tokens = input.candidates.map((c) => contentTerms(c.text));
  const index = buildBm25Index(tokens);
  const m = tokens.length;
  const raw = tokens.map((q) => Array.from({ length: m }, (_, j) => bm25Score(index, q, j)));
  const pair = raw.map((row, i) => row.map((_, j) => (i === j ? 0 : 0.5 * (raw[i][j] + raw[j][i]))));
  const qTokens = contentTerms(input.query);
  return { pair, query: tokens.map((_, j) => bm25Score(index, qTokens, j)) };
}

function embeddingSimilarities(input: GradaInput, needQuery: boolean): { pair: number[][]; query: number[] } {
  const { docs, query } = vectorsOf(input, needQuery);
  const pair = docs.map((a, i) => docs.map((b, j) => (i === j ? 0 : cosine(a, b, `candidates ${i} and ${j}`))));
  return { pair, query: query ? docs.map((v, i) => cosine(query, v, `query and candidate ${i}`)) : [] };
}

/**
 * Edge weights of GRADA's graph (GRADA, arXiv 2505.07546, §3.1), symmetric, zero diagonal (a text
 * is not its own neighbour), all ≥ 0:
 * - D2DSIM-EBD: w_ij = max(cos(x_i, x_j), 0). The paper states plain cosine; negative cosines are
 *   clamped because Eq. 1 needs non-negative weights.
 * - D2DSIM-BM25: w_ij = ½(BM25(v_i,v_j) + BM25(v_j,v_i)) over a BM25 index of the pool.
 * - HRSIM: w_ij = max(sim(v_i,v_j) − α·(sim(v_i,q) + sim(v_j,q)), 0).
 *
 * BM25 scale (the paper is silent; we follow what it does): HRSIM subtracts **raw, unnormalised**
 * BM25 scores, BM25(q → v) being the query scored against the same pool index. α = 0.4 was tuned by
 * the authors on raw BM25 (bm25s). Note the scales differ (short query vs whole passage as the
 * BM25 query), which is part of why α < 0.5 still cuts the edges of query look-alikes.
 */
export function gradaWeights(input: GradaInput, params: Partial<GradaParams> = {}): number[][] {
  const p = validateGradaParams(params);
  const m = input.candidates.length;
  if (p.similarity === 'd2dsim-ebd') return embeddingSimilarities(input, false).pair.map((row) => row.map((w) => Math.max(w, 0)));
  if (p.similarity === 'd2dsim-bm25') return bm25Similarities(input).pair;
  const sims = p.hrsimBase === 'bm25' ? bm25Similarities(input) : embeddingSimilarities(input, true);
  return Array.from({ length: m }, (_, i) =>
    Array.from({ length: m }, (_, j) => (i === j ? 0 : Math.max(sims.pair[i][j] - p.alpha * (sims.query[i] + sims.query[j]), 0))),
  );
}

/**
 * PageRank-style propagation (GRADA, arXiv 2505.07546, §3.2, Eq. 1):
 *   s_i^(t) = (1 − d)·s*_i + d·Σ_j (w_ij / Σ_k w_jk)·s_j^(t−1),   s* = s^(0) = [1/|V|, …].
 * Iterates until the L1 change is < tolerance or maxIterations rounds. Zero-weight guard: a node
 * j with Σ_k w_jk = 0 passes nothing on, so a node whose weights are all zero keeps only the
 * teleport term (1 − d)/|V|. Mass is not renormalised (a dangling node's share leaks, as written
 * in Eq. 1), so Σ s ≤ 1. Weights need not be symmetric; they must be finite and ≥ 0.
 */
export function propagateGradaScores(weights: readonly (readonly number[])[], params: Partial<GradaParams> = {}): GradaPropagation {
  const { damping: d, tolerance, maxIterations } = validateGradaParams(params);
  const m = weights.length;
  if (m === 0) return { scores: [], iterations: 0, converged: true };
  for (const row of weights) {
    if (row.length !== m) throw new RangeError(`propagateGradaScores: weight matrix must be ${m}×${m}`);
    for (const w of row) if (!Number.isFinite(w) || w < 0) throw new RangeError(`propagateGradaScores: weights must be finite and ≥ 0, got ${w}`);
  }
  const teleport = (1 - d) / m;
  const degree = weights.map((row) => row.reduce((a, b) => a + b, 0));
  let s = new Array<number>(m).fill(1 / m);
  for (let it = 1; it <= maxIterations; it++) {
    const next = new Array<number>(m).fill(teleport);
    for (let j = 0; j < m; j++) {
      if (degree[j] === 0) continue;
      const share = (d * s[j]) / degree[j];
      for (let i = 0; i < m; i++) if (weights[i][j] > 0) next[i] += weights[i][j] * share;
    }
    let change = 0;
    for (let i = 0; i < m; i++) change += Math.abs(next[i] - s[i]);
    s = next;
    if (change < tolerance) return { scores: s, iterations: it, converged: true };
  }
  return { scores: s, iterations: maxIterations, converged: false };
}

/**
 * GRADA with the full detail (weights, iteration count). See `gradaRerank`.
 */
export function gradaRerankDetailed(input: GradaInput, params: Partial<GradaParams> = {}): GradaRerankDetail {
  const p = validateGradaParams(params);
  const m = input.candidates.length;
  // The paper's majority argument (§3.2) needs M ≥ 2n; we refuse rather than clamp n silently.
  if (m < 2 * p.n) throw new RangeError(`gradaRerank: needs M ≥ 2n retrieved texts (M = ${m}, n = ${p.n}); retrieve more or lower n`);
  const seen = new Set<string>();
  for (const c of input.candidates) {
    if (seen.has(c.id)) throw new RangeError(`gradaRerank: candidate id "${c.id}" appears twice`);
    seen.add(c.id);
  }
  const weights = gradaWeights(input, p);
  const { scores, iterations, converged } = propagateGradaScores(weights, p);
  // Scores equal to 12 decimals are ties (symmetric nodes can differ in the last bits from the
  // order of floating-point sums); ties keep retrieval order.
  const key = (x: number): number => Math.round(x * 1e12);
  const order = scores.map((score, i) => ({ score, i })).sort((a, b) => key(b.score) - key(a.score) || a.i - b.i);
  const results = order.map(({ score, i }, pos) => {
    const rankBefore = i + 1;
    const rankAfter = pos + 1;
    return {
      id: input.candidates[i].id,
      score,
      rankBefore,
      rankAfter,
      keptInTopN: rankAfter <= p.n,
      droppedFromTopN: rankBefore <= p.n && rankAfter > p.n,
      poolSize: m,
    };
  });
  return { results, weights, iterations, converged };
}

/**
 * GRADA: graph-based reranking of M retrieved texts (GRADA, arXiv 2505.07546, §3).
 *
 * 1. Graph: texts are nodes, undirected edges weighted by `gradaWeights` (D2DSIM-EBD, D2DSIM-BM25
 *    or HRSIM, default HRSIM over raw BM25 with α = 0.4).
 * 2. Scores: `propagateGradaScores` (Eq. 1, d = 0.85, uniform s*).
 *    Scores equal to 12 decimals count as tied and keep retrieval order.
 * 3. Keep the top n (default 5); requires M ≥ 2n, else `RangeError` (no silent clamp).
 *
 * Returns one record per text in reranked order; ties in the final score keep retrieval order.
 * Scores are in [(1−d)/M, 1] (unitless PageRank mass).
 */
export function gradaRerank(input: GradaInput, params: Partial<GradaParams> = {}): GradaResult[] {
  return gradaRerankDetailed(input, params).results;
}
