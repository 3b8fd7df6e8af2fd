/**
 * Parameters of the evidence scales: each retriever-side signal (BiRD, GRADA, ProGRank) is mapped
 * to a calibrated P(poisoned) in [0, 1] and the signals present are combined into one. The
 * calibration (weights) is fitted on the development data by scripts/fit-evidence.ts and read from
 * evidence.fitted.json; see calibration.ts for its form.
 */
import type { EvidenceCalibration } from './calibration';

export type { EvidenceSignal } from './calibration';

/** `birdSuspicion`, `gradaSuspicion`, `progrankSuspicion`. */
export interface SignalSuspicionParams {
  /** Default: the fitted calibration (evidence.fitted.json). */
  calibration: EvidenceCalibration;
}

/** `combineEvidence`. */
export interface CombineEvidenceParams {
  /** Default: the fitted calibration (evidence.fitted.json). */
  calibration: EvidenceCalibration;
  /** Combined P(poisoned) at or above which the evidence "agrees" the text is poisoned. Default 0.5. In [0, 1]. */
  agreeThreshold: number;
  /** A single calibrated signal at or above this is listed in `signals` (it "fired"). Default 0.5. In [0, 1]. */
  signalThreshold: number;
}

export const DEFAULT_COMBINE_EVIDENCE_THRESHOLDS: Readonly<Omit<CombineEvidenceParams, 'calibration'>> = Object.freeze({
  agreeThreshold: 0.5,
  signalThreshold: 0.5,
});

function unitInterval(where: string, name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw new RangeError(`${where}.${name} must be in [0, 1], got ${String(v)}`);
  return v;
}

export function validateCombineEvidenceThresholds(p: Partial<CombineEvidenceParams> = {}): Omit<CombineEvidenceParams, 'calibration'> {
  const d = DEFAULT_COMBINE_EVIDENCE_THRESHOLDS;
  return {
    agreeThreshold: unitInterval('CombineEvidenceParams', 'agreeThreshold', p.agreeThreshold ?? d.agreeThreshold),
    signalThreshold: unitInterval('CombineEvidenceParams', 'signalThreshold', p.signalThreshold ?? d.signalThreshold),
  };
}
