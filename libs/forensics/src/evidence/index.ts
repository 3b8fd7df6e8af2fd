export { birdSuspicion, gradaSuspicion, progrankSuspicion, combineEvidence, FITTED_EVIDENCE_CALIBRATION } from './evidence';
export type { GradaEvidenceInput, EvidenceInput, CombinedEvidence } from './evidence';
export { DEFAULT_COMBINE_EVIDENCE_THRESHOLDS, validateCombineEvidenceThresholds } from './evidence.params';
export type { EvidenceSignal, SignalSuspicionParams, CombineEvidenceParams } from './evidence.params';
export {
  EVIDENCE_SIGNALS, birdFeature, gradaFeatures, progrankFeature, signalFeatures, sigmoid, logit, applyLogistic, calibratedSignal, subsetKey,
  combineCalibrated, fitLogistic, fitEvidenceCalibration, scoreEvidenceRows, auroc,
} from './calibration';
export type { RawEvidence, CalibrationRow, LogisticModel, EvidenceCalibration } from './calibration';
