import { initTrace } from '@forensics/algorithms';
import type { CollectionRow, FeedbackRow } from '../../../../ports/repositories';
import { newTraceRun } from '../trace-run';

/** The state one traceback carries across its steps starts empty, and is never shared between two runs. */
describe('newTraceRun', () => {
  const init = () => ({
    ev: { id: 'ev-1', collection: 'kb' } as FeedbackRow, collection: { name: 'kb', embedder: 'e', dimension: 3 } as CollectionRow,
    queryVector: [1, 0, 0], proxyIds: ['proxy-1'], prior: new Map(), state: initTrace({ k: 5 }),
  });

  it('starts with no judge calls, ranks, rows or evidence, and keeps what it was given', () => {
    const run = newTraceRun(init());
    expect(run).toMatchObject({ judgeCalls: 0, cachedVerdicts: 0, evidence: {}, evidenceError: null, proxyIds: ['proxy-1'] });
    expect(run.servedContext).toBeUndefined();
    expect([run.ranks.size, run.docs.size, run.verdictRows.size]).toEqual([0, 0, 0]);
    expect(run.state.params.k).toBe(5);
  });

  it('two runs share no state (one event\'s ranks, rows or evidence never reach another)', () => {
    const a = newTraceRun(init());
    const b = newTraceRun(init());
    a.ranks.set('d1', { rank: 1, score: 0.9 });
    a.evidence['d1'] = {} as never;
    a.verdictRows.set('d1', {} as never);
    expect(b.ranks.size + b.verdictRows.size + Object.keys(b.evidence).length).toBe(0);
  });
});
