export { progrankScores, probeStatistics, gateCenter, selectProbeSet, DEFAULT_PROBE_SET_PARAMS } from './progrank';
export type { ProgrankCandidate, ProgrankInput, ProgrankResult, GateOptions, ProbeSetParams } from './progrank';
export { DEFAULT_PROGRANK_PARAMS, validateProgrankParams } from './progrank.params';
export type { ProgrankParams } from './progrank.params';
export { mulberry32 } from './prng';
export type { Rng } from './prng';
export { quantileLinear } from './quantile';
export { tokenDropout, tokenDropoutMask, DEFAULT_TOKEN_DROPOUT_RATE } from './token-dropout';
