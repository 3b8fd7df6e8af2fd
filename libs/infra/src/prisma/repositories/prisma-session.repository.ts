import { ConflictError, type NewSession, type SessionRepository, type SessionRow } from '@forensics/core';
import type { PrismaClient, Session } from '../generated/client';
import { isUniqueViolation } from './prisma-json';

const toRow = (s: Session): SessionRow => ({
  id: s.id, userId: s.userId, keyId: s.keyId, name: s.name, role: s.role, csrfSecret: s.csrfSecret, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt,
  expiresAt: s.expiresAt, ip: s.ip, userAgent: s.userAgent,
});

/** Console sessions (issue 11), by the SHA-256 of their cookie token. */
export class PrismaSessionRepository implements SessionRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(s: NewSession): Promise<SessionRow> {
    try {
      return toRow(await this.db.session.create({ data: s }));
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError('session exists');
      throw e;
    }
  }

  async get(id: string): Promise<SessionRow | null> {
    const s = await this.db.session.findUnique({ where: { id } });
    return s ? toRow(s) : null;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id }, data: { lastSeenAt: at } });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.session.deleteMany({ where: { id } })).count > 0;
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.db.session.deleteMany({ where: { expiresAt: { lt: now } } })).count;
  }
}
