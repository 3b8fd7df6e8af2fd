import type { ApiKeyRepository, AuditLogRepository, SessionRepository, SessionRow, UserRepository } from '../../../ports/repositories';
import { API_KEYS, AUDIT_LOG, CLOCK, IDENTITY_SETTINGS, SESSIONS, USERS } from '../../../ports/tokens';
import type { Clock } from '../../../ports/runtime.port';
import type { InjectMap } from '../../../use-case';
import {
  AccessDeniedError, actorOfIdentity, AuthenticationError, newCsrfSecret, newSessionToken, sessionIdOf, sessionRef, type Identity, type IdentitySettings,
} from '../manage-keys/identity';
import { identityOfKey } from '../manage-keys/manage-keys.use-case';

/** Ids of bootstrap keys (API_KEYS) start with this; they have no database row. */
export const BOOTSTRAP_KEY_ID_PREFIX = 'env-';

export interface SessionDeps { sessions: SessionRepository; audit: AuditLogRepository; clock: Clock; settings: IdentitySettings }

export interface CreatedSession {
  /** The cookie's value: given to the browser once, stored only as its SHA-256 (the session id). */
  token: string;
  session: SessionRow;
}

/**
 * A console login: a session for a user's identity (a user key or a bootstrap admin key; service keys
 * have no console). Expires `sessionTtlMs` after creation, enforced on every request. Audited
 * `session.created` naming the user and key id. Expired sessions are swept at each login.
 */
export class CreateSessionUseCase {
  static readonly inject: InjectMap<SessionDeps> = { sessions: SESSIONS, audit: AUDIT_LOG, clock: CLOCK, settings: IDENTITY_SETTINGS };
  constructor(private readonly deps: SessionDeps) {}

  async execute(cmd: { identity: Identity; ip?: string | null; userAgent?: string | null }): Promise<CreatedSession> {
    const { identity } = cmd;
    if (!identity.role) throw new AccessDeniedError(`${identity.name} is a service key: the console needs a user's key`);
    const now = this.deps.clock.now();
    await this.deps.sessions.deleteExpired(now);
    const { token, id } = newSessionToken();
    const session = await this.deps.sessions.create({
      id, userId: identity.userId, keyId: identity.keyId, name: identity.name, role: identity.role, csrfSecret: newCsrfSecret(),
      expiresAt: new Date(now.getTime() + this.deps.settings.sessionTtlMs), ip: cmd.ip?.slice(0, 100) ?? null, userAgent: cmd.userAgent?.slice(0, 300) ?? null,
    });
    await this.deps.audit.append({
      actor: actorOfIdentity(identity), action: 'session.created', entityType: 'Session', entityId: sessionRef(id),
      details: { userId: identity.userId, keyId: identity.keyId, role: identity.role, expiresAt: session.expiresAt.toISOString() },
    });
    return { token, session };
  }
}

export interface ResolvedSession { session: SessionRow; identity: Identity }

export interface ResolveSessionDeps { sessions: SessionRepository; users: UserRepository; apiKeys: ApiKeyRepository; clock: Clock; settings: IdentitySettings }

/**
 * The session a cookie token names, checked on every request: it exists (logging out deletes it),
 * has not expired (an expired one is deleted), and the key that opened it is still valid (not
 * revoked, user not disabled; the role is the user's current one). Bootstrap-key sessions are
 * checked against API_KEYS by the caller. lastSeenAt is written at most once per touch interval.
 */
export class ResolveSessionUseCase {
  static readonly inject: InjectMap<ResolveSessionDeps> = { sessions: SESSIONS, users: USERS, apiKeys: API_KEYS, clock: CLOCK, settings: IDENTITY_SETTINGS };
  constructor(private readonly deps: ResolveSessionDeps) {}

  async execute(cmd: { token: string }): Promise<ResolvedSession> {
    const session = await this.deps.sessions.get(sessionIdOf(cmd.token));
    if (!session) throw new AuthenticationError('session not found or logged out: log in again');
    const now = this.deps.clock.now();
    if (session.expiresAt.getTime() <= now.getTime()) {
      await this.deps.sessions.delete(session.id);
      throw new AuthenticationError('session expired: log in again');
    }
    let identity: Identity;
    if (session.keyId.startsWith(BOOTSTRAP_KEY_ID_PREFIX)) {
      identity = { name: session.name, role: session.role, scopes: [], userId: null, keyId: session.keyId };
    } else {
      const key = await this.deps.apiKeys.get(session.keyId);
      if (!key) throw new AuthenticationError('the key of this session no longer exists: log in again');
      if (key.revokedAt) throw new AuthenticationError(`API key ${key.prefix} was revoked: log in again`);
      identity = await identityOfKey(this.deps.users, key);
    }
    if (now.getTime() - session.lastSeenAt.getTime() >= this.deps.settings.touchIntervalMs) await this.deps.sessions.touch(session.id, now);
    return { session: { ...session, role: identity.role ?? session.role }, identity };
  }
}

/** Logout: the session row is deleted (the cookie is worthless from then on). Audited `session.ended`. */
export class DestroySessionUseCase {
  static readonly inject: InjectMap<{ sessions: SessionRepository; audit: AuditLogRepository }> = { sessions: SESSIONS, audit: AUDIT_LOG };
  constructor(private readonly deps: { sessions: SessionRepository; audit: AuditLogRepository }) {}

  async execute(cmd: { token: string; actor: string }): Promise<boolean> {
    const id = sessionIdOf(cmd.token);
    const deleted = await this.deps.sessions.delete(id);
    if (deleted) await this.deps.audit.append({ actor: cmd.actor, action: 'session.ended', entityType: 'Session', entityId: sessionRef(id) });
    return deleted;
  }
}
