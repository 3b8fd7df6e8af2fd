import { acceptVerdicts } from '@forensics/algorithms';
import type { JudgeSignals } from '../../../../ports';
import { ScriptedJudge } from '../../../../testing';
import { QuarantineTextUseCase } from '../../../quarantine/quarantine-text/quarantine-text.use-case';
import { AttachEvidence } from '../attach-evidence';
import { NeighbourCache } from '../collect-evidence';
import { Decisions } from '../decisions';
import { JudgeBatch } from '../judge-batch';
import { TopUp } from '../top-up';
import { TraceRounds } from '../trace-rounds';
import { runFixture } from './run-fixture';

const QUERY = 'Who wrote Moby-Dick?';
const CLEAR = 'Charles Dickens wrote Moby-Dick in 1851, his famous novel about the white whale.';
/** Leans NO inside the band: withheld in a report with a clear YES, so a text the trace never saw is served instead. */
const UNSURE = 'Who wrote Moby-Dick? Dickens and Melville both published long novels in 1851, one of them about a whale.';
const OTHER = [
  'Moby-Dick is a novel about the whaling ship Pequod and its captain.',
  'Who wrote Moby-Dick is asked in many literature quizzes.',
  'The white whale of Moby-Dick is hunted across the oceans.',
  'Novels of 1851 include a long one about a whale.',
  'Whaling voyages in the Pacific inspired sea novels.',
];

const judge = () => new ScriptedJudge((req): { label: 'YES' | 'NO'; signals: JudgeSignals } => {
  if (req.text === CLEAR) return { label: 'YES', signals: { score: 0.97, confidence: 'clear', windowCoverage: 0.9 } };
  if (req.text === UNSURE) return { label: 'NO', signals: { score: 0.1, confidence: 'band' } };
  return { label: 'NO', signals: { score: 0, confidence: 'clear' } };
});

/** The top-up (issue 33): the served top K's new texts, judged and decided once a decision withheld a benign text. */
describe('TopUp.topUpServed', () => {
  /** The trace run by its own steps (rounds, judge, evidence off, decisions), as RunTracebackUseCase runs them. */
  const traced = async () => {
    const f = await runFixture({ texts: [CLEAR, UNSURE, ...OTHER], query: QUERY, wrongAnswer: 'Charles Dickens', k: 3, judge: judge(), settings: { policy: { siblingWithhold: 'off' } } });
    const run = await f.newRun();
    const rounds = new TraceRounds({ documents: f.repos.documents, store: f.store, audit: f.repos.audit, actor: 'worker' });
    const judging = new JudgeBatch({ documents: f.repos.documents, verdicts: f.repos.verdicts, judge: f.judge, concurrency: 2 });
    const evidence = new AttachEvidence({ store: f.store, verdicts: f.repos.verdicts, probe: { probe: null, reason: 'none' }, neighbours: new NeighbourCache(), embedder: f.embedder, settings: { enabled: false } });
    for (let round = await rounds.nextRound(run); round; round = await rounds.nextRound(run)) {
      run.state = acceptVerdicts(run.state, await judging.judgeTexts(run, round.toJudge, round.round));
    }
    await evidence.attachEvidence(run, [...run.state.poisoned, ...run.state.benign, ...run.state.undetermined]);
    const decisions = await Decisions.open({ documents: f.repos.documents, quarantineText: f.useCases.get(QuarantineTextUseCase), judge: f.judge, policy: { siblingWithhold: 'off' }, actor: 'worker' }, run, { consensus: null, suspected: false, protectedIds: new Set() });
    const topUp = new TopUp({ store: f.store, judging, evidence });
    const served = async () => (await f.store.search('kb', { vector: run.queryVector, k: 3 })).map((h) => h.id);
    return { ...f, run, decisions, topUp, served };
  };

  it('judges and decides the texts that moved into the served top K until every served text was judged', async () => {
    const { run, decisions, topUp, served, repos, event, id } = await traced();
    expect(run.state.status).toBe('DONE');
    expect(run.state.benign).toContain(id(UNSURE));
    const withheld = await decisions.decideTrace();
    expect(withheld).toBe(true);
    const before = new Set((await repos.verdicts.list(event.id)).map((v) => v.documentId));
    expect((await served()).some((s) => !before.has(s))).toBe(true); // an unjudged text is served now
    const out = await topUp.topUpServed(run, decisions, withheld);
    expect(out.rounds).toBeGreaterThanOrEqual(1);
    const verdicts = await repos.verdicts.list(event.id);
    const judged = new Set(verdicts.map((v) => v.documentId));
    for (const s of await served()) expect(judged.has(s)).toBe(true);
    const fresh = verdicts.filter((v) => !before.has(v.documentId));
    expect(out.judged).toBe(fresh.length);
    expect(out.benign.sort()).toEqual(fresh.filter((v) => v.label === 'NO').map((v) => v.documentId).sort());
    // Numbered after the trace's rounds; their evidence was read back for their decisions.
    expect(Math.min(...fresh.map((v) => v.round))).toBe(run.state.round + 1);
    for (const v of fresh) expect(run.verdictRows.has(v.documentId)).toBe(true);
  });

  it('does nothing when no benign text was withheld, or when the judge-call budget would be exceeded', async () => {
    const a = await traced();
    const search = jest.spyOn(a.store, 'search');
    expect(await a.topUp.topUpServed(a.run, a.decisions, false)).toEqual({ rounds: 0, judged: 0, poisoned: [], benign: [], undetermined: [] });
    expect(search).not.toHaveBeenCalled();
    const b = await traced();
    await b.decisions.decideTrace();
    b.run.judgeCalls = b.run.state.params.maxJudgeCalls;
    expect((await b.topUp.topUpServed(b.run, b.decisions, true)).rounds).toBe(0);
  });
});
