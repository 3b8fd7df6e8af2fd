import { ProgrankParams, validateProgrankParams } from './progrank.params';
import { interpolate, quantileLinear } from './quantile';

export interface ProgrankCandidate {
  id: string;
  /** Base score s(q, p) = <norm(f(q)), norm(g(p))> (Eq. 1), cosine in [−1, 1]. */
  score: number;
  /**
   * Probe gradients g_r = ∇_ϑ s(q, p_r) of the R perturbation runs (Eq. 3), all the same length.
   * Absent for texts outside the probed tail: they get no penalty.
   */
  gradients?: Float32Array[];
}

export interface ProgrankInput {
  candidates: ProgrankCandidate[];
  /** s(q, p) over the pool / corpus D for the gate quantile (Eq. 11); usually the whole bounded pool (§3.5). */
  corpusScores: ArrayLike<number>;
  /**
   * |D| when `corpusScores` holds only the best B scores of a larger D (B = corpusScores.length).
   * Default B. See `gateCenter`.
   */
  corpusSize?: number;
}

export interface ProgrankResult {
  id: string;
  /** s(q, p). */
  score: number;
  /** Rep (Eq. 4) in [0, 1]; null when not probed. */
  rep: number | null;
  /** P_rep = −log(Rep + ε) (Eq. 5), ≥ 0 up to ε; null when not probed. */
  pRep: number | null;
  /** c = Quantile_τ({c_r}) (Eq. 8) in (0, 1]; null when not probed. */
  dispersion: number | null;
  /** P_dr (Eq. 10) in [0, C); null when not probed. */
  pDr: number | null;
  /** w = σ((s − μ)/T) (Eq. 12) in (0, 1). */
  gateWeight: number;
  /** w·(P_rep + P_dr); 0 when not probed. */
  penalty: number;
  /** ŝ = s − w·(P_rep + P_dr) (Eq. 13). */
  defendedScore: number;
  /** Whether gradients were given. */
  probed: boolean;
  /** 1-based rank by s (ties → input order). */
  rankBefore: number;
  /** 1-based rank by ŝ (ties → input order). */
  rankAfter: number;
}

export interface GateOptions {
  gateM?: number;
  corpusSize?: number;
}

/** Logistic σ(x) = 1/(1 + e^(−x)), computed without overflow. */
export function logistic(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/**
 * Gate centre μ = Quantile_{1−m/|D|}({s(q, p)}_{p∈D}), m = ⌈√|D|⌉ by default (Eq. 11), with
 * linear interpolation (numpy's default, `quantileLinear`).
 *
 * When |D| = corpusScores.length (the default, and what §3.5 does: D is the bounded pool) this is
 * exactly numpy's `quantile(scores, 1 − m/|D|)`. When `corpusSize` > B, `corpusScores` are taken to
 * be the top-B scores of D; the same quantile sits at fractional index j = m·(|D| − 1)/|D| of the
 * scores sorted descending, which only needs the top of D; j past the pool is clamped to the pool
 * minimum. Pool smaller than the gate (m ≥ |D|, e.g. |D| = 1): the level 1 − m/|D| ≤ 0 is clamped
 * to 0, so μ = the minimum score and every candidate is gated in (w ≥ ½).
 */
export function gateCenter(corpusScores: ArrayLike<number>, options: GateOptions = {}): number {
  const b = corpusScores.length;
  if (b === 0) throw new RangeError('progrank: corpusScores is empty (the gate needs the score distribution)');
  const size = options.corpusSize ?? b;
  if (!Number.isInteger(size) || size < b) throw new RangeError(`progrank: corpusSize must be an integer ≥ corpusScores.length (${b}), got ${size}`);
  const m = options.gateM ?? Math.ceil(Math.sqrt(size));
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`progrank: gateM must be an integer ≥ 1, got ${m}`);
  if (size === b) return quantileLinear(corpusScores, 1 - m / size);
  const desc = Array.from(corpusScores);
  for (const v of desc) if (!Number.isFinite(v)) throw new RangeError(`progrank: corpusScores must be finite, got ${v}`);
  desc.sort((x, y) => y - x);
  const j = Math.min((m * (size - 1)) / size, b - 1);
  return interpolate(desc, j);
}

interface ProbeStats {
  rep: number;
  pRep: number;
  dispersion: number;
  pDr: number;
}

