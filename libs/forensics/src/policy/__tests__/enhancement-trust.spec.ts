import { answerCarriesLink, decideEnhancement, type EnhancementTrustContext } from '../enhancement-trust';

const ctx = (over: Partial<EnhancementTrustContext> = {}): EnhancementTrustContext => ({
  authority: 'report', trust: 'anonymous', source: 'addr:a', correctAnswer: 'Walter Burley Griffin', sameReports: [], suspectedFalseFlag: false, ...over,
});

describe('decideEnhancement', () => {
  it('an anonymous report alone only proposes its correct answer', () => {
    const d = decideEnhancement(ctx());
    expect(d.state).toBe('PROPOSED');
    expect(d.reason).toMatch(/anonymous report \(below identified\) and 1 of 2 distinct reporters/);
  });

  it('an anonymous answer goes live when another distinct reporter made the same report with the same answer (folded)', () => {
    const agree = decideEnhancement(ctx({ sameReports: [{ eventId: 'e2', source: 'addr:b', correctAnswer: '  walter burley GRIFFIN ' }] }));
    expect(agree).toMatchObject({ state: 'ACTIVE', agreeingReporters: 2 });
    // The same source twice, an unknown source, or another answer does not agree.
    for (const sameReports of [
      [{ eventId: 'e2', source: 'addr:a', correctAnswer: 'Walter Burley Griffin' }],
      [{ eventId: 'e2', source: null, correctAnswer: 'Walter Burley Griffin' }],
      [{ eventId: 'e2', source: 'addr:b', correctAnswer: 'Frank Lloyd Wright' }],
      [{ eventId: 'e2', source: 'addr:b', correctAnswer: null }],
    ]) expect(decideEnhancement(ctx({ sameReports })).state).toBe('PROPOSED');
    expect(decideEnhancement(ctx({ sameReports: [{ eventId: 'e2', source: 'addr:b', correctAnswer: 'Walter Burley Griffin' }] }), { corroborationMinReporters: 3 }).state).toBe('PROPOSED');
  });

  it('an identified report follows the decision policy: live unless suspected; minTrust=reviewer holds it', () => {
    expect(decideEnhancement(ctx({ trust: 'identified' })).state).toBe('ACTIVE');
    expect(decideEnhancement(ctx({ trust: 'identified', suspectedFalseFlag: true })).state).toBe('PROPOSED');
    expect(decideEnhancement(ctx({ trust: 'identified' }), { minTrust: 'reviewer' }).state).toBe('PROPOSED');
  });

  it('a service key suggestion never goes live; a reviewer always does', () => {
    expect(decideEnhancement(ctx({ authority: 'suggestion', trust: 'identified' })).state).toBe('PROPOSED');
    expect(decideEnhancement(ctx({ authority: 'reviewer', correctAnswer: 'see https://example.org' })).state).toBe('ACTIVE');
  });

  it('an answer with a link, an e-mail address or markup is only proposed below a reviewer', () => {
    const phish = 'Berlin (official notice: reset your password at http://evil.example)';
    expect(decideEnhancement(ctx({ trust: 'identified', correctAnswer: phish }))).toMatchObject({ state: 'PROPOSED', reason: expect.stringContaining('link') });
    for (const a of ['write to admin@evil.example', 'www.evil.example', '<img src=x>', '[click](x)']) expect(answerCarriesLink(a)).toBe(true);
    for (const a of ['Walter Burley Griffin', 'J. R. R. Tolkien', '3.14', 'AT&T', 'Marion Mahony Griffin and Walter Burley Griffin']) expect(answerCarriesLink(a)).toBe(false);
  });
});
