import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../domain/errors';
import type {
  ApiKeyFilter, ApiKeyRepository, ApiKeyRow, NewApiKey, NewSession, NewUser, SessionRepository, SessionRow, UserRepository, UserRow,
} from '../ports/repositories';
import { byTimeThenId, ConstraintViolation, copy, InMemoryRepository, isUuid } from './in-memory-state';

/** Users: unique name; create and disable audited. */
export class InMemoryUserRepository extends InMemoryRepository implements UserRepository {
  async create(u: NewUser): Promise<UserRow> {
    if ([...this.s.users.values()].some((x) => x.name === u.name)) throw new ConflictError(`user ${u.name} exists`);
    const row: UserRow = { ...copy(u), id: randomUUID(), createdAt: this.now(), disabledAt: null, disabledBy: null };
    this.s.users.set(row.id, row);
    this.log({ actor: u.createdBy, action: 'user.created', entityType: 'User', entityId: row.id, details: { name: u.name, role: u.role } });
    return copy(row);
  }

  async get(id: string): Promise<UserRow | null> {
    const u = this.s.users.get(id);
    return u ? copy(u) : null;
  }

  async findByName(name: string): Promise<UserRow | null> {
    const u = [...this.s.users.values()].find((x) => x.name === name);
    return u ? copy(u) : null;
  }

  async list(): Promise<UserRow[]> {
    return [...this.s.users.values()].sort(byTimeThenId((u) => u.createdAt)).map(copy);
  }

  async disable(id: string, actor: string): Promise<UserRow> {
    const u = this.s.users.get(id);
    if (!u) throw new NotFoundError(`user ${id} does not exist`);
    if (u.disabledAt) return copy(u);
    Object.assign(u, { disabledAt: this.now(), disabledBy: actor });
    this.log({ actor, action: 'user.disabled', entityType: 'User', entityId: id, details: { name: u.name } });
    return copy(u);
  }
}

/** API keys: unique prefix, the user must exist; create and revoke audited (id and prefix, never the key). */
export class InMemoryApiKeyRepository extends InMemoryRepository implements ApiKeyRepository {
  async create(k: NewApiKey): Promise<ApiKeyRow> {
    if (k.userId !== null && !isUuid(k.userId)) throw new ConstraintViolation(`user id ${k.userId} is not a uuid`);
    if (k.userId !== null && !this.s.users.has(k.userId)) throw new NotFoundError(`user ${k.userId} does not exist`);
    if ([...this.s.apiKeys.values()].some((x) => x.prefix === k.prefix)) throw new ConflictError(`an API key with prefix ${k.prefix} exists`);
    const row: ApiKeyRow = { ...copy(k), collections: [...(k.collections ?? [])], id: randomUUID(), createdAt: this.now(), lastUsedAt: null, revokedAt: null, revokedBy: null };
    this.s.apiKeys.set(row.id, row);
    this.log({ actor: k.createdBy, action: 'key.created', entityType: 'ApiKey', entityId: row.id, details: { prefix: k.prefix, name: k.name, userId: k.userId, scopes: k.scopes, collections: k.collections?.length ? k.collections : null } });
    return copy(row);
  }

  async get(id: string): Promise<ApiKeyRow | null> {
    const k = this.s.apiKeys.get(id);
    return k ? copy(k) : null;
  }

  async findByPrefix(prefix: string): Promise<ApiKeyRow | null> {
    const k = [...this.s.apiKeys.values()].find((x) => x.prefix === prefix);
    return k ? copy(k) : null;
  }

  async list(f: ApiKeyFilter): Promise<ApiKeyRow[]> {
    return [...this.s.apiKeys.values()]
      .filter((k) => (!f.userId || k.userId === f.userId) && (f.includeRevoked || !k.revokedAt))
      .sort(byTimeThenId((k) => k.createdAt)).map(copy);
  }

  async revoke(id: string, actor: string): Promise<ApiKeyRow> {
    const k = this.s.apiKeys.get(id);
    if (!k) throw new NotFoundError(`API key ${id} does not exist`);
    if (k.revokedAt) return copy(k);
    Object.assign(k, { revokedAt: this.now(), revokedBy: actor });
    this.log({ actor, action: 'key.revoked', entityType: 'ApiKey', entityId: id, details: { prefix: k.prefix, name: k.name, userId: k.userId } });
    return copy(k);
  }

  async touch(id: string, at: Date, minIntervalMs: number): Promise<boolean> {
    const k = this.s.apiKeys.get(id);
    if (!k || (k.lastUsedAt && k.lastUsedAt.getTime() >= at.getTime() - minIntervalMs)) return false;
    k.lastUsedAt = new Date(at.getTime());
    return true;
  }
}

/** Console sessions, by the hash of their token. */
export class InMemorySessionRepository extends InMemoryRepository implements SessionRepository {
  async create(s: NewSession): Promise<SessionRow> {
    if (this.s.sessions.has(s.id)) throw new ConflictError('session exists');
    if (s.userId !== null && !this.s.users.has(s.userId)) throw new ConstraintViolation(`foreign key: user ${s.userId} does not exist`);
    const now = this.now();
    const row: SessionRow = { ...copy(s), createdAt: now, lastSeenAt: now };
    this.s.sessions.set(row.id, row);
    return copy(row);
  }

  async get(id: string): Promise<SessionRow | null> {
    const s = this.s.sessions.get(id);
    return s ? copy(s) : null;
  }

  async touch(id: string, at: Date): Promise<void> {
    const s = this.s.sessions.get(id);
    if (s) s.lastSeenAt = new Date(at.getTime());
  }

  async delete(id: string): Promise<boolean> {
    return this.s.sessions.delete(id);
  }

  async deleteExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [id, s] of this.s.sessions) if (s.expiresAt.getTime() < now.getTime()) { this.s.sessions.delete(id); n++; }
    return n;
  }
}
