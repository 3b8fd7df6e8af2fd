import { AttachEvidence } from '../attach-evidence';
import { NeighbourCache } from '../collect-evidence';
import { JudgeBatch } from '../judge-batch';
import { runFixture } from './run-fixture';

const QUERY = 'who painted the velmora harbor mural';
const TEXTS = [
  'The Velmora harbor mural was painted by Orla Venn in 1990.', 'The Velmora harbor mural was painted by the Tarrow collective.',
  'Velmora harbor ferries leave at noon.', 'The harbor mural of Velmora faces the sea.', 'Velmora is a harbor town.', 'Murals in harbor towns fade.',
];

/** Retriever-side evidence on judged texts: stored on their verdicts, kept on the run with the rows the decisions read. */
describe('AttachEvidence.attachEvidence', () => {
  const setup = async (enabled = true) => {
    const f = await runFixture({ texts: TEXTS, query: QUERY, wrongAnswer: 'Orla Venn' });
    const run = await f.newRun();
    const ids = TEXTS.slice(0, 3).map(f.id);
    await new JudgeBatch({ documents: f.repos.documents, verdicts: f.repos.verdicts, judge: f.judge, concurrency: 2 }).judgeTexts(run, ids, 1);
    const evidence = new AttachEvidence({
      store: f.store, verdicts: f.repos.verdicts, probe: { probe: null, reason: 'no probe in this spec' }, neighbours: new NeighbourCache(), embedder: f.embedder,
      settings: { enabled, birdK: 5 },
    });
    return { ...f, run, ids, evidence };
  };

  it('stores BiRD / GRADA / ProGRank on each verdict and keeps the rows as stored', async () => {
    const { run, ids, evidence, repos, event } = await setup();
    await evidence.attachEvidence(run, ids);
    expect(Object.keys(run.evidence).sort()).toEqual([...ids].sort());
    expect(run.evidence[ids[0]!]!.progrank).toMatchObject({ skipped: 'no probe in this spec' });
    expect(run.evidence[ids[0]!]!.bird).toHaveProperty('suspicion');
    // Stored as JSON (BiRD's infinite score of a perfectly consistent text reads back as null).
    for (const v of await repos.verdicts.list(event.id)) expect(v.evidence).toEqual(JSON.parse(JSON.stringify(run.evidence[v.documentId])));
    expect([...run.verdictRows.keys()].sort()).toEqual([...ids].sort());
    expect(run.evidenceError).toBeNull();
  });

  it('with evidence off stores none, and still keeps the verdict rows for the decisions', async () => {
    const { run, ids, evidence, repos, event } = await setup(false);
    await evidence.attachEvidence(run, ids);
    expect(run.evidence).toEqual({});
    expect((await repos.verdicts.list(event.id)).every((v) => v.evidence === null)).toBe(true);
    expect(run.verdictRows.get(ids[0]!)?.label).toBe('YES');
  });

  it('a failure never blocks the traceback: it is recorded on the verdicts it was for, and the run keeps the first one', async () => {
    const { run, ids, evidence, repos, event, store } = await setup();
    const search = jest.spyOn(store, 'search').mockRejectedValueOnce(new Error('store down')).mockRejectedValueOnce(new Error('still down'));
    await evidence.attachEvidence(run, ids.slice(0, 2));
    await evidence.attachEvidence(run, ids.slice(2));
    search.mockRestore();
    expect(run.evidenceError).toBe('store down');
    const saved = new Map((await repos.verdicts.list(event.id)).map((v) => [v.documentId, v.evidence]));
    expect(saved.get(ids[0]!)).toEqual({ error: 'store down' });
    expect(saved.get(ids[2]!)).toEqual({ error: 'still down' });
  });
});
