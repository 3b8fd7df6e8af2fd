import { ConflictError, NotFoundError, type ApiKeyFilter, type ApiKeyRepository, type ApiKeyRow, type NewApiKey, type ServiceScope } from '@forensics/core';
import { Prisma, type ApiKey, type PrismaClient } from '../generated/client';
import { isUniqueViolation, isUuid } from './prisma-json';

const toRow = (k: ApiKey): ApiKeyRow => ({
  id: k.id, userId: k.userId, name: k.name, scopes: k.scopes as ServiceScope[], collections: k.collections ?? [], prefix: k.prefix, hash: k.hash, createdAt: k.createdAt, createdBy: k.createdBy,
  lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt, revokedBy: k.revokedBy,
});

const isForeignKeyViolation = (e: unknown): boolean => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2003';

/** API keys (issue 11): only the keyed hash is stored; creation and revocation audited in the same transaction. */
export class PrismaApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(k: NewApiKey): Promise<ApiKeyRow> {
    if (k.userId !== null && !isUuid(k.userId)) throw new NotFoundError(`user ${k.userId} does not exist`);
    try {
      return await this.db.$transaction(async (tx) => {
        const row = await tx.apiKey.create({ data: { userId: k.userId, name: k.name, scopes: k.scopes, collections: k.collections ?? [], prefix: k.prefix, hash: k.hash, createdBy: k.createdBy } });
        await tx.auditLog.create({ data: { actor: k.createdBy, action: 'key.created', entityType: 'ApiKey', entityId: row.id, details: { prefix: k.prefix, name: k.name, userId: k.userId, scopes: k.scopes, collections: k.collections?.length ? k.collections : null } } });
        return toRow(row);
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError(`an API key with prefix ${k.prefix} exists`);
      if (isForeignKeyViolation(e)) throw new NotFoundError(`user ${k.userId} does not exist`);
      throw e;
    }
  }

  async get(id: string): Promise<ApiKeyRow | null> {
    if (!isUuid(id)) return null;
    const k = await this.db.apiKey.findUnique({ where: { id } });
    return k ? toRow(k) : null;
  }

  async findByPrefix(prefix: string): Promise<ApiKeyRow | null> {
    const k = await this.db.apiKey.findUnique({ where: { prefix } });
    return k ? toRow(k) : null;
  }

  async list(f: ApiKeyFilter): Promise<ApiKeyRow[]> {
    if (f.userId && !isUuid(f.userId)) return [];
    return (await this.db.apiKey.findMany({
      where: { ...(f.userId ? { userId: f.userId } : {}), ...(f.includeRevoked ? {} : { revokedAt: null }) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    })).map(toRow);
  }

  /** Conditional UPDATE (revokedAt IS NULL), so concurrent revocations audit once. */
  async revoke(id: string, actor: string): Promise<ApiKeyRow> {
    if (!isUuid(id)) throw new NotFoundError(`API key ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.apiKey.updateManyAndReturn({ where: { id, revokedAt: null }, data: { revokedAt: new Date(), revokedBy: actor } });
      if (!row) {
        const current = await tx.apiKey.findUnique({ where: { id } });
        if (!current) throw new NotFoundError(`API key ${id} does not exist`);
        return toRow(current);
      }
      await tx.auditLog.create({ data: { actor, action: 'key.revoked', entityType: 'ApiKey', entityId: id, details: { prefix: row.prefix, name: row.name, userId: row.userId } } });
      return toRow(row);
    });
  }

  /** One conditional UPDATE: written only when lastUsedAt is unset or older than the interval. */
  async touch(id: string, at: Date, minIntervalMs: number): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.db.apiKey.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(at.getTime() - minIntervalMs) } }] },
      data: { lastUsedAt: at },
    });
    return count > 0;
  }
}
