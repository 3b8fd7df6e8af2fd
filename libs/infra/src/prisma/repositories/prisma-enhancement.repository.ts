import type { EnhancementFilter, EnhancementRepository, EnhancementRow, NewEnhancement } from '@forensics/core';
import type { PrismaClient } from '../generated/client';
import { isUuid } from './prisma-json';

export class PrismaEnhancementRepository implements EnhancementRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(e: NewEnhancement): Promise<EnhancementRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.enhancement.create({ data: e });
      await tx.auditLog.create({ data: { actor: e.createdBy, action: 'enhancement.created', entityType: 'Enhancement', entityId: row.id, details: { feedbackId: e.feedbackId, proxyId: e.proxyId } } });
      return row;
    });
  }

  async get(id: string): Promise<EnhancementRow | null> {
    if (!isUuid(id)) return null;
    return this.db.enhancement.findUnique({ where: { id } });
  }

  async list(filter: EnhancementFilter): Promise<EnhancementRow[]> {
    if (filter.feedbackId && !isUuid(filter.feedbackId)) return [];
    return this.db.enhancement.findMany({
      where: { ...(filter.collection ? { collection: filter.collection } : {}), ...(filter.feedbackId ? { feedbackId: filter.feedbackId } : {}), ...(filter.state ? { state: filter.state } : {}) },
      orderBy: { createdAt: 'asc' },
      take: 1000,
    });
  }

  async findActiveByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]> {
    const ids = proxyIds.filter(isUuid);
    if (!ids.length) return [];
    return this.db.enhancement.findMany({ where: { proxyId: { in: ids }, state: 'ACTIVE' } });
  }

  async markDeleted(id: string, actor: string): Promise<EnhancementRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.enhancement.update({ where: { id }, data: { state: 'DELETED', deletedAt: new Date(), deletedBy: actor } });
      await tx.auditLog.create({ data: { actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id, details: { proxyId: row.proxyId } } });
      return row;
    });
  }
}
