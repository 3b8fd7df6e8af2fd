export { birdSuspicion, gradaSuspicion, progrankSuspicion, combineEvidence } from './evidence';
export type { GradaEvidenceInput, EvidenceInput, CombinedEvidence } from './evidence';
export {
  DEFAULT_BIRD_SUSPICION_PARAMS,
  DEFAULT_GRADA_SUSPICION_PARAMS,
  DEFAULT_PROGRANK_SUSPICION_PARAMS,
  DEFAULT_COMBINE_EVIDENCE_PARAMS,
  validateBirdSuspicionParams,
  validateGradaSuspicionParams,
  validateProgrankSuspicionParams,
  validateCombineEvidenceParams,
} from './evidence.params';
export type { EvidenceSignal, BirdSuspicionParams, GradaSuspicionParams, ProgrankSuspicionParams, CombineEvidenceParams } from './evidence.params';
