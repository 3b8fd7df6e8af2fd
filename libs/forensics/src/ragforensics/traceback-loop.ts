import { TraceParams, validateTraceParams } from './traceback.params';

/**
 * RAGForensics iterative traceback (RAGForensics, arXiv 2504.21668, §4.2, Algorithm 1) as a pure,
 * JSON-serialisable state machine. The caller drives it over its ports:
 *
 *   let s = initTrace(params);
 *   [optional] ({ state: s, toJudge } = acceptServed(s, servedIds)); judge toJudge; s = acceptVerdicts(s, v);
 *   while ((req = nextRetrieval(s))) {
 *     ({ state: s, toJudge } = acceptRetrieval(s, retrieve(q, req.k, req.excludeIds)));
 *     if (s.status !== 'RUNNING') break;
 *     s = acceptVerdicts(s, await judgeAll(toJudge));
 *   }
 *
 * Algorithm 1 with the project's corrections (as printed, it puts every reply without
 * "[Label: Yes]" into Cb, re-judges benign texts that come back in a later round, and has no bound
 * on its loop):
 * - `C = topK(q, K, D \ (Cp ∪ U))`: judged-poisoned texts (Cp) AND undetermined texts (U) are
 *   excluded from retrieval; U is surfaced for review and never counted as benign.
 * - Verdicts are cached per event: a text is judged at most once (benign texts re-retrieved in a
 *   later round are not re-judged; they stay in Cb, a set).
 * - The loop is bounded by `maxRounds` and `maxJudgeCalls`; hitting one is the outcome `BOUNDED`.
 * - If retrieval yields nothing new to judge while |Cb| < K, the corpus holds fewer than K
 *   reachable benign texts: outcome `EXHAUSTED`.
 */
export type Label = 'YES' | 'NO' | 'UNDETERMINED';

/** RUNNING until |Cb| ≥ K (DONE), a bound is hit (BOUNDED), or retrieval runs dry (EXHAUSTED). */
export type TraceStatus = 'RUNNING' | 'DONE' | 'BOUNDED' | 'EXHAUSTED';

export type BoundReason = 'maxRounds' | 'maxJudgeCalls';

export interface TraceRound {
  /** 0 = the served texts (optional), 1.. = retrieval rounds. */
  round: number;
  /** Ids the retriever returned (or the user was served), deduplicated, in rank order. */
  retrieved: string[];
  /** Ids sent to the judge this round (no cached verdict, within the judge budget). */
  judged: string[];
}

export interface TraceState {
  params: TraceParams;
  /** Completed retrieval rounds (the served round 0 is not counted). */
  round: number;
  status: TraceStatus;
  boundReason?: BoundReason;
  /** Cp: judged YES, in verdict order. */
  poisoned: string[];
  /** Cb: judged NO, in verdict order. */
  benign: string[];
  /** Judged UNDETERMINED: excluded from retrieval, surfaced for human review, never benign. */
  undetermined: string[];
  /** The verdict cache of this event: id → label. */
  verdicts: Record<string, Label>;
  /** Texts judged so far (one call per text; adapter-level re-asks are not counted here). */
  judgeCalls: number;
  rounds: TraceRound[];
  /** Ids handed out for judging and not yet answered; null when no verdicts are awaited. */
  pending: { round: number; ids: string[] } | null;
}

export interface TraceSummary {
  status: TraceStatus;
  boundReason?: BoundReason;
  rounds: number;
  servedRound: boolean;
  judgeCalls: number;
  poisoned: number;
  benign: number;
  undetermined: number;
  /** True when undetermined texts need a human (they were set aside, not cleared). */
  needsReview: boolean;
}

/** A fresh event state. Throws RangeError on bad params (see `validateTraceParams`). */
export function initTrace(params: Partial<TraceParams> = {}): TraceState {
  return {
    params: validateTraceParams(params),
    round: 0,
    status: 'RUNNING',
    poisoned: [],
    benign: [],
    undetermined: [],
    verdicts: {},
    judgeCalls: 0,
    rounds: [],
    pending: null,
  };
}

function clone(state: TraceState): TraceState {
  return {
    ...state,
    params: { ...state.params },
    poisoned: [...state.poisoned],
    benign: [...state.benign],
    undetermined: [...state.undetermined],
    verdicts: { ...state.verdicts },
    rounds: state.rounds.map((r) => ({ round: r.round, retrieved: [...r.retrieved], judged: [...r.judged] })),
    pending: state.pending ? { round: state.pending.round, ids: [...state.pending.ids] } : null,
  };
}

