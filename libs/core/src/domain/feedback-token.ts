import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed feedback tokens: a browser may report one logged answer as wrong without holding an API
 * key. Format `<payload>.<signature>`, both base64url (no padding):
 *   payload   = base64url(JSON {"answerId": "<uuid>", "exp": <unix seconds>})
 *   signature = base64url(HMAC-SHA256(secret, payload))   — over the encoded payload bytes
 * The signature is checked (constant time) BEFORE the payload is parsed. A token is bound to one
 * answer and expires; "at most one feedback event per token" is enforced by the caller (the
 * feedback row's unique answer id), not by the token itself.
 */
export const FEEDBACK_TOKEN_DEFAULT_TTL_SEC = 7 * 24 * 3600;
/** Secrets shorter than this are refused (a short HMAC key is guessable offline). */
export const FEEDBACK_TOKEN_MIN_SECRET_LENGTH = 16;
/** Generous upper bound: a uuid payload + signature is ~140 characters. */
const MAX_TOKEN_LENGTH = 1024;
const B64URL = /^[A-Za-z0-9_-]+$/;

export type FeedbackTokenFailure = 'malformed' | 'bad signature' | 'expired';

export class FeedbackTokenError extends Error {
  constructor(readonly reason: FeedbackTokenFailure) {
    super(
      reason === 'expired' ? 'feedback token expired'
      : reason === 'bad signature' ? 'feedback token has a bad signature (tampered, or signed with another secret)'
      : 'feedback token is malformed',
    );
    this.name = 'FeedbackTokenError';
  }
}

export interface FeedbackTokenClaims {
  answerId: string;
  /** Expiry, unix seconds. */
  exp: number;
}

function checkSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length < FEEDBACK_TOKEN_MIN_SECRET_LENGTH) {
    throw new RangeError(`feedback token secret must be at least ${FEEDBACK_TOKEN_MIN_SECRET_LENGTH} characters`);
  }
}

function sign(payload: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(payload, 'utf8').digest();
}

/** Issues a token for `answerId`, valid for `ttlSec` seconds from `now`. */
export function signFeedbackToken(answerId: string, secret: string, ttlSec: number = FEEDBACK_TOKEN_DEFAULT_TTL_SEC, now: Date = new Date()): { token: string; expiresAt: Date } {
  checkSecret(secret);
  if (!answerId) throw new RangeError('answerId must be non-empty');
  if (!Number.isInteger(ttlSec) || ttlSec < 1) throw new RangeError(`ttlSec must be a positive integer, got ${ttlSec}`);
  const exp = Math.floor(now.getTime() / 1000) + ttlSec;
  const payload = Buffer.from(JSON.stringify({ answerId, exp }), 'utf8').toString('base64url');
  return { token: `${payload}.${sign(payload, secret).toString('base64url')}`, expiresAt: new Date(exp * 1000) };
}

/**
 * Checks a token and returns the answer it was issued for. Throws `FeedbackTokenError` with reason
 * 'malformed' (not two base64url parts, undecodable or wrong claims), 'bad signature' (tampered or
 * another secret) or 'expired' (now ≥ exp).
 */
export function verifyFeedbackToken(token: string, secret: string, now: Date = new Date()): { answerId: string; expiresAt: Date } {
  checkSecret(secret);
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) throw new FeedbackTokenError('malformed');
  const parts = token.trim().split('.');
  if (parts.length !== 2 || !B64URL.test(parts[0]) || !B64URL.test(parts[1])) throw new FeedbackTokenError('malformed');
  const [payload, signature] = parts;
  // Compare the canonical encodings: a re-encoded signature with other padding bits is refused too.
  const given = Buffer.from(signature, 'utf8');
  const expected = Buffer.from(sign(payload, secret).toString('base64url'), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new FeedbackTokenError('bad signature');
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new FeedbackTokenError('malformed');
  }
  const c = claims as Partial<FeedbackTokenClaims> | null;
  if (!c || typeof c !== 'object' || typeof c.answerId !== 'string' || !c.answerId || typeof c.exp !== 'number' || !Number.isInteger(c.exp)) {
    throw new FeedbackTokenError('malformed');
  }
  if (Math.floor(now.getTime() / 1000) >= c.exp) throw new FeedbackTokenError('expired');
  return { answerId: c.answerId, expiresAt: new Date(c.exp * 1000) };
}
