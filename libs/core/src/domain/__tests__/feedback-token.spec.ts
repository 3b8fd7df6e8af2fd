import { createHmac } from 'node:crypto';
import { FEEDBACK_TOKEN_DEFAULT_TTL_SEC, FeedbackTokenError, signFeedbackToken, verifyFeedbackToken } from '../feedback-token';

const SECRET = 'test-secret-0123456789abcdef';
const ANSWER = '6f1c1f0e-3c55-4c59-9d0a-2b8f4f3b2a10';
const NOW = new Date('2026-01-01T00:00:00Z');

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof FeedbackTokenError) return e.reason;
    throw e;
  }
  return 'accepted';
}

describe('feedback tokens', () => {
  it('round trip: the answer id comes back, exp = now + ttl (default 7 days)', () => {
    const { token, expiresAt } = signFeedbackToken(ANSWER, SECRET, undefined, NOW);
    expect(expiresAt.toISOString()).toBe(new Date(NOW.getTime() + FEEDBACK_TOKEN_DEFAULT_TTL_SEC * 1000).toISOString());
    expect(FEEDBACK_TOKEN_DEFAULT_TTL_SEC).toBe(604800);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const claims = verifyFeedbackToken(token, SECRET, new Date(NOW.getTime() + 1000));
    expect(claims.answerId).toBe(ANSWER);
    expect(claims.expiresAt).toEqual(expiresAt);
    // The payload is plain base64url JSON of {answerId, exp}.
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ answerId: ANSWER, exp: NOW.getTime() / 1000 + 604800 });
  });

  it('a payload swapped for another answer keeps the old signature → bad signature', () => {
    const { token } = signFeedbackToken(ANSWER, SECRET, 3600, NOW);
    const sig = token.split('.')[1];
    const forged = Buffer.from(JSON.stringify({ answerId: '00000000-0000-0000-0000-000000000000', exp: NOW.getTime() / 1000 + 3600 })).toString('base64url');
    expect(reasonOf(() => verifyFeedbackToken(`${forged}.${sig}`, SECRET, NOW))).toBe('bad signature');
    // Extending the expiry is tampering too.
    const later = Buffer.from(JSON.stringify({ answerId: ANSWER, exp: NOW.getTime() / 1000 + 10 ** 8 })).toString('base64url');
    expect(reasonOf(() => verifyFeedbackToken(`${later}.${sig}`, SECRET, NOW))).toBe('bad signature');
  });

  it('a changed signature character → bad signature', () => {
    const { token } = signFeedbackToken(ANSWER, SECRET, 3600, NOW);
    const [payload, sig] = token.split('.');
    const flipped = sig.slice(0, 10) + (sig[10] === 'A' ? 'B' : 'A') + sig.slice(11);
    expect(reasonOf(() => verifyFeedbackToken(`${payload}.${flipped}`, SECRET, NOW))).toBe('bad signature');
    expect(reasonOf(() => verifyFeedbackToken(`${payload}.${sig.slice(0, -1)}`, SECRET, NOW))).toBe('bad signature');
  });

  it('a token signed with another secret → bad signature', () => {
    const { token } = signFeedbackToken(ANSWER, 'another-secret-0123456789', 3600, NOW);
    expect(reasonOf(() => verifyFeedbackToken(token, SECRET, NOW))).toBe('bad signature');
  });

  it('expires exactly at exp (and not one second before)', () => {
    const { token } = signFeedbackToken(ANSWER, SECRET, 60, NOW);
    expect(verifyFeedbackToken(token, SECRET, new Date(NOW.getTime() + 59_000)).answerId).toBe(ANSWER);
    expect(reasonOf(() => verifyFeedbackToken(token, SECRET, new Date(NOW.getTime() + 60_000)))).toBe('expired');
    const err = (() => { try { verifyFeedbackToken(token, SECRET, new Date(NOW.getTime() + 86_400_000)); } catch (e) { return e as Error; } return null; })();
    expect(err?.message).toBe('feedback token expired');
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abcdef'],
    ['three parts', 'a.b.c'],
    ['not base64url', 'ab+c.def/'],
    ['empty signature', 'abc.'],
  ])('malformed: %s', (_name, token) => {
    expect(reasonOf(() => verifyFeedbackToken(token, SECRET, NOW))).toBe('malformed');
  });

  it('a correctly signed payload without the claims is malformed, not accepted', () => {
    const signed = (obj: unknown) => {
      const p = Buffer.from(typeof obj === 'string' ? obj : JSON.stringify(obj)).toString('base64url');
      return `${p}.${createHmac('sha256', SECRET).update(p).digest('base64url')}`;
    };
    expect(reasonOf(() => verifyFeedbackToken(signed('not json'), SECRET, NOW))).toBe('malformed');
    expect(reasonOf(() => verifyFeedbackToken(signed({ answerId: ANSWER }), SECRET, NOW))).toBe('malformed');
    expect(reasonOf(() => verifyFeedbackToken(signed({ answerId: 7, exp: 2e9 }), SECRET, NOW))).toBe('malformed');
    expect(verifyFeedbackToken(signed({ answerId: ANSWER, exp: 2e9 }), SECRET, NOW).answerId).toBe(ANSWER);
  });

  it('refuses short secrets and bad ttl when signing', () => {
    expect(() => signFeedbackToken(ANSWER, 'short', 60, NOW)).toThrow(/at least 16/);
    expect(() => signFeedbackToken(ANSWER, SECRET, 0, NOW)).toThrow(/ttlSec/);
  });
});
