import { acceptVerdicts } from '@forensics/algorithms';
import { TraceRounds } from '../trace-rounds';
import { runFixture } from './run-fixture';

const QUERY = 'who painted the velmora harbor mural';
const PLANTED = ['The Velmora harbor mural was painted by Orla Venn in 1990.', 'Orla Venn painted the Velmora harbor mural, locals say.'];
const GENUINE = ['The Velmora harbor mural was painted by the Tarrow collective.', 'Velmora harbor ferries leave at noon.', 'The harbor mural of Velmora faces the sea.', 'Velmora is a harbor town.'];

/** The retrieval side of Algorithm 1 alone: which texts each round hands to the judge, and when the trace is over. */
describe('TraceRounds.nextRound', () => {
  const setup = (servedTexts?: string[]) => runFixture({ texts: [...PLANTED, ...GENUINE], query: QUERY, wrongAnswer: 'Orla Venn', k: 3, servedTexts });
  const rounds = (f: Awaited<ReturnType<typeof setup>>) => new TraceRounds({ documents: f.repos.documents, store: f.store, audit: f.repos.audit, actor: 'worker' });

  it('round 0 is the served texts registered in the collection, in the served order; then the top K without what was set aside', async () => {
    const f = await setup([GENUINE[1]!, PLANTED[0]!]);
    const run = await f.newRun();
    // An id the registry does not know is not served round material.
    (run.ev as { servedIds: string[] }).servedIds = [f.id(GENUINE[1]!), 'not-a-document', f.id(PLANTED[0]!)];
    const r = rounds(f);
    const first = await r.nextRound(run);
    expect(first).toEqual({ round: 0, toJudge: [f.id(GENUINE[1]!), f.id(PLANTED[0]!)] });
    run.state = acceptVerdicts(run.state, { [f.id(GENUINE[1]!)]: 'NO', [f.id(PLANTED[0]!)]: 'YES' });
    const second = await r.nextRound(run);
    expect(second!.round).toBe(1);
    // The YES text is set aside: never retrieved again; the NO one is not judged twice.
    const retrieved = run.state.rounds[1]!.retrieved;
    expect(retrieved).not.toContain(f.id(PLANTED[0]!));
    expect(retrieved).toHaveLength(3);
    expect(second!.toJudge).not.toContain(f.id(GENUINE[1]!));
    expect(second!.toJudge).toEqual(retrieved.filter((id) => id !== f.id(GENUINE[1]!)));
    // Each retrieved text's first rank is noted for its verdict.
    expect(run.ranks.get(retrieved[0]!)).toMatchObject({ rank: 1 });
  });

  it('without served texts the first round is the top K; null once K texts are benign', async () => {
    const f = await setup();
    const run = await f.newRun();
    const r = rounds(f);
    const first = (await r.nextRound(run))!;
    expect(first.round).toBe(1);
    expect(first.toJudge).toHaveLength(3);
    run.state = acceptVerdicts(run.state, Object.fromEntries(first.toJudge.map((id) => [id, 'NO'])));
    expect(run.state.status).toBe('DONE');
    expect(await r.nextRound(run)).toBeNull();
  });

  it('ends the trace (EXHAUSTED) when a round brings nothing new to judge', async () => {
    const f = await setup();
    const run = await f.newRun();
    const r = rounds(f);
    let round = await r.nextRound(run);
    while (round) {
      // Everything YES: the corpus runs out of texts before K are benign.
      run.state = acceptVerdicts(run.state, Object.fromEntries(round.toJudge.map((id) => [id, 'YES'])));
      round = await r.nextRound(run);
    }
    expect(run.state.status).toBe('EXHAUSTED');
    expect(run.state.poisoned).toHaveLength(PLANTED.length + GENUINE.length);
  });
});
