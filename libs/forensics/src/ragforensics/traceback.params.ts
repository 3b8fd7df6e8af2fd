/**
 * Parameters of one RAGForensics traceback event (RAGForensics, arXiv 2504.21668, §4.2,
 * Algorithm 1; K = 5 as in §5.1.5). The paper's loop has no bound (Algorithm 1, line 6);
 * maxRounds / maxJudgeCalls are ours.
 */
export interface TraceParams {
  /** K: texts per retrieval round, and the number of benign texts that ends the loop. Default 5 (paper default). Integer in [1, 100]. */
  k: number;
  /** Maximum retrieval rounds per event (the served round 0 does not count). Default 10. Integer in [1, 1000]. */
  maxRounds: number;
  /** Maximum judge calls (texts judged) per event, served round included. Default 50. Integer in [k, 100000]. */
  maxJudgeCalls: number;
}

export const DEFAULT_TRACE_PARAMS: Readonly<TraceParams> = Object.freeze({ k: 5, maxRounds: 10, maxJudgeCalls: 50 });

function checkInt(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`TraceParams.${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

/**
 * Fill defaults and range-check. Throws `RangeError` naming the field. `maxJudgeCalls` must be at
 * least `k`, otherwise the loop could never collect K benign texts and would always end BOUNDED.
 */
export function validateTraceParams(p: Partial<TraceParams> = {}): TraceParams {
  const k = checkInt('k', p.k ?? DEFAULT_TRACE_PARAMS.k, 1, 100);
  const maxRounds = checkInt('maxRounds', p.maxRounds ?? DEFAULT_TRACE_PARAMS.maxRounds, 1, 1000);
  const maxJudgeCalls = checkInt('maxJudgeCalls', p.maxJudgeCalls ?? DEFAULT_TRACE_PARAMS.maxJudgeCalls, 1, 100000);
  if (maxJudgeCalls < k) throw new RangeError(`TraceParams.maxJudgeCalls (${maxJudgeCalls}) must be ≥ k (${k})`);
  return { k, maxRounds, maxJudgeCalls };
}
