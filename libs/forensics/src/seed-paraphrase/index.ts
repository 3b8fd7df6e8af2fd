export { PARAPHRASE_FLOOR, paraphraseStates, SeedSet, statesAnswer } from './seed-paraphrase';
