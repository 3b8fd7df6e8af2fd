import { applyDecorators, CanActivate, ExecutionContext, Inject, Injectable, Logger, Optional, ServiceUnavailableException, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import type IORedis from 'ioredis';
import { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AUDIT_LOG, type AuditLogRepository } from '@forensics/core';
import { APP_CONFIG, METRICS, REDIS_CONNECTION, type AppConfig, type ForensicsMetrics } from '@forensics/infra';
import { actorOf, type Caller } from './auth';
import { TooManyRequestsException } from './login-throttle';
import { callerSource } from './reporter-trust';

/**
 * Rate limits (issue 13, item 2) on the routes that anyone holding a token or a service key can
 * call in bulk: POST /v1/feedback (each report can quarantine texts) and POST /v1/answers,
 * POST /v1/rag/answer (each answer mints a new feedback token). rate-limiter-flexible counts fixed
 * one-minute windows per scope key; Redis (the queue's connection) when the process has one, so
 * every API process shares the counts, else the process's memory (logged at start).
 *
 * Scopes (each limit in requests per minute, 0 = off; config `rateLimits`, README "Trust and rate limits"):
 * - `token`: POST /v1/feedback by feedback token, per answer id;
 * - `address`: POST /v1/feedback by feedback token, per client address (`req.ip`: behind reverse
 *   proxies the address they forwarded when TRUST_PROXY counts them, else the connection's).
 *   Key-authenticated callers are back ends whose address is shared by all their users: they are
 *   limited per key instead;
 * - `key`: POST /v1/feedback by API key or console session, per key id;
 * - `reporter`: POST /v1/feedback that names a `reporter` in its body, per (caller, folded name):
 *   the caller is the key id, or for a feedback token its client address (hashed, as `addressSource`),
 *   so a name one caller types never spends another caller's budget (issue 56, item 2: 60 anonymous
 *   reports naming `victim` silenced every key's reports naming `victim`); names are folded
 *   (`foldReporterName`) so `Victim` is `victim`;
 * - `answers-key`: POST /v1/answers and /v1/rag/answer, per key id (a console session counts as the
 *   key it was opened with): the feedback tokens one caller can mint a minute, so minting more
 *   tokens cannot multiply the per-token budget past it.
 * A request is refused when any of its scopes is over its limit: 429, `Retry-After` (seconds),
 * a JSON error naming the limit. The first refusal of a (scope key, window) — exactly one, since
 * Redis counts atomically — writes one `ratelimit.exceeded` audit entry; every refusal counts in
 * `forensics_rate_limited_total{route,scope}`.
 *
 * Cost: the scopes of a request are consumed concurrently on the one ioredis connection (one
 * `rlflxIncr` script call each, written back to back, so one network round trip of latency).
 *
 * A store that does not answer — its connection lost (decided at once: nothing piled up in ioredis'
 * offline queue to be replayed later), or no answer within RATE_LIMIT_TIMEOUT_MS (a Redis that
 * stalls) — is decided by RATE_LIMIT_ON_REDIS_DOWN (issue 57 item 4: it was a silent fail-open):
 * `open` (default) lets the request through unchecked, since a report is persisted in Postgres and
 * traced once Redis is back, and losing it because Redis is slow is worse than an unlimited minute;
 * `closed` refuses it with 503 and Retry-After. One warning when an outage begins, one info line
 * with what it let through or refused when the store answers again (not a line per request), and
 * `forensics_rate_limit_unchecked_total{route,outcome}` counts each such request.
 */
export type RateLimitedRoute = 'feedback' | 'answers';
type Scope = 'token' | 'address' | 'key' | 'reporter' | 'answers-key';

export const RATE_LIMITED_ROUTE = 'forensics:rate-limited-route';
export const RATE_LIMIT_WINDOW_SEC = 60;
const RATE_LIMIT_TIMEOUT_MS = 250;
/** Seconds a client refused under RATE_LIMIT_ON_REDIS_DOWN=closed is told to wait (as for other outages). */
const STORE_DOWN_RETRY_AFTER_SEC = 5;

/** Applies the rate limits of `route` to an endpoint (after authentication: the guard reads the principal). */
export const RateLimit = (route: RateLimitedRoute) => applyDecorators(SetMetadata(RATE_LIMITED_ROUTE, route), UseGuards(RateLimitGuard));

/** What the limits read of a request: its caller, its body (a named reporter) and its path (audit). */
export interface RateLimitSubject extends Caller {
  body?: unknown;
  path: string;
}

/**
 * A reporter name as the reporter budgets compare it: NFKC (full-width and compatibility forms are
 * their plain letters), invisible format characters dropped, lower case, white space collapsed.
 */
export function foldReporterName(name: string): string {
  return name.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A scope key shown in audit records: addresses are hashed (a client's IP is personal data); ids and names are not secrets. */
function shownKey(scope: Scope, key: string): string {
  return scope === 'address' ? `addr:${createHash('sha256').update(key).digest('hex').slice(0, 16)}` : key;
}

@Injectable()
export class RateLimits {
  private readonly log = new Logger('rate-limit');
  private readonly limiters = new Map<Scope, RateLimiterAbstract>();
  private readonly limited: Counter<'route' | 'scope'>;
  private readonly unchecked: Counter<'route' | 'outcome'>;
  private readonly onStoreDown: 'open' | 'closed';
  /** The store outage under way: since when, why, and the requests let through or refused since. */
  private outage: { since: number; reason: string; requests: number } | null = null;
  /** Why the store cannot be asked right now without waiting (its connection lost), or null. */
  private readonly connectionLost: () => string | null = () => null;
  readonly store: 'redis' | 'memory';

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(AUDIT_LOG) private readonly audit: AuditLogRepository,
    @Inject(METRICS) metrics: ForensicsMetrics,
    @Optional() @Inject(REDIS_CONNECTION) redis?: IORedis,
  ) {
    const r = config.rateLimits;
    const points: Record<Scope, number> = { token: r.feedbackPerToken, address: r.feedbackPerAddress, key: r.feedbackPerKey, reporter: r.feedbackPerReporter, 'answers-key': r.answersPerKey };
    this.store = redis ? 'redis' : 'memory';
    this.onStoreDown = r.onStoreDown;
    if (redis) {
      // Lost once connected: decided at once (a first connection still being made is waited for, as a command would).
      let connectedOnce = redis.status === 'ready';
      redis.on('ready', () => { connectedOnce = true; });
      this.connectionLost = () => (connectedOnce && redis.status !== 'ready' ? `connection ${redis.status}` : null);
    }
    for (const [scope, n] of Object.entries(points) as [Scope, number][]) {
      if (n <= 0) continue;
      const opts = { points: n, duration: RATE_LIMIT_WINDOW_SEC, keyPrefix: `${config.queue.prefix}:rl:${scope}` };
      this.limiters.set(scope, redis ? new RateLimiterRedis({ ...opts, storeClient: redis }) : new RateLimiterMemory(opts));
    }
    if (!redis && this.limiters.size) this.log.warn('rate limits are counted in this process\'s memory (no Redis configured): each API process counts on its own');
    const existing = metrics.registry.getSingleMetric('forensics_rate_limited_total') as Counter<'route' | 'scope'> | undefined;
    this.limited = existing ?? new Counter({
      name: 'forensics_rate_limited_total', help: 'Requests refused with 429 by a rate limit, by route (feedback | answers) and scope (token, address, key, reporter, answers-key)',
      labelNames: ['route', 'scope'] as const, registers: [metrics.registry],
    });
    this.unchecked = (metrics.registry.getSingleMetric('forensics_rate_limit_unchecked_total') as Counter<'route' | 'outcome'> | undefined) ?? new Counter({
      name: 'forensics_rate_limit_unchecked_total', help: 'Rate-limited requests decided without their store (Redis not answering), by route and outcome (let-through under RATE_LIMIT_ON_REDIS_DOWN=open, refused under closed)',
      labelNames: ['route', 'outcome'] as const, registers: [metrics.registry],
    });
  }

  /** The scope keys of a request (scopes whose limit is off are left out). */
  keysOf(route: RateLimitedRoute, req: RateLimitSubject): [Scope, string][] {
    const out: [Scope, string][] = [];
    const p = req.principal;
    const keyId = p?.keyId ?? p?.name ?? 'anonymous';
    if (route === 'answers') out.push(['answers-key', keyId]);
    else {
      if (req.feedbackToken) {
        out.push(['token', req.feedbackToken.answerId], ['address', req.ip ?? req.socket.remoteAddress ?? 'unknown']);
      } else out.push(['key', keyId]);
      // Only a reporter the body names (a key's caller without one is already limited per key), and
      // only within its caller's budgets: the name is whatever the caller typed.
      const body = req.body as { reporter?: unknown } | undefined;
      const reporter = body && typeof body.reporter === 'string' ? foldReporterName(body.reporter).slice(0, 200) : '';
      if (reporter) out.push(['reporter', `${callerSource(req)}/${reporter}`]);
    }
    return out.filter(([s]) => this.limiters.has(s));
  }

  /** Consumes one point of every scope of the request; throws 429 (Retry-After set) when one is over. */
  async check(route: RateLimitedRoute, req: RateLimitSubject, res: { setHeader(name: string, value: string): unknown }): Promise<void> {
    const keys = this.keysOf(route, req);
    if (!keys.length) return;
    const lost = this.connectionLost();
    if (lost) return this.storeDown(route, lost, res);
    const consumed = keys.map(([scope, key]) => this.limiters.get(scope)!.consume(key).then((r) => ({ scope, key, ok: true, r }), (e: unknown) => {
      if (e instanceof RateLimiterRes) return { scope, key, ok: false, r: e };
      throw e;
    }));
    let results;
    let timer: NodeJS.Timeout | undefined;
    try {
      results = await Promise.race([
        Promise.all(consumed),
        new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer from the rate-limit store within ${RATE_LIMIT_TIMEOUT_MS} ms`)), RATE_LIMIT_TIMEOUT_MS); }),
      ]);
    } catch (e) {
      return this.storeDown(route, (e as Error).message, res);
    } finally {
      clearTimeout(timer);
    }
    this.storeBack();
    const over = results.filter((x) => !x.ok);
    if (!over.length) return;
    for (const o of over) {
      this.limited.inc({ route, scope: o.scope });
      const limit = this.limiters.get(o.scope)!.points;
      // The first refusal of this key in this window (the counter just passed the limit): one audit entry.
      if (o.r.consumedPoints === limit + 1) {
        await this.audit.append({
          actor: actorOf(req), action: 'ratelimit.exceeded', entityType: 'RateLimit', entityId: `${route}:${o.scope}:${shownKey(o.scope, o.key)}`,
          details: { route, scope: o.scope, key: shownKey(o.scope, o.key), limitPerMin: limit, windowSec: RATE_LIMIT_WINDOW_SEC, path: req.path },
        }).catch((e: unknown) => this.log.warn(`ratelimit.exceeded not audited: ${(e as Error).message}`));
      }
    }
    const worst = over.reduce((a, b) => (b.r.msBeforeNext > a.r.msBeforeNext ? b : a));
    const retryAfter = Math.max(1, Math.ceil(worst.r.msBeforeNext / 1000));
    res.setHeader('Retry-After', String(retryAfter));
    const names = over.map((o) => `${o.scope} (${this.limiters.get(o.scope)!.points}/min)`).join(', ');
    throw new TooManyRequestsException(`rate limit exceeded on ${route}: ${names}; retry in ${retryAfter} s`);
  }

  /** A request whose limits could not be checked: let through or refused (RATE_LIMIT_ON_REDIS_DOWN); the outage's first one warns. */
  private storeDown(route: RateLimitedRoute, reason: string, res: { setHeader(name: string, value: string): unknown }): void {
    const open = this.onStoreDown === 'open';
    if (!this.outage) {
      this.outage = { since: Date.now(), reason, requests: 0 };
      this.log.warn(`rate limits cannot be checked: their store (Redis) does not answer (${reason}); until it does, rate-limited requests are ${open ? 'let through unchecked' : 'refused with 503'} (RATE_LIMIT_ON_REDIS_DOWN=${this.onStoreDown})`);
    }
    this.outage.requests++;
    this.unchecked.inc({ route, outcome: open ? 'let-through' : 'refused' });
    if (open) return;
    res.setHeader('Retry-After', String(STORE_DOWN_RETRY_AFTER_SEC));
    throw new ServiceUnavailableException('rate limits cannot be checked (their store does not answer): nothing was stored, retry later');
  }

  /** The store answered: an outage under way ends, said once with what it let through or refused. */
  private storeBack(): void {
    if (!this.outage) return;
    const { since, requests } = this.outage;
    this.outage = null;
    this.log.log(`rate limits checked again: their store (Redis) answers after ${((Date.now() - since) / 1000).toFixed(1)} s; ${requests} rate-limited request(s) ${this.onStoreDown === 'open' ? 'let through unchecked' : 'refused with 503'} meanwhile`);
  }
}

@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(@Inject(Reflector) private readonly reflector: Reflector, @Inject(RateLimits) private readonly limits: RateLimits) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<RateLimitedRoute | undefined>(RATE_LIMITED_ROUTE, ctx.getHandler());
    if (route) await this.limits.check(route, ctx.switchToHttp().getRequest<RateLimitSubject>(), ctx.switchToHttp().getResponse<Response>());
    return true;
  }
}