function dedupe(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

function assertReady(state: TraceState, op: string): void {
  if (state.pending) throw new Error(`${op}: verdicts for round ${state.pending.round} are still pending`);
}

function unjudgedWithinBudget(state: TraceState, ids: readonly string[]): string[] {
  const remaining = state.params.maxJudgeCalls - state.judgeCalls;
  return ids.filter((id) => !Object.prototype.hasOwnProperty.call(state.verdicts, id)).slice(0, Math.max(0, remaining));
}

/**
 * Optional round 0: judge first the texts the user was actually served (they produced the wrong
 * output). Allowed only on a fresh RUNNING state. Does not count toward `maxRounds`; its judge
 * calls count toward `maxJudgeCalls`. An empty served list is recorded and judges nothing.
 */
export function acceptServed(state: TraceState, servedIds: readonly string[]): { state: TraceState; toJudge: string[] } {
  assertReady(state, 'acceptServed');
  if (state.status !== 'RUNNING' || state.rounds.length > 0) {
    throw new Error('acceptServed: the served round must come first, on a fresh RUNNING trace');
  }
  const next = clone(state);
  const retrieved = dedupe(servedIds);
  const toJudge = unjudgedWithinBudget(next, retrieved);
  next.rounds.push({ round: 0, retrieved, judged: [...toJudge] });
  next.pending = toJudge.length > 0 ? { round: 0, ids: [...toJudge] } : null;
  return { state: next, toJudge };
}

/**
 * What to retrieve next: the top `k` texts for the query, excluding Cp ∪ U (Algorithm 1 line 7,
 * `D \ Cp`, plus the undetermined set). `null` once the trace is finished.
 */
export function nextRetrieval(state: TraceState): { k: number; excludeIds: string[] } | null {
  assertReady(state, 'nextRetrieval');
  if (state.status !== 'RUNNING') return null;
  return { k: state.params.k, excludeIds: [...state.poisoned, ...state.undetermined] };
}

/**
 * Record one retrieval round (Algorithm 1 line 7) and return the texts to judge: retrieved ids
 * without a cached verdict, trimmed to the remaining judge budget. If nothing new can be judged
 * while |Cb| < K, the status becomes EXHAUSTED (the corpus has fewer than K benign texts reachable).
 */
export function acceptRetrieval(state: TraceState, retrievedIds: readonly string[]): { state: TraceState; toJudge: string[] } {
  assertReady(state, 'acceptRetrieval');
  if (state.status !== 'RUNNING') throw new Error(`acceptRetrieval: trace is ${state.status}`);
  const next = clone(state);
  const retrieved = dedupe(retrievedIds);
  const toJudge = unjudgedWithinBudget(next, retrieved);
  const round = next.round + 1;
  next.rounds.push({ round, retrieved, judged: [...toJudge] });
  if (toJudge.length === 0) {
    next.round = round;
    next.status = next.benign.length >= next.params.k ? 'DONE' : 'EXHAUSTED';
    return { state: next, toJudge };
  }
  next.pending = { round, ids: [...toJudge] };
  return { state: next, toJudge };
}

/**
 * Record the verdicts for the pending texts (Algorithm 1 lines 8–15) and advance: DONE when
 * |Cb| ≥ K (line 6), else BOUNDED if `maxRounds` retrieval rounds are done or the judge budget is
 * spent, else RUNNING. `verdicts` must hold exactly the pending ids (a failed judge call is the
 * caller's UNDETERMINED, never a missing entry).
 */
export function acceptVerdicts(state: TraceState, verdicts: Readonly<Record<string, Label>>): TraceState {
  const pending = state.pending;
  if (!pending) throw new Error('acceptVerdicts: no verdicts are pending');
  const given = Object.keys(verdicts);
  const unexpected = given.filter((id) => !pending.ids.includes(id));
  if (unexpected.length > 0) throw new Error(`acceptVerdicts: verdicts for ids that were not pending: ${unexpected.join(', ')}`);
  const missing = pending.ids.filter((id) => !Object.prototype.hasOwnProperty.call(verdicts, id));
  if (missing.length > 0) throw new Error(`acceptVerdicts: missing verdicts for: ${missing.join(', ')}`);

  const next = clone(state);
  for (const id of pending.ids) {
    const label = verdicts[id];
    if (label !== 'YES' && label !== 'NO' && label !== 'UNDETERMINED') {
      throw new Error(`acceptVerdicts: invalid label for ${id}: ${String(label)}`);
    }
    next.verdicts[id] = label;
    next.judgeCalls += 1;
    if (label === 'YES') next.poisoned.push(id);
    else if (label === 'NO') next.benign.push(id);
    else next.undetermined.push(id);
  }
  next.pending = null;
  if (pending.round > 0) next.round = pending.round;

  if (next.benign.length >= next.params.k) next.status = 'DONE';
  else if (next.round >= next.params.maxRounds) {
    next.status = 'BOUNDED';
    next.boundReason = 'maxRounds';
  } else if (next.judgeCalls >= next.params.maxJudgeCalls) {
    next.status = 'BOUNDED';
    next.boundReason = 'maxJudgeCalls';
  }
  return next;
}

/** Counts for reports and the event record. */
export function summarizeTrace(state: TraceState): TraceSummary {
  return {
    status: state.status,
    ...(state.boundReason ? { boundReason: state.boundReason } : {}),
    rounds: state.round,
    servedRound: state.rounds.some((r) => r.round === 0),
    judgeCalls: state.judgeCalls,
    poisoned: state.poisoned.length,
    benign: state.benign.length,
    undetermined: state.undetermined.length,
    needsReview: state.undetermined.length > 0,
  };
}
