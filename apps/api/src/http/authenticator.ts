import { parse as parseCookie } from 'cookie';
import { BadRequestException, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  AuthenticateKeyUseCase, AuthenticationError, BOOTSTRAP_KEY_ID_PREFIX, CORE_SETTINGS, FeedbackTokenError, ResolveSessionUseCase, sameSecret, verifyFeedbackToken,
  type CoreSettings, type Identity,
} from '@forensics/core';
import { APP_CONFIG, type AppConfig } from '@forensics/infra';
import { permissionsOf, type ConsoleSession, type Permission, type Principal } from './auth';

/** The console's session cookie (httpOnly, SameSite=Strict, Path=/; Secure over https). */
export const SESSION_COOKIE = 'forensics_session';
/** The header carrying the session's CSRF token on state-changing requests. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What the Authenticator reads of a request: its method, headers and (on token routes) parsed body.
 * An express Request is one; so is the intake's fast path's bare node request (fast-intake.ts).
 */
export interface CredentialRequest extends OriginRequest {
  method?: string;
  body?: unknown;
}

/**
 * What the same-origin check reads of a request: its headers and, on an express request, the
 * scheme and host express reports (`req.protocol`, `req.host`: X-Forwarded-Proto / -Host only from
 * a proxy TRUST_PROXY trusts); a bare node request (the intake's fast path) has its socket instead.
 */
export interface OriginRequest {
  headers: IncomingHttpHeaders;
  protocol?: string;
  host?: string;
  socket?: object;
}

