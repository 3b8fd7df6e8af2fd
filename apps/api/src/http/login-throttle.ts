import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { RateLimiterMemory } from 'rate-limiter-flexible';

/** 429 (the errors filter names it `TooManyRequests`). */
export class TooManyRequestsException extends HttpException {
  constructor(message: string) {
    super(message, HttpStatus.TOO_MANY_REQUESTS);
    this.name = 'TooManyRequestsException';
  }
}

/** Failed console logins allowed per client IP within the window; past it every login is refused until the window ends. */
export const LOGIN_FAILURES_PER_WINDOW = 10;
export const LOGIN_WINDOW_SEC = 300;

/**
 * Brute-force brake on POST /v1/session: failed logins are counted per client IP in this process
 * (rate-limiter-flexible's in-memory limiter); after LOGIN_FAILURES_PER_WINDOW failures within
 * LOGIN_WINDOW_SEC the IP gets 429 with Retry-After, even with a right key. Keys carry 256 random
 * bits, so this guards against noise and log flooding more than against guessing. Kept local to the
 * login on purpose: general rate limits are separate.
 */
@Injectable()
export class LoginThrottle {
  private readonly failures = new RateLimiterMemory({ points: LOGIN_FAILURES_PER_WINDOW, duration: LOGIN_WINDOW_SEC, keyPrefix: 'login-fail' });

  /** 429 (with Retry-After set on `res`) while the IP has used up its failures. */
  async check(ip: string, res: { setHeader(name: string, value: string): unknown }): Promise<void> {
    const r = await this.failures.get(ip);
    if (r && r.consumedPoints >= LOGIN_FAILURES_PER_WINDOW) {
      const retryAfter = Math.max(1, Math.ceil(r.msBeforeNext / 1000));
      res.setHeader('Retry-After', String(retryAfter));
      throw new TooManyRequestsException(`too many failed logins from this address: try again in ${retryAfter} s`);
    }
  }

  async failed(ip: string): Promise<void> {
    await this.failures.consume(ip).catch(() => undefined); // over the limit: nothing more to count
  }
}
