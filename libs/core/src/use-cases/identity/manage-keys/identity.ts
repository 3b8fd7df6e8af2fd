import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceScope, UserRole } from '../../../ports/repositories';

/**
 * Who may do what (issue 11). Users have a role, service keys have scopes; a permission is what an
 * endpoint asks for (`@Allow(...)` in apps/api). The apps re-export these; this is the one definition.
 */
export type { ServiceScope, UserRole };
export type Permission = 'read' | 'decide' | 'purge' | 'manage' | 'ingest' | 'feedback' | 'answers';

export const USER_ROLES: readonly UserRole[] = ['admin', 'reviewer', 'viewer'];
export const SERVICE_SCOPES: readonly ServiceScope[] = ['ingest', 'feedback', 'answers'];

export const ROLE_PERMISSIONS: Readonly<Record<UserRole, readonly Permission[]>> = {
  admin: ['read', 'decide', 'purge', 'manage', 'ingest', 'feedback', 'answers'],
  reviewer: ['read', 'decide'],
  viewer: ['read'],
};

export function permissionsOf(role?: UserRole | null, scopes: readonly ServiceScope[] = []): Set<Permission> {
  return new Set<Permission>([...(role ? ROLE_PERMISSIONS[role] : []), ...scopes]);
}

export type { IdentitySettings } from '../../../settings';

export const DEFAULT_SESSION_TTL_MINUTES = 480;
export const DEFAULT_TOUCH_INTERVAL_MS = 60_000;

/** The credentials are missing, wrong, revoked, disabled or expired (HTTP 401). */
export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}

/** Authenticated, but not allowed to do this (HTTP 403). */
export class AccessDeniedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessDeniedError';
  }
}

/**
 * Who a credential stands for. `name` is what audit records show: `user:<name>` or
 * `service:<key name>` (`bootstrap-admin` for a key from API_KEYS); `keyId` is the key's id, never the key.
 */
export interface Identity {
  name: string;
  role: UserRole | null;
  scopes: ServiceScope[];
  userId: string | null;
  keyId: string;
  /** A service key limited to collections (issue 56, item 7b): the only ones it may address. Absent or null = every collection. */
  collections?: readonly string[] | null;
}


// ---- key format -------------------------------------------------------------------------------

/**
 * `rfk_<8 hex>_<43 base64url>`: the first part (`rfk_ab12cd34`) is the visible prefix, stored in
 * clear and used to find the row; the whole key is verified against its keyed hash. 256 random bits
 * after the prefix, so a fast keyed hash is enough (no guessable password to slow down).
 */
export const KEY_PATTERN = /^(rfk_[0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export function generateApiKey(): { key: string; prefix: string } {
  const prefix = `rfk_${randomBytes(4).toString('hex')}`;
  return { key: `${prefix}_${randomBytes(32).toString('base64url')}`, prefix };
}

/** The prefix of a well-formed key, else null. */
export function keyPrefix(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** hex HMAC-SHA256(pepper, key). */
export function hashApiKey(pepper: string, key: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

/** Constant-time comparison of two hex digests (or any two strings). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A session's cookie token and the id it is stored under (its SHA-256; the token is never stored). */
export function newSessionToken(): { token: string; id: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, id: sessionIdOf(token) };
}

export const sessionIdOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A short reference to a session for audit records (a prefix of the hash, never the token). */
export const sessionRef = (id: string): string => id.slice(0, 16);

export const newCsrfSecret = (): string => randomBytes(32).toString('base64url');

/** The actor string of audit records for an identity: `user:alice key:<id>`. */
export const actorOfIdentity = (i: Pick<Identity, 'name' | 'keyId'>): string => `${i.name} key:${i.keyId}`;
