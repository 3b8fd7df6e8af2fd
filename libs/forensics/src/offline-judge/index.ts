export { offlineJudge, OFFLINE_JUDGE_MODEL, SCORE_WEIGHTS } from './offline-judge';
export type { OfflineJudgeInput, OfflineJudgeResult } from './offline-judge';
export { DEFAULT_OFFLINE_JUDGE_PARAMS, validateOfflineJudgeParams } from './offline-judge.params';
export type { OfflineJudgeParams } from './offline-judge.params';
