import { PermanentError } from '../../../../domain/errors';
import { ScriptedJudge } from '../../../../testing';
import { JudgeBatch } from '../judge-batch';
import { runFixture } from './run-fixture';

const QUERY = 'who painted the velmora harbor mural';
const TEXTS = ['The Velmora harbor mural was painted by Orla Venn in 1990.', 'The Velmora harbor mural was painted by the Tarrow collective.', 'Velmora harbor ferries leave at noon.'];

/** One batch judged: every verdict persisted at once; nothing judged twice, in this run, a rerun or another event. */
describe('JudgeBatch.judgeTexts', () => {
  const setup = async () => {
    const judge = new ScriptedJudge((r) => (r.text.includes('Orla Venn') ? 'YES' : 'NO'));
    const f = await runFixture({ texts: TEXTS, query: QUERY, wrongAnswer: 'Orla Venn', judge });
    const batch = new JudgeBatch({ documents: f.repos.documents, verdicts: f.repos.verdicts, judge, concurrency: 2 });
    return { ...f, judge, batch, ids: TEXTS.map(f.id) };
  };

  it('judges each text with its round\'s other texts as peers and the first batch as context, and saves each verdict with its rank', async () => {
    const { batch, judge, newRun, ids, repos, event } = await setup();
    const run = await newRun();
    run.ranks.set(ids[0]!, { rank: 2, score: 0.5 });
    expect(await batch.judgeTexts(run, ids.slice(0, 2), 1)).toEqual({ [ids[0]!]: 'YES', [ids[1]!]: 'NO' });
    expect(await batch.judgeTexts(run, [ids[2]!], 2)).toEqual({ [ids[2]!]: 'NO' });
    expect(run.judgeCalls).toBe(3);
    expect(run.servedContext).toEqual(TEXTS.slice(0, 2));
    const first = judge.requests.find((r) => r.text === TEXTS[0])!;
    expect(first.peers).toEqual([TEXTS[1]]);
    const later = judge.requests.find((r) => r.text === TEXTS[2])!;
    expect(later.context).toEqual(TEXTS.slice(0, 2));
    expect(later.peers).toEqual([]);
    const saved = new Map((await repos.verdicts.list(event.id)).map((v) => [v.documentId, v]));
    expect(saved.get(ids[0]!)).toMatchObject({ label: 'YES', round: 1, cached: false, retrievalRank: 2, retrievalScore: 0.5, judgeKind: 'scripted' });
    expect(saved.get(ids[2]!)).toMatchObject({ label: 'NO', round: 2, retrievalRank: null });
  });

  it('a rerun replays the event\'s verdicts without a judge call; another event reuses the shared cache', async () => {
    const f = await setup();
    await f.batch.judgeTexts(await f.newRun(), f.ids, 1);
    const calls = f.judge.requests.length;
    const rerun = await f.newRun();
    expect(await f.batch.judgeTexts(rerun, f.ids, 1)).toEqual({ [f.ids[0]!]: 'YES', [f.ids[1]!]: 'NO', [f.ids[2]!]: 'NO' });
    expect(f.judge.requests.length).toBe(calls);
    expect(rerun.judgeCalls + rerun.cachedVerdicts).toBe(0);

    // The same question and answer reported again: a new event, whose verdicts come from the cache.
    const { event: other } = await f.repos.feedback.create({ collection: 'kb', query: QUERY, wrongAnswer: 'Orla Venn', k: 3, trust: 'identified', reporterSource: 'key:svc/u2', reportKey: 'other' });
    const otherRun = { ...(await f.newRun()), ev: (await f.repos.feedback.get(other.id))!, prior: new Map() };
    expect(await f.batch.judgeTexts(otherRun, f.ids, 1)).toEqual({ [f.ids[0]!]: 'YES', [f.ids[1]!]: 'NO', [f.ids[2]!]: 'NO' });
    expect(f.judge.requests.length).toBe(calls);
    expect(otherRun.cachedVerdicts).toBe(3);
    expect((await f.repos.verdicts.list(other.id)).every((v) => v.cached && v.latencyMs === 0)).toBe(true);
  });

  it('a text in the store but not in the registry fails the event permanently', async () => {
    const { batch, newRun, ids } = await setup();
    await expect(batch.judgeTexts(await newRun(), [ids[0]!, 'unregistered-id'], 1)).rejects.toThrow(PermanentError);
  });
});
