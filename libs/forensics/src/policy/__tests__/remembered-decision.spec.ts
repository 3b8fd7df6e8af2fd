import { applyRememberedDecisions, reportKey, type PolicyVerdict, type RememberedDecisionInput } from '../remembered-decision';

const quarantine: PolicyVerdict = { decision: 'QUARANTINE', withhold: true, reason: 'judge YES', inputs: { label: 'YES' } };
const mem = (over: Partial<RememberedDecisionInput> = {}): RememberedDecisionInput => ({
  action: 'restore', actor: 'alice', at: '2026-11-23T10:00:00.000Z', recordId: 'r1', queryKey: 'who wrote hamlet', wrongAnswerKey: 'marlowe', ...over,
});

describe('reportKey', () => {
  it('folds case, whitespace and Unicode compatibility forms', () => {
    expect(reportKey('  Who\u00a0wrote\n\tHAMLET ')).toBe('who wrote hamlet');
    expect(reportKey('ＷＨＯ wrote ﬁve')).toBe('who wrote five');
    expect(reportKey('Who wrote Hamlet')).not.toBe(reportKey('Who wrote Macbeth'));
  });
});

describe('applyRememberedDecisions', () => {
  const report = { query: 'Who  wrote HAMLET', wrongAnswer: 'Marlowe ' };

  it('turns an automatic quarantine into a served review after a restore for the same report', () => {
    const out = applyRememberedDecisions(quarantine, report, [mem()]);
    expect(out.decision).toBe('NEEDS_REVIEW');
    expect(out.withhold).toBe(false);
    expect(out.reason).toContain('alice restored this text');
    expect(out.inputs.remembered).toEqual([{ action: 'restore', actor: 'alice', at: '2026-11-23T10:00:00.000Z', recordId: 'r1' }]);
  });

  it('ignores decisions for another report', () => {
    expect(applyRememberedDecisions(quarantine, { query: 'who wrote macbeth', wrongAnswer: 'marlowe' }, [mem()])).toEqual(quarantine);
  });

  it('follows the latest decision: approved after the restore → quarantined', () => {
    const out = applyRememberedDecisions(quarantine, report, [mem(), mem({ action: 'approve', at: '2026-11-23T11:00:00.000Z', recordId: 'r2' })]);
    expect(out.decision).toBe('QUARANTINE');
    expect((out.inputs.remembered as unknown[]).length).toBe(2);
  });

  it('a withheld review becomes a served one; KEEP stays KEEP', () => {
    expect(applyRememberedDecisions({ ...quarantine, decision: 'NEEDS_REVIEW' }, report, [mem()]).withhold).toBe(false);
    expect(applyRememberedDecisions({ ...quarantine, decision: 'KEEP', withhold: false }, report, [mem()]).decision).toBe('KEEP');
  });
});
