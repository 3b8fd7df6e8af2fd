export { initTrace, acceptServed, nextRetrieval, acceptRetrieval, acceptVerdicts, summarizeTrace } from './traceback-loop';
export type { Label, TraceStatus, BoundReason, TraceRound, TraceState, TraceSummary } from './traceback-loop';
export { DEFAULT_TRACE_PARAMS, validateTraceParams } from './traceback.params';
export type { TraceParams } from './traceback.params';
