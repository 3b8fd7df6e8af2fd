import {
  acceptRetrieval, acceptServed, acceptVerdicts, DEFAULT_TRACE_PARAMS, initTrace, Label, nextRetrieval,
  summarizeTrace, TraceParams, TraceState, validateTraceParams,
} from '@forensics/algorithms';

/** In-test retriever: a fixed ranking; top-k ids not excluded. */
function retrieverOver(ranking: readonly string[]) {
  return (k: number, excludeIds: readonly string[]) => ranking.filter((id) => !excludeIds.includes(id)).slice(0, k);
}

/** Drive the loop to the end with a scripted judge (label map, default NO); records every judge call. */
function run(ranking: readonly string[], labels: Record<string, Label>, params: Partial<TraceParams> = {}, served?: string[]) {
  const retrieve = retrieverOver(ranking);
  const judgeLog: string[] = [];
  const judge = (ids: string[]) => Object.fromEntries(ids.map((id) => { judgeLog.push(id); return [id, labels[id] ?? 'NO'] as const; }));
  const retrievals: { k: number; excludeIds: string[] }[] = [];
  let s: TraceState = initTrace(params);
  if (served) {
    const r = acceptServed(s, served);
    s = r.toJudge.length ? acceptVerdicts(r.state, judge(r.toJudge)) : r.state;
  }
  for (let req = nextRetrieval(s); req; req = nextRetrieval(s)) {
    retrievals.push(req);
    const r = acceptRetrieval(s, retrieve(req.k, req.excludeIds));
    s = r.state;
    if (s.status !== 'RUNNING') break;
    s = acceptVerdicts(s, judge(r.toJudge));
  }
  return { s, judgeLog, retrievals };
}

const ranking = ['p1', 'c1', 'p2', 'c2', 'p3', 'c3', 'c4', 'c5', 'c6', 'c7'];
const poisonedLabels: Record<string, Label> = { p1: 'YES', p2: 'YES', p3: 'YES' };

describe('traceback params', () => {
  it('defaults to the paper K=5 and the documented bounds', () => {
    expect(DEFAULT_TRACE_PARAMS).toEqual({ k: 5, maxRounds: 10, maxJudgeCalls: 50 });
    expect(validateTraceParams({})).toEqual({ k: 5, maxRounds: 10, maxJudgeCalls: 50 });
    expect(validateTraceParams({ k: 3, maxJudgeCalls: 3 })).toEqual({ k: 3, maxRounds: 10, maxJudgeCalls: 3 });
  });
  it.each([
    [{ k: 0 }, /k must be an integer in \[1, 100\], got 0/],
    [{ k: 2.5 }, /k must be an integer/],
    [{ k: Number.NaN }, /k must be an integer/],
    [{ maxRounds: 0 }, /maxRounds must be an integer in \[1, 1000\]/],
    [{ maxJudgeCalls: -1 }, /maxJudgeCalls must be an integer/],
    [{ k: 5, maxJudgeCalls: 4 }, /maxJudgeCalls \(4\) must be ≥ k \(5\)/],
  ])('rejects %j', (p, msg) => {
    expect(() => validateTraceParams(p as Partial<TraceParams>)).toThrow(RangeError);
    expect(() => validateTraceParams(p as Partial<TraceParams>)).toThrow(msg);
    expect(() => initTrace(p as Partial<TraceParams>)).toThrow(RangeError);
  });
});

