import { OFFLINE_JUDGE_FEATURES, type OfflineJudgeWeights } from './offline-judge.features';
import fitted from './offline-judge.fitted.json';

/**
 * Thresholds of the offline evidence judge (the project's stand-in for the LLM judge when no LLM is
 * configured; not from the papers). The YES threshold, the band and the support gate are fitted with
 * the weights by scripts/fit-offline-judge.ts (leave-one-file-out on the development files) and read
 * from offline-judge.fitted.json.
 */
export interface OfflineJudgeParams {
  /** YES when score ≥ this. In (0, 1]. Default: the fitted value (offline-judge.fitted.json). */
  yesThreshold: number;
  /** UNDETERMINED when undeterminedBelow ≤ score < yesThreshold (a review band). Set equal to yesThreshold to disable. In [0, yesThreshold]. */
  undeterminedBelow: number;
  /**
   * The confidence band (issue 13): a score in [bandLow, bandHigh) is not clear either way, and the
   * verdict says so (`signals.confidence = 'band'`); the decision policy sends such texts to review
   * instead of quarantining them (YES) or letting them go (NO). bandLow ≤ yesThreshold ≤ bandHigh ≤ 1.
   * Default: the fitted edges (offline-judge.fitted.json); equal to yesThreshold = no band.
   */
  bandLow: number;
  bandHigh: number;
  /** Share of a multi-token answer's content terms a text must contain to count as partial support. In (0, 1]. Default: the fitted value. */
  partialSupportMin: number;
  /** Content-term Jaccard similarity above which a peer counts as a near-duplicate. In (0, 1]. */
  nearDuplicateMin: number;
  /**
   * Logistic weights of the evidence score. Default: the fitted weights (offline-judge.fitted.json,
   * `SCORE_WEIGHTS`). Set by scripts/fit-offline-judge.ts to measure weights fitted on other data
   * (leave-one-dataset-out); every weight must be a finite number.
   */
  weights?: Readonly<OfflineJudgeWeights>;
}

export const DEFAULT_OFFLINE_JUDGE_PARAMS: Readonly<OfflineJudgeParams> = Object.freeze({
  yesThreshold: fitted.yesThreshold,
  undeterminedBelow: fitted.yesThreshold,
  bandLow: fitted.band.low,
  bandHigh: fitted.band.high,
  partialSupportMin: fitted.partialSupportMin,
  nearDuplicateMin: 0.25,
});

export function validateOfflineJudgeParams(p: Partial<OfflineJudgeParams> = {}): OfflineJudgeParams {
  const out: OfflineJudgeParams = { ...DEFAULT_OFFLINE_JUDGE_PARAMS };
  // A YES threshold set by the caller without its own band / undetermined edge gets none (both follow it):
  // the fitted edges belong to the fitted threshold.
  if (p.yesThreshold !== undefined) { out.undeterminedBelow = p.yesThreshold; out.bandLow = p.yesThreshold; out.bandHigh = p.yesThreshold; }
  for (const [key, value] of Object.entries(p)) if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  const inUnit = (name: Exclude<keyof OfflineJudgeParams, 'weights'>, lo: number, loOpen: boolean, hi: number) => {
    const v = out[name];
    if (!Number.isFinite(v) || (loOpen ? v <= lo : v < lo) || v > hi) {
      throw new RangeError(`OfflineJudgeParams.${name} must be in ${loOpen ? '(' : '['}${lo}, ${hi}], got ${v}`);
    }
  };
  inUnit('yesThreshold', 0, true, 1);
  inUnit('undeterminedBelow', 0, false, out.yesThreshold);
  inUnit('bandLow', 0, false, out.yesThreshold);
  inUnit('bandHigh', out.yesThreshold, false, 1);
  inUnit('partialSupportMin', 0, true, 1);
  inUnit('nearDuplicateMin', 0, true, 1);
  if (out.weights !== undefined) {
    const w = out.weights as unknown as Record<string, unknown>;
    const known = new Set<string>(['bias', ...OFFLINE_JUDGE_FEATURES]);
    const unknown = Object.keys(w).find((k) => !known.has(k));
    if (unknown) throw new RangeError(`OfflineJudgeParams.weights.${unknown} is not a feature of the offline judge (features: ${OFFLINE_JUDGE_FEATURES.join(', ')})`);
    const bad = Object.keys(w).find((k) => typeof w[k] !== 'number' || !Number.isFinite(w[k])) ?? (typeof w.bias === 'number' ? undefined : 'bias');
    if (bad) throw new RangeError(`OfflineJudgeParams.weights.${bad} must be a finite number, got ${w[bad]}`);
  }
  return out;
}
