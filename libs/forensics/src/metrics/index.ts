export { confusionOf, addConfusion, detectionRates, pooledRates, macroRates, ZERO_CONFUSION } from './detection-metrics';
export type { ConfusionCounts, DetectionRates, MacroRates, JudgedText } from './detection-metrics';
export { poisonInTopK, poisonHitAtK, poisonRecallAtK, meanOf } from './retrieval-metrics';
