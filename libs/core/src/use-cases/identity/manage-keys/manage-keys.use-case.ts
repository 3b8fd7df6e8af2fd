import { ConflictError, echoInput, NotFoundError } from '../../../domain/errors';
import { isUuid } from '../../../domain/store-point';
import { parseRequest } from '../../../domain/request-schema';
import type { ApiKeyRepository, ApiKeyRow, ServiceScope, UserRepository, UserRole, UserRow } from '../../../ports/repositories';
import { API_KEYS, CLOCK, IDENTITY_SETTINGS, USERS } from '../../../ports/tokens';
import type { Clock } from '../../../ports/runtime.port';
import type { InjectMap } from '../../../use-case';
import {
  AuthenticationError, generateApiKey, hashApiKey, keyPrefix, sameSecret, type Identity, type IdentitySettings,
} from './identity';
import { CreateApiKeyRequest } from './identity.schema';

/** What the API and the CLI show of a key: never the hash, never the key. */
export interface ApiKeyView {
  id: string;
  kind: 'user' | 'service';
  name: string;
  userId: string | null;
  /** The user's current role (user keys). */
  role: UserRole | null;
  scopes: ServiceScope[];
  /** Service keys: the collections it may address; null = every collection. */
  collections: string[] | null;
  prefix: string;
  createdAt: Date;
  createdBy: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
}

export function apiKeyView(k: ApiKeyRow, user?: UserRow | null): ApiKeyView {
  return {
    id: k.id, kind: k.userId ? 'user' : 'service', name: k.name, userId: k.userId, role: user?.role ?? null, scopes: k.scopes, collections: k.collections?.length ? [...k.collections] : null, prefix: k.prefix,
    createdAt: k.createdAt, createdBy: k.createdBy, lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt, revokedBy: k.revokedBy,
  };
}

export interface CreateApiKeyDeps { users: UserRepository; apiKeys: ApiKeyRepository; settings: IdentitySettings }

export interface CreatedApiKey {
  /** The key: shown this once, stored only as its keyed hash. */
  key: string;
  record: ApiKeyView;
}

/**
 * Creates a key. `{name, role}`: a key of user `name` (the user is created with `role` when new; an
 * existing user must have that role); `{name, scopes, collections?}`: a service key, limited to those
 * collections when given. Audited `key.created` (actor, key id, prefix, scopes, collections; never the key). The key is returned once.
 */
export class CreateApiKeyUseCase {
  static readonly inject: InjectMap<CreateApiKeyDeps> = { users: USERS, apiKeys: API_KEYS, settings: IDENTITY_SETTINGS };
  constructor(private readonly deps: CreateApiKeyDeps) {}

  async execute(cmd: { body: unknown; actor: string }): Promise<CreatedApiKey> {
    const req = parseRequest(CreateApiKeyRequest, cmd.body);
    let user: UserRow | null = null;
    if (req.role) {
      user = await this.deps.users.findByName(req.name);
      if (user && user.role !== req.role) throw new ConflictError(`user ${user.name} exists with role ${user.role}, not ${req.role}`);
      if (user?.disabledAt) throw new ConflictError(`user ${user.name} is disabled`);
      user ??= await this.deps.users.create({ name: req.name, role: req.role, createdBy: cmd.actor });
    }
    // A prefix is 32 random bits: a collision is rare but possible, so try again on one.
    for (let attempt = 0; ; attempt++) {
      const { key, prefix } = generateApiKey();
      try {
        const row = await this.deps.apiKeys.create({
          userId: user?.id ?? null, name: req.name, scopes: user ? [] : req.scopes!, collections: user ? [] : req.collections ?? [], prefix, hash: hashApiKey(this.deps.settings.keyPepper, key), createdBy: cmd.actor,
        });
        return { key, record: apiKeyView(row, user) };
      } catch (e) {
        if (!(e instanceof ConflictError) || attempt >= 4) throw e;
      }
    }
  }
}

