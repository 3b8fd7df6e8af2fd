export { PARAPHRASE_FLOOR, paraphraseStates, questionTermShare, SeedSet, statesAnswer } from './seed-paraphrase';
