import {
  BirdSuspicionParams,
  CombineEvidenceParams,
  EvidenceSignal,
  GradaSuspicionParams,
  ProgrankSuspicionParams,
  validateBirdSuspicionParams,
  validateCombineEvidenceParams,
  validateGradaSuspicionParams,
  validateProgrankSuspicionParams,
} from './evidence.params';

/**
 * BiRD suspicion from the composite score S (BiRD, arXiv 2605.20123, Eq. 9) relative to ε (Eq. 10);
 * takes S or a `BirdResult` (pass the ε of that run):
 *   u = max(S, 0)/ε,   suspicion = u^h / (1 + u^h)   (Hill function, h = 2 by default).
 * Monotone non-decreasing in S; S ≤ 0 → 0; S = ε → exactly ½, so "suspicion ≥ ½" coincides with
 * BiRD's own rule up to the boundary (BiRD flags S > ε); S = +∞ (r_cc = 1) → 1.
 * Chosen over 1 − exp(−S/ε) because that puts S = ε at 0.63 and would let texts BiRD calls clean
 * (S ≈ 0.7ε) cross ½.
 */
export function birdSuspicion(result: number | { score: number }, params: Partial<BirdSuspicionParams> = {}): number {
  const { epsilon, hill } = validateBirdSuspicionParams(params);
  const score = typeof result === 'number' ? result : result.score;
  if (typeof score !== 'number' || Number.isNaN(score)) throw new RangeError(`birdSuspicion: S must be a number, got ${String(score)}`);
  if (score === Number.POSITIVE_INFINITY) return 1;
  const uh = (Math.max(score, 0) / epsilon) ** hill;
  return Number.isFinite(uh) ? uh / (1 + uh) : 1;
}

/** The fields of a `GradaResult` the suspicion needs. */
export interface GradaEvidenceInput {
  /** Final PageRank score s (GRADA, arXiv 2505.07546, Eq. 1). */
  score: number;
  rankBefore: number;
  rankAfter: number;
  /** M. */
  poolSize: number;
}

/**
 * GRADA suspicion of one `GradaResult` among M = `poolSize` texts (GRADA, arXiv 2505.07546, §3), a
 * weighted mean of two terms (pass the damping of that run if it was not 0.85):
 * - rank drop = clamp((rankAfter − rankBefore)/(M − 1), 0, 1): how far reranking pushed it down
 *   (0 when it stayed or rose; 1 from first to last);
 * - score deficit = clamp((1 − M·s)/d, 0, 1): 0 at or above the uniform share 1/M, 1 at the teleport
 *   floor (1 − d)/M, which is exactly where a text with no surviving edge (isolated from the rest
 *   of the pool, GRADA's poisoning signature) ends up.
 * suspicion = w·drop + (1 − w)·deficit, w = `dropWeight` (default ½). Monotone: non-decreasing
 * in rankAfter, non-increasing in rankBefore and in s. In [0, 1].
 */
export function gradaSuspicion(result: GradaEvidenceInput, params: Partial<GradaSuspicionParams> = {}): number {
  const { damping: d, dropWeight: w } = validateGradaSuspicionParams(params);
  const { rankBefore, rankAfter, score, poolSize } = result;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new RangeError(`gradaSuspicion: poolSize must be an integer ≥ 1, got ${poolSize}`);
  for (const [name, r] of [['rankBefore', rankBefore], ['rankAfter', rankAfter]] as const) {
    if (!Number.isInteger(r) || r < 1 || r > poolSize) throw new RangeError(`gradaSuspicion: ${name} must be an integer in [1, ${poolSize}], got ${r}`);
  }
  if (!Number.isFinite(score) || score < 0) throw new RangeError(`gradaSuspicion: score must be finite and ≥ 0, got ${score}`);
  const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
  const drop = poolSize > 1 ? clamp01((rankAfter - rankBefore) / (poolSize - 1)) : 0;
  const deficit = clamp01((1 - poolSize * score) / d);
  return w * drop + (1 - w) * deficit;
}

