import type { PolicyVerdict } from '../remembered-decision';
import { applyReporterTrust, capOrder, DEFAULT_TRUST_PARAMS, validateTrustParams, type TrustContext } from '../reporter-trust';

const quarantine: PolicyVerdict = { decision: 'QUARANTINE', withhold: true, reason: 'judge YES', inputs: { label: 'YES' } };
const ctx = (over: Partial<TrustContext> = {}): TrustContext => ({
  trust: 'anonymous', source: 'addr:a', sameReports: [], eventAutoQuarantines: 0, reporterAutoQuarantinesDay: 0, ...over,
});

describe('applyReporterTrust', () => {
  it('defaults: identified reports quarantine on their own, at most 5 per event', () => {
    expect(DEFAULT_TRUST_PARAMS).toMatchObject({ minTrust: 'identified', corroborationMinReporters: 2, maxPerEvent: 5, heldServing: 'serve' });
  });

  it('an anonymous, uncorroborated YES goes to review, kept in serving, and says why', () => {
    const out = applyReporterTrust(quarantine, ctx());
    expect(out.decision).toBe('NEEDS_REVIEW');
    expect(out.withhold).toBe(false);
    expect(out.reason).toMatch(/anonymous \(below identified\) and not corroborated \(1 of 2 distinct reporters\)/);
    expect(out.inputs).toMatchObject({ label: 'YES', trust: { level: 'anonymous', held: true, corroborated: false, distinctReporters: 1, corroboratingEventIds: [] } });
  });

  it('heldServing=withhold withholds the held text', () => {
    expect(applyReporterTrust(quarantine, ctx(), { heldServing: 'withhold' }).withhold).toBe(true);
  });

  it('a second distinct reporter of the same report corroborates; the same source twice or an unknown source does not', () => {
    const same = applyReporterTrust(quarantine, ctx({ sameReports: [{ eventId: 'e0', source: 'addr:a' }, { eventId: 'e1', source: null }] }));
    expect(same.decision).toBe('NEEDS_REVIEW');
    const two = applyReporterTrust(quarantine, ctx({ sameReports: [{ eventId: 'e0', source: 'addr:a' }, { eventId: 'e2', source: 'addr:b' }, { eventId: 'e3', source: 'addr:b' }] }));
    expect(two.decision).toBe('QUARANTINE');
    expect(two.withhold).toBe(true);
    expect(two.reason).toContain('corroborated by 1 other reporter');
    expect(two.inputs.trust).toMatchObject({ corroborated: true, distinctReporters: 2, corroboratingEventIds: ['e2'], held: false });
    // Three needed: two are not enough.
    expect(applyReporterTrust(quarantine, ctx({ sameReports: [{ eventId: 'e2', source: 'addr:b' }] }), { corroborationMinReporters: 3 }).decision).toBe('NEEDS_REVIEW');
  });

  it('identified and reviewer reports quarantine alone; minTrust=reviewer holds identified ones; minTrust=anonymous trusts everyone', () => {
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified' })).decision).toBe('QUARANTINE');
    expect(applyReporterTrust(quarantine, ctx({ trust: 'reviewer' })).decision).toBe('QUARANTINE');
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified' }), { minTrust: 'reviewer' }).decision).toBe('NEEDS_REVIEW');
    expect(applyReporterTrust(quarantine, ctx(), { minTrust: 'anonymous' }).decision).toBe('QUARANTINE');
  });

  it('the per-event cap sends further YES verdicts to review', () => {
    const at = (n: number) => applyReporterTrust(quarantine, ctx({ trust: 'identified', eventAutoQuarantines: n }));
    expect(at(4).decision).toBe('QUARANTINE');
    const capped = at(5);
    expect(capped.decision).toBe('NEEDS_REVIEW');
    expect(capped.reason).toContain('already made 5 automatic quarantines (cap 5)');
    expect(capped.inputs.caps).toMatchObject({ eventAutoQuarantines: 5, maxPerEvent: 5, capped: true });
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified', eventAutoQuarantines: 50 }), { maxPerEvent: 0 }).decision).toBe('QUARANTINE'); // 0 = no cap
  });

  it('the per-reporter daily cap sends further YES verdicts to review; an unknown reporter count is not capped', () => {
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified', reporterAutoQuarantinesDay: 3 }), { maxPerReporterDay: 3 }).decision).toBe('NEEDS_REVIEW');
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified', reporterAutoQuarantinesDay: 2 }), { maxPerReporterDay: 3 }).decision).toBe('QUARANTINE');
    expect(applyReporterTrust(quarantine, ctx({ trust: 'identified', reporterAutoQuarantinesDay: null }), { maxPerReporterDay: 3 }).decision).toBe('QUARANTINE');
  });

  it('leaves KEEP and NEEDS_REVIEW alone but records the inputs', () => {
    const review: PolicyVerdict = { decision: 'NEEDS_REVIEW', withhold: false, reason: 'undetermined', inputs: {} };
    const out = applyReporterTrust(review, ctx({ eventAutoQuarantines: 9 }));
    expect(out).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false, reason: 'undetermined' });
    expect(out.inputs.trust).toBeDefined();
    expect(applyReporterTrust({ ...review, decision: 'KEEP' }, ctx()).decision).toBe('KEEP');
  });

  it('a withheld review item of an uncorroborated low-trust report stays served (a band YES must not leave serving on a token alone)', () => {
    const bandYes: PolicyVerdict = { decision: 'NEEDS_REVIEW', withhold: true, reason: 'judge leans YES but its score is inside its confidence band', inputs: {} };
    const out = applyReporterTrust(bandYes, ctx());
    expect(out).toMatchObject({ decision: 'NEEDS_REVIEW', withhold: false });
    expect(out.reason).toMatch(/anonymous \(below identified\) and not corroborated.*kept in serving/);
    expect(applyReporterTrust(bandYes, ctx({ trust: 'identified' })).withhold).toBe(true);
    expect(applyReporterTrust(bandYes, ctx({ sameReports: [{ eventId: 'e2', source: 'addr:b' }] })).withhold).toBe(true);
    expect(applyReporterTrust(bandYes, ctx(), { heldServing: 'withhold' }).withhold).toBe(true);
  });

  it('validates its parameters', () => {
    expect(() => validateTrustParams({ minTrust: 'nobody' as never })).toThrow(/minTrust/);
    expect(() => validateTrustParams({ maxPerEvent: -1 })).toThrow(/maxPerEvent/);
    expect(() => validateTrustParams({ corroborationMinReporters: 0 })).toThrow(/corroborationMinReporters/);
  });

  it('capOrder: the most confident YES first, judged order among ties and unscored texts (unscored last)', () => {
    const scores: Record<string, number | null> = { a: 0.4, b: 0.9, c: null, d: 0.9, e: 0.1, f: null };
    expect(capOrder(['a', 'b', 'c', 'd', 'e', 'f'], (id) => scores[id])).toEqual(['b', 'd', 'a', 'e', 'c', 'f']);
    expect(capOrder(['c', 'f'], (id) => scores[id])).toEqual(['c', 'f']);
    expect(capOrder(['a', 'x'], (id) => (id === 'x' ? Number.NaN : scores[id]))).toEqual(['a', 'x']);
    expect(capOrder([], () => 1)).toEqual([]);
  });
});