/**
 * Representational consistency and dispersion risk of one candidate's probe gradients.
 *   ḡ = (1/R) Σ_r g_r
 *   Rep = ||ḡ||² / ((1/R) Σ_r ||g_r||² + ε)                      (Eq. 4, ∈ [0, 1])
 *   P_rep = −log(Rep + ε)                                         (Eq. 5)
 *   dev_r = ||g_r − ḡ|| / (||ḡ|| + ε)                             (Eq. 6)
 *   c_r = exp(−α·dev_r)                                           (Eq. 7, ∈ (0, 1])
 *   c = Quantile_τ({c_r}) (linear interpolation)                  (Eq. 8)
 *   P̃ = max(−log(c + ε), 0) / max(c, ε)                          (Eq. 9; see below)
 *   P_dr = C·P̃ / (P̃ + C + ε)                                      (Eq. 10, ∈ [0, C))
 * Our one change: at c = 1, −log(1 + ε) ≈ −ε would make P̃ a tiny bonus; it is clamped to 0.
 * Norms are Euclidean over all probed parameters (LayerNorm γ and β concatenated). All-zero
 * gradients give Rep = 0 (maximal P_rep = −log ε): a score insensitive to ϑ has no consistent
 * direction, as Eq. 4 says.
 */
export function probeStatistics(gradients: readonly ArrayLike<number>[], params: Partial<ProgrankParams> = {}): ProbeStats {
  const { tau, alpha, capC, eps } = validateProgrankParams(params);
  const r = gradients.length;
  if (r === 0) throw new RangeError('progrank: no gradients');
  const dim = gradients[0].length;
  const mean = new Float64Array(dim);
  let meanSq = 0;
  for (const g of gradients) {
    if (g.length !== dim) throw new RangeError(`progrank: gradients differ in length (${g.length} vs ${dim})`);
    for (let i = 0; i < dim; i++) {
      const v = g[i];
      if (!Number.isFinite(v)) throw new RangeError(`progrank: gradient values must be finite, got ${v}`);
      mean[i] += v / r;
      meanSq += (v * v) / r;
    }
  }
  let meanNormSq = 0;
  for (let i = 0; i < dim; i++) meanNormSq += mean[i] * mean[i];
  const meanNorm = Math.sqrt(meanNormSq);
  // Rounding can push the ratio a hair above 1 for identical runs; Eq. 4 says Rep ∈ [0, 1].
  const rep = Math.min(1, meanNormSq / (meanSq + eps));
  const pRep = -Math.log(rep + eps);
  const stabilities = gradients.map((g) => {
    let d2 = 0;
    for (let i = 0; i < dim; i++) d2 += (g[i] - mean[i]) ** 2;
    return Math.exp(-alpha * (Math.sqrt(d2) / (meanNorm + eps)));
  });
  const c = quantileLinear(stabilities, tau);
  const pTilde = Math.max(-Math.log(c + eps), 0) / Math.max(c, eps);
  const pDr = (capC * pTilde) / (pTilde + capC + eps);
  return { rep, pRep, dispersion: c, pDr };
}

/**
 * ProGRank defended scores (ProGRank, arXiv 2603.22934, §3.2–3.3, Eq. 4–13) over given probe
 * gradients.
 *
 * Gate (Eq. 11–12): μ from `gateCenter` over `corpusScores`; w = σ((s − μ)/T), T = 1 by default
 * (the paper's σ(s − μ)). Penalty: w·(P_rep + P_dr) for probed candidates (`probeStatistics`), 0
 * for unprobed ones. Defended score ŝ = s − w·(P_rep + P_dr) (Eq. 13), same units as s.
 * Every probed candidate must bring exactly `runs` gradients. Results are in input order.
 */
