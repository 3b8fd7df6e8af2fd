export { gradaRerank, gradaRerankDetailed, gradaWeights, propagateGradaScores } from './grada';
export type { GradaCandidate, GradaInput, GradaResult, GradaPropagation, GradaRerankDetail } from './grada';
export { DEFAULT_GRADA_PARAMS, validateGradaParams } from './grada.params';
export type { GradaParams, GradaSimilarity } from './grada.params';