export class ListApiKeysUseCase {
  static readonly inject: InjectMap<{ users: UserRepository; apiKeys: ApiKeyRepository }> = { users: USERS, apiKeys: API_KEYS };
  constructor(private readonly deps: { users: UserRepository; apiKeys: ApiKeyRepository }) {}

  async execute(cmd: { includeRevoked?: boolean } = {}): Promise<ApiKeyView[]> {
    const [keys, users] = await Promise.all([this.deps.apiKeys.list({ includeRevoked: cmd.includeRevoked ?? true }), this.deps.users.list()]);
    const byId = new Map(users.map((u) => [u.id, u]));
    return keys.map((k) => apiKeyView(k, k.userId ? byId.get(k.userId) : null));
  }
}


/** Revokes a key by id or prefix (audited `key.revoked` once; revoking again changes nothing). */
export class RevokeApiKeyUseCase {
  static readonly inject: InjectMap<{ users: UserRepository; apiKeys: ApiKeyRepository }> = { users: USERS, apiKeys: API_KEYS };
  constructor(private readonly deps: { users: UserRepository; apiKeys: ApiKeyRepository }) {}

  async execute(cmd: { ref: string; actor: string }): Promise<ApiKeyView> {
    const ref = cmd.ref.trim();
    const key = isUuid(ref) ? await this.deps.apiKeys.get(ref) : await this.deps.apiKeys.findByPrefix(keyPrefix(ref) ?? ref);
    if (!key) throw new NotFoundError(`API key ${echoInput(ref.slice(0, 12))} does not exist (give its id or its prefix rfk_…)`);
    const revoked = await this.deps.apiKeys.revoke(key.id, cmd.actor);
    return apiKeyView(revoked, revoked.userId ? await this.deps.users.get(revoked.userId) : null);
  }
}

export interface AuthenticateKeyDeps { users: UserRepository; apiKeys: ApiKeyRepository; settings: IdentitySettings; clock: Clock }

/**
 * A database key → the identity it stands for: the row by its prefix, the whole key checked against
 * the keyed hash in constant time, then revocation and the user's state. Refusals are
 * AuthenticationError with a message a client can act on (never echoing the key). lastUsedAt is
 * written at most once per `touchIntervalMs` (a conditional UPDATE that matches nothing otherwise).
 */
export class AuthenticateKeyUseCase {
  static readonly inject: InjectMap<AuthenticateKeyDeps> = { users: USERS, apiKeys: API_KEYS, settings: IDENTITY_SETTINGS, clock: CLOCK };
  constructor(private readonly deps: AuthenticateKeyDeps) {}

  async execute(cmd: { key: string }): Promise<Identity> {
    const prefix = keyPrefix(cmd.key);
    if (!prefix) throw new AuthenticationError('invalid API key');
    const row = await this.deps.apiKeys.findByPrefix(prefix);
    if (!row || !sameSecret(row.hash, hashApiKey(this.deps.settings.keyPepper, cmd.key))) throw new AuthenticationError('invalid API key');
    if (row.revokedAt) throw new AuthenticationError(`API key ${row.prefix} was revoked`);
    const identity = await identityOfKey(this.deps.users, row);
    const now = this.deps.clock.now();
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= this.deps.settings.touchIntervalMs) {
      await this.deps.apiKeys.touch(row.id, now, this.deps.settings.touchIntervalMs);
    }
    return identity;
  }
}

/** The identity of a valid (unrevoked) key row: the user's current role, or the service key's scopes. */
export async function identityOfKey(users: UserRepository, row: ApiKeyRow): Promise<Identity> {
  if (!row.userId) {
    return { name: `service:${row.name}`, role: null, scopes: [...row.scopes], userId: null, keyId: row.id, collections: row.collections?.length ? [...row.collections] : null };
  }
  const user = await users.get(row.userId);
  if (!user) throw new AuthenticationError(`API key ${row.prefix} belongs to no user`);
  if (user.disabledAt) throw new AuthenticationError(`user ${user.name} is disabled`);
  return { name: `user:${user.name}`, role: user.role, scopes: [], userId: user.id, keyId: row.id };
}