describe('RAGForensics loop (Algorithm 1)', () => {
  it('stops as soon as K benign texts are collected', () => {
    const { s, retrievals } = run(ranking, poisonedLabels);
    // Round 1: p1 c1 p2 c2 p3 → Cp={p1,p2,p3}, Cb={c1,c2}; round 2: c1 c2 c3 c4 c5 → Cb has 5.
    expect(s.status).toBe('DONE');
    expect(s.round).toBe(2);
    expect(s.poisoned).toEqual(['p1', 'p2', 'p3']);
    expect(s.benign).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(s.judgeCalls).toBe(8);
    expect(retrievals).toHaveLength(2);
    expect(nextRetrieval(s)).toBeNull();
    expect(summarizeTrace(s)).toEqual({ status: 'DONE', rounds: 2, servedRound: false, judgeCalls: 8, poisoned: 3, benign: 5, undetermined: 0, needsReview: false });
  });

  it('excludes judged-poisoned texts from the next retrieval', () => {
    const { retrievals, s } = run(ranking, poisonedLabels);
    expect(retrievals[0]).toEqual({ k: 5, excludeIds: [] });
    expect(retrievals[1]).toEqual({ k: 5, excludeIds: ['p1', 'p2', 'p3'] });
    expect(s.rounds[1]).toEqual({ round: 2, retrieved: ['c1', 'c2', 'c3', 'c4', 'c5'], judged: ['c3', 'c4', 'c5'] });
  });

  it('judges each text once per event (benign texts re-retrieved are not re-judged)', () => {
    const { judgeLog } = run(ranking, poisonedLabels);
    expect(judgeLog).toEqual(['p1', 'c1', 'p2', 'c2', 'p3', 'c3', 'c4', 'c5']);
    expect(new Set(judgeLog).size).toBe(judgeLog.length);
  });

  it('ends in one round when the first top-K is all benign', () => {
    const { s } = run(ranking, {});
    expect(s.status).toBe('DONE');
    expect(s.round).toBe(1);
    expect(s.poisoned).toEqual([]);
  });

  it('is BOUNDED by maxRounds when poison keeps coming', () => {
    // 12 poisoned texts ahead of every clean one, K=2: each round yields 2 new poisoned texts.
    const deep = [...Array.from({ length: 12 }, (_, i) => `p${i}`), 'c1', 'c2'];
    const labels = Object.fromEntries(deep.filter((id) => id.startsWith('p')).map((id) => [id, 'YES' as Label]));
    const { s } = run(deep, labels, { k: 2, maxRounds: 3, maxJudgeCalls: 50 });
    expect(s.status).toBe('BOUNDED');
    expect(s.boundReason).toBe('maxRounds');
    expect(s.round).toBe(3);
    expect(s.judgeCalls).toBe(6);
    expect(nextRetrieval(s)).toBeNull();
  });

  it('is BOUNDED by maxJudgeCalls, trimming the last batch to the remaining budget', () => {
    const deep = [...Array.from({ length: 12 }, (_, i) => `p${i}`), 'c1', 'c2', 'c3'];
    const labels = Object.fromEntries(deep.filter((id) => id.startsWith('p')).map((id) => [id, 'YES' as Label]));
    const { s, judgeLog } = run(deep, labels, { k: 3, maxRounds: 10, maxJudgeCalls: 7 });
    // Rounds of 3, 3, then only 1 call left.
    expect(judgeLog).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    expect(s.rounds[2].judged).toEqual(['p6']);
    expect(s.status).toBe('BOUNDED');
    expect(s.boundReason).toBe('maxJudgeCalls');
    expect(s.judgeCalls).toBe(7);
  });

  it('sets UNDETERMINED texts aside: excluded from retrieval, never counted as benign', () => {
    const { s, retrievals } = run(ranking, { ...poisonedLabels, c1: 'UNDETERMINED' });
    expect(s.undetermined).toEqual(['c1']);
    expect(s.benign).not.toContain('c1');
    expect(retrievals[1].excludeIds).toEqual(['p1', 'p2', 'p3', 'c1']);
    // Cb: c2 (round 1), then c2 c3 c4 c5 c6 → c3..c6 new.
    expect(s.benign).toEqual(['c2', 'c3', 'c4', 'c5', 'c6']);
    expect(s.status).toBe('DONE');
    expect(summarizeTrace(s).needsReview).toBe(true);
  });

  it('is EXHAUSTED when the corpus holds fewer than K benign texts', () => {
    const { s } = run(['p1', 'c1', 'p2', 'c2'], { p1: 'YES', p2: 'YES' }, { k: 3, maxJudgeCalls: 10 });
    // Round 1: p1 c1 p2; round 2 (minus p1, p2): c1 c2 → c2 new; round 3: c1 c2, nothing new → EXHAUSTED, |Cb| = 2 < 3.
    expect(s.status).toBe('EXHAUSTED');
    expect(s.round).toBe(3);
    expect(s.rounds[2]).toEqual({ round: 3, retrieved: ['c1', 'c2'], judged: [] });
    expect(s.benign).toEqual(['c1', 'c2']);
    expect(s.judgeCalls).toBe(4);
    expect(nextRetrieval(s)).toBeNull();
  });

  it('is EXHAUSTED on an empty knowledge base', () => {
    const { s } = run([], {});
    expect(s.status).toBe('EXHAUSTED');
    expect(s.judgeCalls).toBe(0);
  });

  it('judges the served texts first (round 0), without counting toward maxRounds', () => {
    const { s, judgeLog, retrievals } = run(ranking, poisonedLabels, { maxRounds: 1 }, ['c6', 'p2', 'c7']);
    expect(s.rounds[0]).toEqual({ round: 0, retrieved: ['c6', 'p2', 'c7'], judged: ['c6', 'p2', 'c7'] });
    expect(retrievals[0].excludeIds).toEqual(['p2']);
    // Round 1 (excluding p2): p1 c1 c2 p3 c3 → benign c6 c7 c1 c2 c3 = 5 within the one allowed round.
    expect(judgeLog).toEqual(['c6', 'p2', 'c7', 'p1', 'c1', 'c2', 'p3', 'c3']);
    expect(s.status).toBe('DONE');
    expect(s.round).toBe(1);
    expect(summarizeTrace(s).servedRound).toBe(true);
  });

  it('served judge calls count toward maxJudgeCalls', () => {
    const { s } = run(ranking, poisonedLabels, { k: 2, maxJudgeCalls: 2 }, ['p1', 'p2', 'p3']);
    expect(s.rounds[0].judged).toEqual(['p1', 'p2']);
    expect(s.status).toBe('BOUNDED');
    expect(s.boundReason).toBe('maxJudgeCalls');
    expect(s.round).toBe(0);
  });

  it('returns new objects and leaves its inputs untouched (plain JSON)', () => {
    const s0 = initTrace({ k: 2, maxJudgeCalls: 4 });
    const frozen = JSON.stringify(s0);
    const { state: s1, toJudge } = acceptRetrieval(s0, ['a', 'b', 'a']);
    expect(toJudge).toEqual(['a', 'b']);
    expect(JSON.stringify(s0)).toBe(frozen);
    const snap1 = JSON.stringify(s1);
    const s2 = acceptVerdicts(s1, { a: 'YES', b: 'NO' });
    expect(JSON.stringify(s1)).toBe(snap1);
    expect(s2).not.toBe(s1);
    expect(JSON.parse(JSON.stringify(s2))).toEqual(s2);
  });

  it('rejects protocol misuse', () => {
    const s0 = initTrace();
    const { state: s1 } = acceptRetrieval(s0, ['a']);
    expect(() => nextRetrieval(s1)).toThrow(/pending/);
    expect(() => acceptRetrieval(s1, ['b'])).toThrow(/pending/);
    expect(() => acceptVerdicts(s1, {})).toThrow(/missing verdicts for: a/);
    expect(() => acceptVerdicts(s1, { a: 'NO', z: 'NO' })).toThrow(/not pending: z/);
    expect(() => acceptVerdicts(s1, { a: 'MAYBE' as Label })).toThrow(/invalid label/);
    expect(() => acceptVerdicts(s0, { a: 'NO' })).toThrow(/no verdicts are pending/);
    const s2 = acceptVerdicts(s1, { a: 'NO' });
    expect(() => acceptServed(s2, ['x'])).toThrow(/served round must come first/);
  });
});
