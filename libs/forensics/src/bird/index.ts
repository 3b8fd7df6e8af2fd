export { birdScores, spearmanOverCommon } from './bird';
export type { BirdInput, BirdForwardHit, BirdResult, SpearmanOverCommon } from './bird';
export { DEFAULT_BIRD_PARAMS, validateBirdParams } from './bird.params';
export type { BirdParams } from './bird.params';
