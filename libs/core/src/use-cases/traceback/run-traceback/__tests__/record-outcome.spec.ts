import { QuarantineTextUseCase } from '../../../quarantine/quarantine-text/quarantine-text.use-case';
import { SyncQuarantinesUseCase } from '../../../quarantine/sync-quarantines/sync-quarantines.use-case';
import { Decisions } from '../decisions';
import { RecordOutcome } from '../record-outcome';
import { runFixture } from './run-fixture';

const TEXTS = ['The Velmora harbor mural was painted by Orla Venn in 1990.', 'Velmora harbor ferries leave at noon.'];

/** The traceback's last step: half-done quarantines completed, then the event's trace, then the audit, in that order. */
describe('RecordOutcome.recordOutcome', () => {
  const setup = async () => {
    const f = await runFixture({ texts: TEXTS, query: 'who painted the velmora harbor mural', wrongAnswer: 'Orla Venn' });
    const run = await f.newRun();
    const syncQuarantines = f.useCases.get(SyncQuarantinesUseCase);
    const record = new RecordOutcome({ feedback: f.repos.feedback, audit: f.repos.audit, syncQuarantines, judge: f.judge, policy: {}, actor: 'worker' });
    const decisions = await Decisions.open({ documents: f.repos.documents, quarantineText: f.useCases.get(QuarantineTextUseCase), judge: f.judge, policy: {}, actor: 'worker' }, run, { consensus: null, suspected: false, protectedIds: new Set() });
    return { ...f, run, syncQuarantines, record, decisions };
  };
  const noTopUp = { rounds: 0, judged: 0, poisoned: [], benign: [], undetermined: [] };

  it('completes the event\'s quarantines before it records the outcome, and audits last', async () => {
    const { run, record, decisions, syncQuarantines, repos, event } = await setup();
    const order: string[] = [];
    jest.spyOn(syncQuarantines, 'execute').mockImplementation(async () => { order.push('sync'); return 0; });
    const update = repos.feedback.update.bind(repos.feedback);
    jest.spyOn(repos.feedback, 'update').mockImplementation(async (id, patch) => { order.push(`trace ${patch.trace?.outcome}`); return update(id, patch); });
    const append = repos.audit.append.bind(repos.audit);
    jest.spyOn(repos.audit, 'append').mockImplementation(async (e) => { order.push(e.action); return append(e); });
    const progress: string[] = [];
    await record.recordOutcome(run, decisions, noTopUp, (step) => { progress.push(step); });
    expect(order).toEqual(['sync', 'trace TRACED', 'traceback.traced']);
    expect(progress).toEqual(['quarantined']);
    expect((await repos.feedback.get(event.id))!.trace).toMatchObject({ outcome: 'TRACED', policy: 'judge-only', consensus: null, suspectedFalseFlag: false, evidenceError: null });
  });

  it('a bounded trace is BOUNDED; the top-up\'s texts are in the outcome and its counts on the trace', async () => {
    const { run, record, decisions, repos, event } = await setup();
    run.state = { ...run.state, status: 'BOUNDED', boundReason: 'maxRounds', poisoned: ['p1'], benign: ['b1'] };
    run.judgeCalls = 4;
    const out = await record.recordOutcome(run, decisions, { rounds: 1, judged: 2, poisoned: ['p2'], benign: ['b2'], undetermined: [] });
    expect(out).toMatchObject({ status: 'BOUNDED', traceStatus: 'BOUNDED', boundReason: 'maxRounds', poisoned: ['p1', 'p2'], benign: ['b1', 'b2'], judgeCalls: 4, suspectedFalseFlag: false });
    expect((await repos.feedback.get(event.id))!.trace).toMatchObject({ outcome: 'BOUNDED', topUp: { rounds: 1, judged: 2 }, lastRun: { judgeCalls: 4, cachedVerdicts: 0 } });
  });
});