/** A request header by its lower-case name (a repeated header: node has joined it, as express's req.header does). */
export function headerOf(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** A key from `API_KEYS`: a bootstrap admin. Its id is a hash prefix, never the key. */
export function bootstrapKeyId(apiKey: string): string {
  return `${BOOTSTRAP_KEY_ID_PREFIX}${createHash('sha256').update(apiKey).digest('hex').slice(0, 8)}`;
}

export function bootstrapPrincipal(apiKey: string): Principal {
  return { via: 'bootstrap-key', name: 'bootstrap-admin', role: 'admin', keyId: bootstrapKeyId(apiKey), permissions: permissionsOf('admin') };
}

/** The principal of an identity (a database key, a bootstrap key or a session). */
export function principalOfIdentity(identity: Identity, via: Principal['via']): Principal {
  return {
    via, name: identity.name, ...(identity.role ? { role: identity.role } : {}), ...(identity.scopes.length ? { scopes: identity.scopes } : {}),
    ...(identity.collections?.length ? { collections: [...identity.collections] } : {}),
    ...(identity.userId ? { userId: identity.userId } : {}), keyId: identity.keyId, permissions: permissionsOf(identity.role, identity.scopes),
  };
}

/**
 * Reads one cookie from the request's Cookie header (the `cookie` library's parser). Parsed only
 * where a cookie is looked for (a request without an API key, logout): the API's key-carrying
 * requests, most of the traffic, never pay for it (cookie-parser on every request cost ~4% of the
 * intake's CPU, bench:intake --cpu-prof).
 */
export function cookieOf(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parseCookie(header)[name];
  return typeof value === 'string' ? value : undefined;
}

/** A Host header's shape: a name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST_HEADER = /^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * This request's own origin (scheme, host, port; the scheme's default port left out, as browsers
 * write `Origin`), or null when it has no usable Host.
 */
export function ownOriginOf(req: OriginRequest): string | null {
  const scheme = typeof req.protocol === 'string' ? req.protocol : (req.socket as { encrypted?: unknown } | undefined)?.encrypted === true ? 'https' : 'http';
  const host = typeof req.host === 'string' ? req.host : headerOf(req, 'host');
  if (!host || !HOST_HEADER.test(host) || (scheme !== 'http' && scheme !== 'https')) return null;
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * Refuses a cross-site browser request: an `Origin` that is not this request's own origin — scheme,
 * host and port, so `https://host:PORT` is foreign to the http service on `host:PORT` (issue 56,
 * item 7; the host alone was compared before) — or `Sec-Fetch-Site: cross-site`. Requests without
 * these headers (curl, old browsers on same-origin GETs) pass; SameSite=Strict already keeps the
 * cookie off cross-site requests in current browsers.
 */
export function assertSameOrigin(req: OriginRequest, what: string): void {
  const origin = headerOf(req, 'origin');
  if (origin !== undefined) {
    let theirs: string | null = null;
    try { theirs = origin === 'null' ? null : new URL(origin).origin; } catch { theirs = null; }
    const own = ownOriginOf(req);
    if (!theirs || theirs === 'null' || theirs !== own) throw new ForbiddenException(`${what} from a foreign origin is refused`);
  }
  if (headerOf(req, 'sec-fetch-site') === 'cross-site') throw new ForbiddenException(`${what} from a cross-site page is refused`);
}

export interface AuthenticateOptions {
  /** The route accepts a feedback token instead of a key (POST /v1/feedback only). */
  tokenRoute?: boolean;
}

export interface Authenticated {
  principal: Principal;
  /** Set when a feedback token authenticated the request. */
  feedbackToken?: { answerId: string };
  /** Set when the console's session cookie authenticated the request. */
  session?: ConsoleSession;
}

/**
 * Turns a request's credentials into a Principal. One place for every way in — the API guard, the
 * console and the queue dashboard all call it:
 * - `X-API-Key: <key>` or `Authorization: Bearer <key>`: a bootstrap key from `API_KEYS` (admin) or
 *   a database key (`rfk_…`: a user's key with the user's role, or a service key with its scopes);
 *   revoked keys and disabled users get a 401 saying so;
 * - `Authorization: FeedbackToken <token>` or a `feedbackToken` body field, on token routes only;
 * - the console's session cookie, when no key is sent. A state-changing request (POST, PUT, PATCH,
 *   DELETE) carried by the cookie must come from this origin and carry the session's CSRF token in
 *   `X-CSRF-Token` (403 otherwise). A key in a header is never sent by a browser on its own, so
 *   key-authenticated requests need no CSRF token.
 * Returns null when the request carries no credentials; throws 401/400/403 on bad ones.
 */
@Injectable()
export class Authenticator {
  private readonly bootstrapIds: Set<string>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CORE_SETTINGS) private readonly settings: CoreSettings,
    @Inject(AuthenticateKeyUseCase) private readonly authenticateKey: AuthenticateKeyUseCase,
    @Inject(ResolveSessionUseCase) private readonly resolveSession: ResolveSessionUseCase,
  ) {
    this.bootstrapIds = new Set(config.apiKeys.map(bootstrapKeyId));
  }

  async authenticate(req: CredentialRequest, opts: AuthenticateOptions = {}): Promise<Authenticated | null> {
    const authorization = headerOf(req, 'authorization');
    const scheme = authorization ? /^FeedbackToken(?:\s+(.*))?$/i.exec(authorization.trim()) : null;
    const headerToken = scheme ? (scheme[1] ?? '').trim() : undefined;
    const body = req.body as Record<string, unknown> | undefined;
    const bodyToken = opts.tokenRoute && body && typeof body === 'object' && !Array.isArray(body) && 'feedbackToken' in body ? body.feedbackToken : undefined;
    const apiKey = headerOf(req, 'x-api-key') ?? (headerToken === undefined ? authorization?.replace(/^Bearer\s+/i, '') : undefined);

    if (headerToken !== undefined || bodyToken !== undefined) {
      if (!opts.tokenRoute) throw new UnauthorizedException('feedback tokens are accepted only by POST /v1/feedback; this endpoint needs an API key');
      if (apiKey) throw new BadRequestException('send either an API key or a feedback token, not both');
      if (headerToken !== undefined && bodyToken !== undefined && headerToken !== bodyToken) throw new BadRequestException('two different feedback tokens (header and body)');
      const token = headerToken ?? bodyToken;
      if (typeof token !== 'string' || !token) throw new UnauthorizedException('feedback token is malformed');
      try {
        const { answerId } = verifyFeedbackToken(token, this.settings.feedbackTokens.secret);
        return {
          principal: { via: 'feedback-token', name: `feedback-token:${answerId.slice(0, 8)}`, permissions: new Set<Permission>(['feedback']) },
          feedbackToken: { answerId },
        };
      } catch (e) {
        if (e instanceof FeedbackTokenError) throw new UnauthorizedException(e.message);
        throw e;
      }
    }

    if (apiKey) return { principal: await this.principalForKey(apiKey) };
    const cookie = cookieOf(req, SESSION_COOKIE);
    if (cookie) return this.fromSession(req, cookie);
    return null;
  }

  /** The principal an API key stands for; 401 when the key is unknown, revoked or its user disabled. */
  async principalForKey(apiKey: string): Promise<Principal> {
    if (this.config.apiKeys.some((k) => sameSecret(k, apiKey))) return bootstrapPrincipal(apiKey);
    try {
      return principalOfIdentity(await this.authenticateKey.execute({ key: apiKey }), 'api-key');
    } catch (e) {
      if (e instanceof AuthenticationError) throw new UnauthorizedException(e.message);
      throw e;
    }
  }

  /** The identity behind a key, for a console login (same checks as principalForKey). */
  async identityForKey(apiKey: string): Promise<Identity> {
    if (this.config.apiKeys.some((k) => sameSecret(k, apiKey))) return { name: 'bootstrap-admin', role: 'admin', scopes: [], userId: null, keyId: bootstrapKeyId(apiKey) };
    return this.authenticateKey.execute({ key: apiKey });
  }

  private async fromSession(req: CredentialRequest, token: string): Promise<Authenticated> {
    let resolved;
    try {
      resolved = await this.resolveSession.execute({ token });
    } catch (e) {
      if (e instanceof AuthenticationError) throw new UnauthorizedException(e.message);
      throw e;
    }
    const { session, identity } = resolved;
    // A bootstrap key removed from API_KEYS ends the sessions it opened.
    if (identity.keyId.startsWith(BOOTSTRAP_KEY_ID_PREFIX) && !this.bootstrapIds.has(identity.keyId)) {
      throw new UnauthorizedException('the key of this session is no longer configured: log in again');
    }
    if (!SAFE_METHODS.has((req.method ?? 'GET').toUpperCase())) {
      assertSameOrigin(req, 'a state-changing request');
      const sent = headerOf(req, CSRF_HEADER);
      if (!sent || !sameSecret(sent, session.csrfSecret)) {
        throw new ForbiddenException(`missing or wrong X-CSRF-Token header: a state-changing request with the session cookie must send the csrfToken returned at login`);
      }
    }
    return { principal: principalOfIdentity(identity, 'session'), session: { id: session.id, csrfToken: session.csrfSecret, expiresAt: session.expiresAt } };
  }
}