export function progrankScores(input: ProgrankInput, params: Partial<ProgrankParams> = {}): ProgrankResult[] {
  const p = validateProgrankParams(params);
  const mu = gateCenter(input.corpusScores, { gateM: p.gateM, corpusSize: input.corpusSize });
  const seen = new Set<string>();
  const rows = input.candidates.map((c) => {
    if (seen.has(c.id)) throw new RangeError(`progrank: candidate id "${c.id}" appears twice`);
    seen.add(c.id);
    if (!Number.isFinite(c.score)) throw new RangeError(`progrank: score of "${c.id}" must be finite, got ${c.score}`);
    const gateWeight = logistic((c.score - mu) / p.gateTemperature);
    if (!c.gradients) {
      return { id: c.id, score: c.score, rep: null, pRep: null, dispersion: null, pDr: null, gateWeight, penalty: 0, defendedScore: c.score, probed: false };
    }
    if (c.gradients.length !== p.runs) {
      throw new RangeError(`progrank: candidate "${c.id}" has ${c.gradients.length} gradient runs, params.runs is ${p.runs}`);
    }
    const st = probeStatistics(c.gradients, p);
    const penalty = gateWeight * (st.pRep + st.pDr);
    return { id: c.id, score: c.score, ...st, gateWeight, penalty, defendedScore: c.score - penalty, probed: true };
  });
  const rankBy = (key: (i: number) => number): number[] => {
    const ranks = new Array<number>(rows.length);
    rows
      .map((_, i) => i)
      .sort((a, b) => key(b) - key(a) || a - b)
      .forEach((i, pos) => (ranks[i] = pos + 1));
    return ranks;
  };
  const before = rankBy((i) => rows[i].score);
  const after = rankBy((i) => rows[i].defendedScore);
  return rows.map((row, i) => ({ ...row, rankBefore: before[i], rankAfter: after[i] }));
}

/** Options of `selectProbeSet`. */
export interface ProbeSetParams {
  /** Gate rank m (Eq. 11). Default ⌈√|D|⌉. */
  gateM?: number;
  /** |D| if larger than scores.length (scores = top-B of D). */
  corpusSize?: number;
  /** Gate temperature T, as in `ProgrankParams`. Default 1. */
  gateTemperature: number;
  /** Probe candidates whose gate weight w = σ((s − μ)/T) is ≥ this. Default 0.5 (⇔ s ≥ μ). In [0, 1]. */
  minGateWeight: number;
  /** Always probe the top-K by base score (every text that could be served). Default 0. Integer ≥ 0. */
  topK: number;
  /** Upper bound on probes (the best-scoring are kept). Default unbounded. Integer ≥ 0. */
  maxProbes?: number;
}

export const DEFAULT_PROBE_SET_PARAMS: Readonly<Omit<ProbeSetParams, 'gateM' | 'corpusSize' | 'maxProbes'>> = Object.freeze({
  gateTemperature: 1,
  minGateWeight: 0.5,
  topK: 0,
});

/**
 * The decision-critical upper tail to probe (ProGRank, arXiv 2603.22934, §3.5): indices into
 * `scores` of the candidates with gate weight ≥ `minGateWeight` (default ½, i.e. s ≥ μ, about m + 1
 * texts with m = ⌈√B⌉), united with the top-K by score, capped at `maxProbes`. Below μ the gate
 * scales the penalty by less than ½, so probing there mostly cannot change the top of the ranking;
 * the top-K are included so that every text that could be served has been stress-tested. Returned
 * best score first (ties → lower index).
 */
export function selectProbeSet(scores: readonly number[], params: Partial<ProbeSetParams> = {}): number[] {
  const gateTemperature = params.gateTemperature ?? DEFAULT_PROBE_SET_PARAMS.gateTemperature;
  const minGateWeight = params.minGateWeight ?? DEFAULT_PROBE_SET_PARAMS.minGateWeight;
  const topK = params.topK ?? DEFAULT_PROBE_SET_PARAMS.topK;
  if (!Number.isFinite(gateTemperature) || gateTemperature <= 0) throw new RangeError(`ProbeSetParams.gateTemperature must be > 0, got ${gateTemperature}`);
  if (!(minGateWeight >= 0 && minGateWeight <= 1)) throw new RangeError(`ProbeSetParams.minGateWeight must be in [0, 1], got ${minGateWeight}`);
  if (!Number.isInteger(topK) || topK < 0) throw new RangeError(`ProbeSetParams.topK must be an integer ≥ 0, got ${topK}`);
  if (params.maxProbes !== undefined && (!Number.isInteger(params.maxProbes) || params.maxProbes < 0)) {
    throw new RangeError(`ProbeSetParams.maxProbes must be an integer ≥ 0, got ${params.maxProbes}`);
  }
  if (scores.length === 0) return [];
  const mu = gateCenter(scores, { gateM: params.gateM, corpusSize: params.corpusSize });
  const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const picked = order.filter((i, pos) => pos < topK || logistic((scores[i] - mu) / gateTemperature) >= minGateWeight);
  return params.maxProbes === undefined ? picked : picked.slice(0, params.maxProbes);
}