/**
 * ProGRank suspicion from the applied penalty w·(P_rep + P_dr) (ProGRank, arXiv 2603.22934,
 * Eq. 13); takes the penalty or a `ProgrankResult`:
 *   suspicion = 1 − exp(−max(penalty, 0)/λ),  λ = `scale` (default 1).
 * Monotone in the penalty; 0 for an unprobed text (penalty 0); penalty λ·ln 2 ≈ 0.69 → ½;
 * +∞ → 1. The penalty already carries the gate, so texts far below μ count for little.
 */
export function progrankSuspicion(result: number | { penalty: number }, params: Partial<ProgrankSuspicionParams> = {}): number {
  const { scale } = validateProgrankSuspicionParams(params);
  const penalty = typeof result === 'number' ? result : result.penalty;
  if (typeof penalty !== 'number' || Number.isNaN(penalty)) throw new RangeError(`progrankSuspicion: penalty must be a number, got ${String(penalty)}`);
  return 1 - Math.exp(-Math.max(penalty, 0) / scale);
}

/** Per-signal suspicions in [0, 1]; absent = not computed. */
export type EvidenceInput = Partial<Record<EvidenceSignal, number>>;

export interface CombinedEvidence {
  /** Weighted mean of the signals present, in [0, 1]; 0 when none is present (then `available` is false). */
  suspicion: number;
  /** suspicion ≥ agreeThreshold: the retriever-side evidence points to poisoning. */
  agrees: boolean;
  /** Signals at or above `signalThreshold` (the ones that fired), in the order bird, grada, progrank. */
  signals: EvidenceSignal[];
  /** Signals that were present with a non-zero weight. */
  present: EvidenceSignal[];
  /** At least one signal present (shape-compatible with the decision policy's `evidence.available`). */
  available: boolean;
}

const SIGNALS: readonly EvidenceSignal[] = ['bird', 'grada', 'progrank'];

/**
 * Combine retriever-side suspicions for the decision policy (a project design, not from the
 * papers): quarantine automatically when the judge says Yes and the evidence agrees; human review
 * otherwise.
 *
 * suspicion = Σ w_k·s_k / Σ w_k over the signals present (default equal weights), agrees =
 * suspicion ≥ 0.5. Rationale: the three signals target different attacks (BiRD: query look-alikes
 * whose neighbourhood mirrors the query's; GRADA: texts isolated from a benign majority; ProGRank:
 * optimisation-driven texts with unstable gradients), so no single one is reliable alone. A mean
 * (not a max) means one signal firing against two quiet ones does not auto-quarantine — the
 * expensive mistake is removing a benign text, and disagreement routes to a human, which is the
 * safe side. With no signal present, suspicion is 0 and `available` is false; the policy must
 * treat that as "no evidence", not as "benign". The result fits the decision policy's `evidence`
 * input ({ available, suspicion, agrees }) as is.
 */
export function combineEvidence(input: EvidenceInput, params: Partial<CombineEvidenceParams> = {}): CombinedEvidence {
  const p = validateCombineEvidenceParams(params);
  let num = 0;
  let den = 0;
  const signals: EvidenceSignal[] = [];
  const present: EvidenceSignal[] = [];
  for (const name of SIGNALS) {
    const s = input[name];
    if (s === undefined) continue;
    if (typeof s !== 'number' || !(s >= 0 && s <= 1)) throw new RangeError(`combineEvidence: ${name} suspicion must be in [0, 1], got ${String(s)}`);
    const w = p.weights[name];
    if (w === 0) continue;
    present.push(name);
    num += w * s;
    den += w;
    if (s >= p.signalThreshold) signals.push(name);
  }
  const suspicion = den > 0 ? num / den : 0;
  return { suspicion, agrees: den > 0 && suspicion >= p.agreeThreshold, signals, present, available: den > 0 };
}
