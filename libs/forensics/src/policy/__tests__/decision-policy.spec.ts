import { decide, loneClearYes, RESTATES_QUESTION_MIN, validateDecisionPolicy } from '..';

const ev = (agrees: boolean, suspicion = agrees ? 0.8 : 0.2) => ({ available: true, agrees, suspicion });
const none = { available: false };

describe('decision policy', () => {
  it('judge-only quarantines every YES whatever the evidence (the paper)', () => {
    expect(decide({ label: 'YES', evidence: ev(false) }).decision).toBe('QUARANTINE');
    expect(decide({ label: 'YES', evidence: none }).decision).toBe('QUARANTINE');
    expect(decide({ label: 'YES', evidence: none }).policy).toBe('judge-only');
  });

  it('keeps NO and sends UNDETERMINED to review without withholding it, in both policies', () => {
    for (const name of ['judge-only', 'corroborated'] as const) {
      expect(decide({ label: 'NO', evidence: ev(true) }, { name }).decision).toBe('KEEP');
      const u = decide({ label: 'UNDETERMINED', evidence: ev(true) }, { name });
      expect(u.decision).toBe('NEEDS_REVIEW');
      expect(u.withhold).toBe(false);
    }
  });

  it("a verdict inside the judge's confidence band goes to review whichever way it leans (issue 13)", () => {
    for (const name of ['judge-only', 'corroborated'] as const) {
      const yes = decide({ label: 'YES', confidence: 'band', evidence: ev(true) }, { name });
      expect(yes).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: true });
      expect(yes.reason).toContain('confidence band');
      expect(decide({ label: 'YES', confidence: 'band', evidence: ev(true) }, { name, reviewServing: 'serve' }).withhold).toBe(false);
      const no = decide({ label: 'NO', confidence: 'band', evidence: ev(false) }, { name });
      expect(no).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(decide({ label: 'NO', confidence: 'clear', evidence: ev(true) }, { name }).decision).toBe('KEEP');
    }
    expect(decide({ label: 'YES', confidence: 'clear', evidence: none }).decision).toBe('QUARANTINE');
  });

  it('band verdicts follow their report: withheld when it has a clear YES, served when not (bandWithhold event, issue 33); always = as before', () => {
    for (const name of ['judge-only', 'corroborated'] as const) {
      const alone = decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, evidence: ev(true) }, { name });
      expect(alone).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(alone.reason).toMatch(/no verdict of this report is a clear YES.*kept in serving/);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: true, evidence: ev(true) }, { name })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: true });
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, evidence: ev(true) }, { name, bandWithhold: 'always' }).withhold).toBe(true);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, evidence: ev(true) }, { name, reviewServing: 'serve' }).withhold).toBe(false);
      // A band NO follows its report too: withheld in a report with a clear YES, served without one or under 'always'.
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: true, evidence: ev(false) }, { name })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: true });
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: false, evidence: ev(false) }, { name })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: true, evidence: ev(false) }, { name, bandWithhold: 'always' }).withhold).toBe(false);
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: true, evidence: ev(false) }, { name, reviewServing: 'serve' }).withhold).toBe(false);
      expect(decide({ label: 'NO', confidence: 'clear', eventHasClearYes: true, evidence: ev(false) }, { name }).decision).toBe('KEEP');
      // A clear YES is decided as before, whatever the event holds.
      expect(decide({ label: 'YES', confidence: 'clear', eventHasClearYes: false, evidence: ev(true) }, { name }).decision).toBe('QUARANTINE');
    }
    expect(() => validateDecisionPolicy({ bandWithhold: 'never' as never })).toThrow(/bandWithhold/);
  });

  it("bandWithhold 'restated' (default, decision 0310): without a clear YES in the report, a band YES that restates the question is withheld; one that does not is served", () => {
    for (const name of ['judge-only', 'corroborated'] as const) {
      const restated = decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, restatesQuestion: true, evidence: ev(false) }, { name });
      expect(restated).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: true });
      expect(restated.reason).toMatch(/restates the question.*withheld from serving/);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, restatesQuestion: false, evidence: ev(false) }, { name }).withhold).toBe(false);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, restatesQuestion: true, evidence: ev(false) }, { name, bandWithhold: 'event' }).withhold).toBe(false);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: false, restatesQuestion: true, evidence: ev(false) }, { name, reviewServing: 'serve' }).withhold).toBe(false);
      // A band NO without a clear YES stays served whatever it restates; a clear verdict is decided as before.
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: false, restatesQuestion: true, evidence: ev(false) }, { name }).withhold).toBe(false);
      expect(decide({ label: 'NO', confidence: 'clear', eventHasClearYes: false, restatesQuestion: true, evidence: ev(false) }, { name }).decision).toBe('KEEP');
    }
    expect(validateDecisionPolicy().bandWithhold).toBe('restated');
  });

  it("a report's lone clear YES that does not restate the question waits for review, served; its band verdicts as without a clear YES (loneYes review, issue 33)", () => {
    expect(RESTATES_QUESTION_MIN).toBe(0.5);
    expect(loneClearYes([0.3])).toBe(true);
    expect(loneClearYes([0.5])).toBe(false); // half of the question restated: written for it
    expect(loneClearYes([0.3, 0.2])).toBe(false); // a group
    expect(loneClearYes([undefined])).toBe(false); // a judge without the signal (an LLM)
    expect(loneClearYes([])).toBe(false);
    for (const name of ['judge-only', 'corroborated'] as const) {
      const lone = decide({ label: 'YES', confidence: 'clear', eventHasClearYes: true, eventLoneYes: true, evidence: ev(true) }, { name, loneYes: 'review' });
      expect(lone).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(lone.reason).toMatch(/only clear YES and does not restate the question.*kept in serving/);
      expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: true, eventLoneYes: true, evidence: ev(true) }, { name, loneYes: 'review' })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(decide({ label: 'NO', confidence: 'band', eventHasClearYes: true, eventLoneYes: true, evidence: ev(false) }, { name, loneYes: 'review' })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      // 'act' (the default since decision 0290): the lone YES is decided like any clear YES and its report's band verdicts are withheld.
      for (const act of [{ name, loneYes: 'act' as const }, { name }]) {
        expect(decide({ label: 'YES', confidence: 'clear', eventHasClearYes: true, eventLoneYes: true, evidence: ev(true) }, act).decision).toBe('QUARANTINE');
        expect(decide({ label: 'YES', confidence: 'band', eventHasClearYes: true, eventLoneYes: true, evidence: ev(true) }, act).withhold).toBe(true);
      }
    }
    expect(() => validateDecisionPolicy({ loneYes: 'never' as never })).toThrow(/loneYes/);
  });

  it('a text of the vetted baseline never leaves serving by a decision: what would take it out goes to review, served (decision 0320)', () => {
    const sibling = { siblings: 2, bestJaccard: 0.6, salad: false };
    const cases = [
      { label: 'YES' as const, evidence: none }, // clear YES: quarantine
      { label: 'YES' as const, confidence: 'band' as const, evidence: none, eventHasClearYes: true }, // band YES: withheld
      { label: 'NO' as const, confidence: 'band' as const, evidence: none, eventHasClearYes: true }, // band NO in an attack: withheld
      { label: 'NO' as const, evidence: none, plantedSibling: sibling }, // planted sibling: withheld
    ];
    for (const input of cases) {
      const plain = decide(input);
      expect(plain.decision === 'QUARANTINE' || plain.withhold).toBe(true);
      const v = decide({ ...input, vetted: true });
      expect(v).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
      expect(v.reason).toContain(plain.reason);
      expect(v.reason).toMatch(/vetted baseline/);
    }
    // Decisions that keep a text served are unchanged.
    expect(decide({ label: 'NO', evidence: none, vetted: true })).toMatchObject({ decision: 'KEEP', withhold: false });
    expect(decide({ label: 'UNDETERMINED', evidence: none, vetted: true }).reason).not.toMatch(/vetted/);
    expect(decide({ label: 'YES', evidence: none, vetted: false }).decision).toBe('QUARANTINE');
  });

  it('corroborated: YES + agreeing evidence → quarantine; disagreement or no evidence → review', () => {
    expect(decide({ label: 'YES', evidence: ev(true) }, { name: 'corroborated' }).decision).toBe('QUARANTINE');
    const dis = decide({ label: 'YES', evidence: ev(false, 0.21) }, { name: 'corroborated' });
    expect(dis.decision).toBe('NEEDS_REVIEW');
    expect(dis.withhold).toBe(true);
    expect(dis.reason).toContain('0.21');
    expect(decide({ label: 'YES', evidence: none }, { name: 'corroborated', reviewServing: 'serve' })).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
  });

  it('records the inputs that decided', () => {
    const input = { label: 'YES' as const, evidence: ev(true, 0.9) };
    expect(decide(input, { name: 'corroborated' }).inputs).toEqual(input);
  });

  it('rejects unknown settings with a clear message', () => {
    expect(() => validateDecisionPolicy({ name: 'strict' as never })).toThrow(/judge-only/);
    expect(() => validateDecisionPolicy({ reviewServing: 'maybe' as never })).toThrow(/withhold/);
  });
});
