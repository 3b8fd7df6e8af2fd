import { HttpException, HttpStatus, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

/** 429 (the errors filter names it `TooManyRequests`). */
export class TooManyRequestsException extends HttpException {
  constructor(message: string) {
    super(message, HttpStatus.TOO_MANY_REQUESTS);
    this.name = 'TooManyRequestsException';
  }
}

/** Failed console logins allowed per (client address, key prefix) within the window. */
export const LOGIN_FAILURES_PER_KEY = 10;
/** Failed console logins allowed per client address, all keys together, within the window (the higher bound). */
export const LOGIN_FAILURES_PER_ADDRESS = 50;
export const LOGIN_WINDOW_SEC = 300;

/**
 * Brake on failed logins at POST /v1/session (issue 35, item 7; docs/security.md "Login throttling").
 *
 * Failures are counted in this process (rate-limiter-flexible's in-memory limiter) in two buckets:
 * per (client address, key prefix) — LOGIN_FAILURES_PER_KEY in LOGIN_WINDOW_SEC — and per client
 * address — LOGIN_FAILURES_PER_ADDRESS, higher, since one address can be a whole office behind a
 * NAT or proxy. The key prefix is the visible part of a database key (`rfk_ab12cd34`: the guesses
 * at one key), or for any other string a hash of the whole string (the same wrong key retried);
 * it is hashed in the bucket's name either way, so no part of a tried key sits in memory.
 *
 * What a full bucket does: a WRONG key from it gets 429 with Retry-After instead of 401. A RIGHT
 * key always logs in, whatever the buckets say. The first version refused every login from an
 * address after 10 failures, which let anyone behind the same NAT lock the whole review team out
 * for 5 minutes with 10 requests. Letting a right key through costs nothing in security: a key is
 * not a password a throttle protects — database keys carry 256 random bits and production refuses
 * bootstrap keys under 32 characters (app-config), so online guessing fails at any rate — and
 * checking a key costs the same whether the answer is 401 or 429. What the brake is for: clients
 * and scripts that keep sending a wrong key are told to back off, and the operator is told once
 * per bucket and window (a warning naming the hashed address).
 */
@Injectable()
export class LoginThrottle {
  private readonly log = new Logger('login');
  private readonly perKey = new RateLimiterMemory({ points: LOGIN_FAILURES_PER_KEY, duration: LOGIN_WINDOW_SEC, keyPrefix: 'login-fail-key' });
  private readonly perAddress = new RateLimiterMemory({ points: LOGIN_FAILURES_PER_ADDRESS, duration: LOGIN_WINDOW_SEC, keyPrefix: 'login-fail-addr' });

  /**
   * A failed login from `ip` with `key`: 429 (Retry-After set on `res`) when a bucket of it is already
   * full, else counted (the caller then answers 401).
   */
  async failed(ip: string, key: string, res: { setHeader(name: string, value: string): unknown }): Promise<void> {
    const keyBucket = `${ip}|${bucketOfKey(key)}`;
    const [k, a] = await Promise.all([this.perKey.get(keyBucket), this.perAddress.get(ip)]);
    const full = [
      k && k.consumedPoints >= LOGIN_FAILURES_PER_KEY ? { r: k, what: 'with this key' } : null,
      a && a.consumedPoints >= LOGIN_FAILURES_PER_ADDRESS ? { r: a, what: 'from this address' } : null,
    ].filter((x): x is { r: RateLimiterRes; what: string } => x !== null);
    if (full.length) {
      const retryAfter = Math.max(1, ...full.map((f) => Math.ceil(f.r.msBeforeNext / 1000)));
      res.setHeader('Retry-After', String(retryAfter));
      throw new TooManyRequestsException(`too many failed logins ${full.map((f) => f.what).join(' and ')}: try again in ${retryAfter} s (a right key still logs in)`);
    }
    const [kr, ar] = await Promise.all([this.perKey.consume(keyBucket).catch((r: RateLimiterRes) => r), this.perAddress.consume(ip).catch((r: RateLimiterRes) => r)]);
    if (ar.consumedPoints === LOGIN_FAILURES_PER_ADDRESS) this.log.warn(`${LOGIN_FAILURES_PER_ADDRESS} failed logins from address ${hashed(ip)} within ${LOGIN_WINDOW_SEC} s: further failures from it get 429`);
    else if (kr.consumedPoints === LOGIN_FAILURES_PER_KEY) this.log.warn(`${LOGIN_FAILURES_PER_KEY} failed logins with one key from address ${hashed(ip)} within ${LOGIN_WINDOW_SEC} s: further failures with it get 429`);
  }

  /** A successful login: the (address, key) bucket starts again (the address bucket does not: other keys' failures stay counted). */
  async succeeded(ip: string, key: string): Promise<void> {
    await this.perKey.delete(`${ip}|${bucketOfKey(key)}`);
  }
}

/** The visible prefix of a database key (`rfk_<8 hex>`, core's KEY_PATTERN), also on a malformed guess at one. */
const DB_KEY_PREFIX = /^rfk_[0-9a-f]{8}/;

/** The bucket of a tried key: its database-key prefix, else the whole string; hashed. */
function bucketOfKey(key: string): string {
  return createHash('sha256').update(DB_KEY_PREFIX.exec(key)?.[0] ?? `other:${key}`).digest('hex').slice(0, 16);
}

/** An address as logs show it (a client's IP is personal data). */
function hashed(ip: string): string {
  return `addr:${createHash('sha256').update(ip).digest('hex').slice(0, 16)}`;
}
