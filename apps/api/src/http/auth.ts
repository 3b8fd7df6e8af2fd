import { SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

/**
 * Who may do what. Every endpoint names the permission it needs with `@Allow(...)` (any one of the
 * listed permissions suffices); an endpoint that names none needs `manage` (deny by default), unless
 * it is `@Public()`.
 *
 * - Users have a role: `admin` (everything), `reviewer` (read + decide), `viewer` (read).
 * - Service keys (what a RAG backend holds) have scopes: `ingest`, `feedback`, `answers`.
 * - A feedback token (handed to the browser with every answer) grants `feedback` on the one route
 *   that accepts it.
 * - Keys from the `API_KEYS` environment variable are bootstrap admins.
 */
// One definition of roles, scopes and permissions, in core (the CLI and the use cases need them too).
import { ForbiddenException } from '@nestjs/common';
import { echoInput, inCollectionScope } from '@forensics/core';
export { permissionsOf, ROLE_PERMISSIONS, SERVICE_SCOPES, USER_ROLES, type Permission, type ServiceScope, type UserRole } from '@forensics/core';
import type { Permission, ServiceScope, UserRole } from '@forensics/core';

/** The authenticated caller, attached to the request by the guard. */
export interface Principal {
  /** How the caller authenticated. */
  via: 'bootstrap-key' | 'api-key' | 'session' | 'feedback-token';
  /** Display name for audit records and the console (never a secret): `user:<name>`, `service:<key name>`, `bootstrap-admin`. */
  name: string;
  /** User role, when the caller is a user (or a bootstrap admin). */
  role?: UserRole;
  /** Scopes of a service key. */
  scopes?: readonly ServiceScope[];
  /** A service key limited to collections (issue 56, item 7b): the only ones it may address. Absent = every collection. */
  collections?: readonly string[];
  userId?: string;
  /** Id of the API key used (never the key itself). */
  keyId?: string;
  permissions: ReadonlySet<Permission>;
}

export const REQUIRED_PERMISSIONS = 'forensics:permissions';
/** The permissions an endpoint accepts (any one of them). Without it an endpoint needs `manage`. */
export const Allow = (...permissions: Permission[]) => SetMetadata(REQUIRED_PERMISSIONS, permissions);

/** What the guard attaches to an authenticated request. */
export interface AuthenticatedRequest extends Request {
  principal?: Principal;
  /** Set when the request was authenticated by a feedback token (then there is no API key). */
  feedbackToken?: { answerId: string };
  /** Set when the console's session cookie authenticated the request. */
  consoleSession?: ConsoleSession;
}

/** The console session behind a cookie-authenticated request (never the cookie's token). */
export interface ConsoleSession {
  /** SHA-256 of the cookie token (the row id). */
  id: string;
  /** The synchronizer token state-changing requests must send in X-CSRF-Token. */
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Who called, as the guard (or the intake's fast path) established it: what the feedback intake and
 * the rate limits read of an authenticated request. An AuthenticatedRequest is one.
 */
export interface Caller {
  principal?: Principal;
  /** Set when a feedback token authenticated the request. */
  feedbackToken?: { answerId: string };
  /** The client address (express: `req.ip`, which follows `trust proxy`, set by TRUST_PROXY); else the socket's. */
  ip?: string;
  socket: { remoteAddress?: string };
}

/** Anything the guard (or the intake's fast path) attached a principal to. */
export type WithPrincipal = Request | { principal?: Principal };

export function principalOf(req: WithPrincipal): Principal | undefined {
  return (req as { principal?: Principal }).principal;
}

/**
 * Who acts, for audit records: names the user and the key id, e.g. `user:alice key:3f2a…`, or the
 * feedback token's answer. Never contains a secret.
 */
export function actorOf(req: WithPrincipal): string {
  const p = principalOf(req);
  if (!p) return 'api';
  return p.keyId ? `${p.name} key:${p.keyId}` : p.name;
}

/** The collections the caller may address; undefined = every collection (users, sessions, bootstrap keys, unscoped service keys). */
export function collectionScopeOf(req: WithPrincipal): readonly string[] | undefined {
  return principalOf(req)?.collections;
}

/**
 * Refuses (403, nothing done) a request that names a collection its key may not address (issue 56, item 7b): a
 * collection in the path, the body or the query. Called before anything is written. A request addressing an event
 * by id checks the event's collection instead, and answers 404 as for an event that does not exist (the use cases'
 * `collections` argument): existence is not told across collections.
 */
export function assertCollectionAllowed(req: WithPrincipal, collection: string): void {
  const scope = collectionScopeOf(req);
  if (inCollectionScope(scope, collection)) return;
  throw new ForbiddenException(`this key is limited to the collections ${scope!.join(', ')}: collection '${echoInput(collection, 64)}' is not one of them`);
}
