import { reporterKindOf } from '../reporter-kind';

describe('reporterKindOf (issue 56, item 5): where a reporter name comes from, from the credentials only', () => {
  it('a feedback token\'s name is self-declared, whatever it says', () => {
    expect(reporterKindOf({ reporter: 'admin', trust: 'anonymous', reporterSource: 'addr:0123456789abcdef' })).toBe('self-declared');
    expect(reporterKindOf({ reporter: 'security team', trust: 'anonymous', reporterSource: null })).toBe('self-declared');
    // A name that looks like a key's source changes nothing: the trust is the token's.
    expect(reporterKindOf({ reporter: 'key:abc', trust: 'anonymous', reporterSource: 'key:abc' })).toBe('self-declared');
  });
  it('a key names its user, or is the reporter itself; in-process callers and audits are the system', () => {
    expect(reporterKindOf({ reporter: 'u1', trust: 'identified', reporterSource: 'key:k1/u1' })).toBe('named-by-key');
    expect(reporterKindOf({ reporter: 'svc', trust: 'reviewer', reporterSource: 'key:k1' })).toBe('key');
    expect(reporterKindOf({ reporter: 'cli', trust: 'identified', reporterSource: null })).toBe('system');
    expect(reporterKindOf({ reporter: 'audit:cluster-scan:r1', trust: 'anonymous', reporterSource: 'audit:cluster-scan' })).toBe('system');
  });
  it('no reporter, no kind; an unknown source is not believed', () => {
    expect(reporterKindOf({ reporter: null, trust: 'identified', reporterSource: 'key:k1' })).toBeNull();
    expect(reporterKindOf({ reporter: 'x', trust: 'identified', reporterSource: 'somewhere' })).toBe('self-declared');
  });
});
