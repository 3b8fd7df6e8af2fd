import { ConflictError, NotFoundError, type NewUser, type UserRepository, type UserRow } from '@forensics/core';
import type { PrismaClient, User } from '../generated/client';
import { isUniqueViolation, isUuid } from './prisma-json';

const toRow = (u: User): UserRow => ({ id: u.id, name: u.name, role: u.role, createdAt: u.createdAt, createdBy: u.createdBy, disabledAt: u.disabledAt, disabledBy: u.disabledBy });

/** Users (issue 11); creation and disabling audited in the same transaction. */
export class PrismaUserRepository implements UserRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(u: NewUser): Promise<UserRow> {
    try {
      return await this.db.$transaction(async (tx) => {
        const row = await tx.user.create({ data: { name: u.name, role: u.role, createdBy: u.createdBy } });
        await tx.auditLog.create({ data: { actor: u.createdBy, action: 'user.created', entityType: 'User', entityId: row.id, details: { name: u.name, role: u.role } } });
        return toRow(row);
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError(`user ${u.name} exists`);
      throw e;
    }
  }

  async get(id: string): Promise<UserRow | null> {
    if (!isUuid(id)) return null;
    const u = await this.db.user.findUnique({ where: { id } });
    return u ? toRow(u) : null;
  }

  async findByName(name: string): Promise<UserRow | null> {
    const u = await this.db.user.findUnique({ where: { name } });
    return u ? toRow(u) : null;
  }

  async list(): Promise<UserRow[]> {
    return (await this.db.user.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toRow);
  }

  /** Conditional UPDATE (disabledAt IS NULL), so concurrent calls audit once. */
  async disable(id: string, actor: string): Promise<UserRow> {
    if (!isUuid(id)) throw new NotFoundError(`user ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.user.updateManyAndReturn({ where: { id, disabledAt: null }, data: { disabledAt: new Date(), disabledBy: actor } });
      if (!row) {
        const current = await tx.user.findUnique({ where: { id } });
        if (!current) throw new NotFoundError(`user ${id} does not exist`);
        return toRow(current);
      }
      await tx.auditLog.create({ data: { actor, action: 'user.disabled', entityType: 'User', entityId: id, details: { name: row.name } } });
      return toRow(row);
    });
  }
}
