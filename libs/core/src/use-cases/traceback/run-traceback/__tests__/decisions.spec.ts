import { acceptRetrieval, acceptVerdicts, type ConsensusResult } from '@forensics/algorithms';
import type { JudgeSignals } from '../../../../ports';
import { ScriptedJudge } from '../../../../testing';
import { IngestCorpusUseCase } from '../../../collections/ingest-corpus/ingest-corpus.use-case';
import { QuarantineTextUseCase } from '../../../quarantine/quarantine-text/quarantine-text.use-case';
import { AttachEvidence } from '../attach-evidence';
import type { ConsensusReading } from '../consensus-of';
import { NeighbourCache } from '../collect-evidence';
import { Decisions } from '../decisions';
import { JudgeBatch } from '../judge-batch';
import { runFixture } from './run-fixture';

const QUERY = 'Who wrote Moby-Dick?';
const CLEAR = 'Charles Dickens wrote Moby-Dick in 1851, his famous novel about the white whale.';
const SURE = 'Moby-Dick was written by Charles Dickens, the whaling novel of 1851.';
/** Leans NO inside the band: withheld for review in a report with a clear YES. */
const UNSURE = 'Dickens and Melville both published long novels in 1851, one of them about a whale.';
const OTHER = 'Whaling ships left Nantucket harbour each spring for the Pacific grounds.';

const judge = () => new ScriptedJudge((req): { label: 'YES' | 'NO'; signals: JudgeSignals } => {
  if (req.text === CLEAR) return { label: 'YES', signals: { score: 0.8, confidence: 'clear', windowCoverage: 0.9 } };
  if (req.text === SURE) return { label: 'YES', signals: { score: 0.99, confidence: 'clear', windowCoverage: 0.9 } };
  if (req.text === UNSURE) return { label: 'NO', signals: { score: 0.1, confidence: 'band' } };
  return { label: 'NO', signals: { score: 0, confidence: 'clear' } };
});
const NONE: ConsensusReading = { consensus: null, suspected: false, protectedIds: new Set() };

/** The decision policy over one report's judged texts, applied through QuarantineText (issue 33's rules as named steps). */
describe('Decisions', () => {
  /** The four texts judged as one trace round, with their verdict rows read back (evidence off). */
  const setup = async (texts: readonly string[] = [CLEAR, SURE, UNSURE, OTHER]) => {
    const f = await runFixture({ texts, query: QUERY, wrongAnswer: 'Charles Dickens', k: texts.length, judge: judge() });
    const run = await f.newRun();
    const ids = texts.map(f.id);
    const r = acceptRetrieval(run.state, ids);
    run.state = acceptVerdicts(r.state, await new JudgeBatch({ documents: f.repos.documents, verdicts: f.repos.verdicts, judge: f.judge, concurrency: 2 }).judgeTexts(run, ids, 1));
    await new AttachEvidence({ store: f.store, verdicts: f.repos.verdicts, probe: { probe: null, reason: 'none' }, neighbours: new NeighbourCache(), embedder: f.embedder, settings: { enabled: false } }).attachEvidence(run, ids);
    const quarantineText = f.useCases.get(QuarantineTextUseCase);
    const deps = { documents: f.repos.documents, quarantineText, judge: f.judge, policy: {}, actor: 'worker' };
    const recordOf = async (t: string) => (await f.repos.quarantines.list({ feedbackId: f.event.id })).find((q) => q.documentId === f.id(t));
    return { ...f, run, deps, quarantineText, recordOf };
  };

  it('quarantines the YES texts most confident first, keeps the clear NO ones, and withholds a band NO in a report with a clear YES', async () => {
    const { run, deps, quarantineText, recordOf, id } = await setup();
    const calls = jest.spyOn(quarantineText, 'execute');
    const decisions = await Decisions.open(deps, run, NONE);
    expect(await decisions.decideTrace()).toBe(true); // a NO text left serving: the top-up is due
    expect(calls.mock.calls.map(([c]) => c.documentId)).toEqual([id(SURE), id(CLEAR), id(UNSURE)]);
    expect(decisions.quarantined).toEqual([id(SURE), id(CLEAR)]);
    expect(decisions.review).toEqual([id(UNSURE)]);
    expect(await recordOf(UNSURE)).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: false });
    expect(await recordOf(OTHER)).toBeUndefined();
    // The record explains itself: policy, judge, retrieval.
    expect((await recordOf(SURE))!.evidence).toMatchObject({ policy: { decision: 'QUARANTINE' }, judge: { label: 'YES', kind: 'scripted' } });
  });

  it('a YES the consensus check protects goes to review and stays served, with the reading on its record', async () => {
    const { run, deps, recordOf, id } = await setup();
    const consensus = { suspected: true, reason: 'suspected false flag: 5 independent groups state the answer', protectedIds: [id(CLEAR)] } as unknown as ConsensusResult;
    const decisions = await Decisions.open(deps, run, { consensus, suspected: true, protectedIds: new Set([id(CLEAR)]) });
    await decisions.decideTrace();
    const record = await recordOf(CLEAR);
    expect(record).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: true });
    expect(record!.reason).toContain('suspected false flag');
    expect(record!.evidence).toMatchObject({ policy: { inputs: { consensus: { suspected: true } } } });
    expect(await recordOf(SURE)).toMatchObject({ state: 'QUARANTINED' });
  });

  it('a text of the collection\'s vetted baseline never leaves serving by a decision', async () => {
    const { run, deps, recordOf } = await setup();
    const vetted = { ...run, collection: { ...run.collection, vettedBefore: new Date(Date.now() + 3600_000) } };
    const decisions = await Decisions.open(deps, vetted, NONE);
    expect(await decisions.decideTrace()).toBe(false);
    expect(decisions.quarantined).toEqual([]);
    expect(await recordOf(SURE)).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: true });
  });

  it('a NO text decided later (the top-up\'s) is decided by the same report facts', async () => {
    const { run, deps, recordOf, id, repos, event, useCases } = await setup([CLEAR, SURE, OTHER]);
    const decisions = await Decisions.open(deps, run, NONE);
    await decisions.decideTrace();
    // A band NO judged after the trace: still a report with a clear YES, so it is withheld.
    await useCases.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [{ text: UNSURE }] });
    await new JudgeBatch({ documents: repos.documents, verdicts: repos.verdicts, judge: deps.judge, concurrency: 1 }).judgeTexts(run, [id(UNSURE)], 2);
    run.verdictRows.set(id(UNSURE), (await repos.verdicts.list(event.id)).find((v) => v.documentId === id(UNSURE))!);
    await decisions.findSiblings([id(UNSURE)]);
    expect(await decisions.decideText(id(UNSURE))).toBe(true);
    expect(await recordOf(UNSURE)).toMatchObject({ state: 'NEEDS_REVIEW', servedDuringReview: false });
  });
});
