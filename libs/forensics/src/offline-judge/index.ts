export { offlineJudge, offlineVerdict, offlineJudgeFeatures, leadStance, rivalCount, withoutOtherNames, joinedNames, romanNumeralPairs, choiceRival, placeName, answerClaim, quotedAnswerSpan, ALL_RULES, NO_RULES, evidenceLogit, evidenceScore, polarAnswer, POLAR_MIN_COVERAGE, OFFLINE_JUDGE_MODEL, OFFLINE_JUDGE_FEATURES, SCORE_WEIGHTS } from './offline-judge';
export type { JudgeRules, OfflineJudgeInput, OfflineJudgeResult, OfflineJudgeFeatures, OfflineJudgeWeights, OfflineJudgeEvidence } from './offline-judge';
export { DEFAULT_OFFLINE_JUDGE_PARAMS, validateOfflineJudgeParams } from './offline-judge.params';
export type { OfflineJudgeParams } from './offline-judge.params';
