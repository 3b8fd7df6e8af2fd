import fitted from './evidence.fitted.json';
import {
  birdFeature, calibratedSignal, combineCalibrated, EVIDENCE_SIGNALS, gradaFeatures, progrankFeature,
  type EvidenceCalibration,
} from './calibration';
import { CombineEvidenceParams, EvidenceSignal, SignalSuspicionParams, validateCombineEvidenceThresholds } from './evidence.params';

/** The calibration fitted on the development data (scripts/fit-evidence.ts → evidence.fitted.json). */
export const FITTED_EVIDENCE_CALIBRATION: Readonly<EvidenceCalibration> = Object.freeze(fitted as unknown as EvidenceCalibration);

const calibrationOf = (p: Partial<SignalSuspicionParams>): EvidenceCalibration => p.calibration ?? FITTED_EVIDENCE_CALIBRATION;

/**
 * BiRD suspicion = calibrated P(poisoned | S) from the composite score S (BiRD, arXiv 2605.20123,
 * Eq. 9); takes S or a `BirdResult`:  σ(a + b·h(S)), h(S) = u²/(1 + u²), u = max(S, 0)/2.5 (the
 * fixed transform, `birdFeature`; +∞ ↦ 1), a and b fitted (evidence.fitted.json). Monotone in S
 * (non-decreasing when b ≥ 0, which the fit gives). BiRD's own clean/poisoned call (S > ε) stays
 * in the result's `suspicious`.
 */
export function birdSuspicion(result: number | { score: number }, params: Partial<SignalSuspicionParams> = {}): number {
  const score = typeof result === 'number' ? result : result.score;
  if (typeof score !== 'number' || Number.isNaN(score)) throw new RangeError(`birdSuspicion: S must be a number, got ${String(score)}`);
  birdFeature(score);
  return calibratedSignal('bird', { bird: score }, calibrationOf(params))!;
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
 * GRADA suspicion = calibrated P(poisoned | rank drop, score deficit) of one `GradaResult` among
 * M = `poolSize` texts (GRADA, arXiv 2505.07546, §3): σ(a + b₁·drop + b₂·deficit) with
 * drop = clamp((rankAfter − rankBefore)/(M − 1), 0, 1) (how far reranking pushed it down) and
 * deficit = clamp((1 − M·s)/0.85, 0, 1) (0 at or above the uniform share 1/M, 1 at the teleport
 * floor of a text with no surviving edge — GRADA's isolation signature); see `gradaFeatures`.
 */
export function gradaSuspicion(result: GradaEvidenceInput, params: Partial<SignalSuspicionParams> = {}): number {
  const { rankBefore, rankAfter, score, poolSize } = result;
  gradaFeatures({ rankBefore, rankAfter, score, poolSize });
  return calibratedSignal('grada', { grada: { rankBefore, rankAfter, score, poolSize } }, calibrationOf(params))!;
}

/**
 * ProGRank suspicion = calibrated P(poisoned | applied penalty) (ProGRank, arXiv 2603.22934,
 * Eq. 13); takes the penalty w·(P_rep + P_dr) or a `ProgrankResult`: σ(a + b·(1 − e^(−penalty))).
 * A text outside the probed tail has penalty 0. The penalty already carries the gate, so texts far
 * below μ count for little.
 */
export function progrankSuspicion(result: number | { penalty: number }, params: Partial<SignalSuspicionParams> = {}): number {
  const penalty = typeof result === 'number' ? result : result.penalty;
  progrankFeature(penalty);
  return calibratedSignal('progrank', { progrank: penalty }, calibrationOf(params))!;
}

/** Per-signal suspicions (calibrated P(poisoned)) in [0, 1]; absent = not computed. */
export type EvidenceInput = Partial<Record<EvidenceSignal, number>>;

export interface CombinedEvidence {
  /** Combined P(poisoned) in [0, 1] over the signals present; 0 when none is present (then `available` is false). */
  suspicion: number;
  /** suspicion ≥ agreeThreshold: the retriever-side evidence points to poisoning. */
  agrees: boolean;
  /** Signals at or above `signalThreshold` (the ones that fired), in the order bird, grada, progrank. */
  signals: EvidenceSignal[];
  /** Signals that were present. */
  present: EvidenceSignal[];
  /** At least one signal present (shape-compatible with the decision policy's `evidence.available`). */
  available: boolean;
}

/**
 * Combine the calibrated retriever-side suspicions for the decision policy: for the subset of
 * signals present, σ(c₀ + Σ c_k·logit(P_k)) with weights fitted per subset on the development
 * data (evidence.fitted.json), so a missing signal is never read as "benign" and a signal that
 * separates badly gets a small weight. agrees = combined ≥ 0.5 (P(poisoned) ≥ ½). With no signal
 * present, suspicion is 0 and `available` is false; the policy must treat that as "no evidence".
 * The result fits the decision policy's `evidence` input ({ available, suspicion, agrees }) as is.
 */
export function combineEvidence(input: EvidenceInput, params: Partial<CombineEvidenceParams> = {}): CombinedEvidence {
  const t = validateCombineEvidenceThresholds(params);
  const p: EvidenceInput = {};
  const signals: EvidenceSignal[] = [];
  const present: EvidenceSignal[] = [];
  for (const name of EVIDENCE_SIGNALS) {
    const s = input[name];
    if (s === undefined) continue;
    if (typeof s !== 'number' || !(s >= 0 && s <= 1)) throw new RangeError(`combineEvidence: ${name} suspicion must be in [0, 1], got ${String(s)}`);
    p[name] = s;
    present.push(name);
    if (s >= t.signalThreshold) signals.push(name);
  }
  const combined = combineCalibrated(p, params.calibration ?? FITTED_EVIDENCE_CALIBRATION);
  if (combined === undefined) return { suspicion: 0, agrees: false, signals, present, available: false };
  return { suspicion: combined, agrees: combined >= t.agreeThreshold, signals, present, available: true };
}
