import type { OfflineJudgeWeights } from './offline-judge';
import fitted from './offline-judge.fitted.json';

/**
 * Thresholds of the offline evidence judge (the project's stand-in for the LLM judge when no LLM is
 * configured; not from the papers). The YES threshold is fitted with the weights by
 * scripts/fit-offline-judge.ts (cross-validated by question on poisonedrag_nq, poisonedrag_hotpotqa
 * and robustrag_realtimeqa) and read from offline-judge.fitted.json.
 */
export interface OfflineJudgeParams {
  /** YES when score ≥ this. In (0, 1]. Default: the fitted value (offline-judge.fitted.json). */
  yesThreshold: number;
  /** UNDETERMINED when undeterminedBelow ≤ score < yesThreshold (a review band). Set equal to yesThreshold to disable. In [0, yesThreshold]. */
  undeterminedBelow: number;
  /** Share of a multi-token answer's content terms a text must contain to count as partial support. In (0, 1]. */
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
  partialSupportMin: 0.5,
  nearDuplicateMin: 0.25,
});

export function validateOfflineJudgeParams(p: Partial<OfflineJudgeParams> = {}): OfflineJudgeParams {
  const out: OfflineJudgeParams = { ...DEFAULT_OFFLINE_JUDGE_PARAMS };
  for (const [key, value] of Object.entries(p)) if (value !== undefined) (out as unknown as Record<string, unknown>)[key] = value;
  const inUnit = (name: Exclude<keyof OfflineJudgeParams, 'weights'>, lo: number, loOpen: boolean, hi: number) => {
    const v = out[name];
    if (!Number.isFinite(v) || (loOpen ? v <= lo : v < lo) || v > hi) {
      throw new RangeError(`OfflineJudgeParams.${name} must be in ${loOpen ? '(' : '['}${lo}, ${hi}], got ${v}`);
    }
  };
  inUnit('yesThreshold', 0, true, 1);
  inUnit('undeterminedBelow', 0, false, out.yesThreshold);
  inUnit('partialSupportMin', 0, true, 1);
  inUnit('nearDuplicateMin', 0, true, 1);
  if (out.weights !== undefined) {
    const w = out.weights as unknown as Record<string, unknown>;
    const bad = Object.keys(fitted.weights).find((k) => typeof w[k] !== 'number' || !Number.isFinite(w[k]));
    if (bad) throw new RangeError(`OfflineJudgeParams.weights.${bad} must be a finite number, got ${w[bad]}`);
  }
  return out;
}
