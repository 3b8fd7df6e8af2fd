import { ConflictError, NotFoundError, type EnhancementFilter, type EnhancementRepository, type EnhancementRow, type NewEnhancement } from '@forensics/core';
import type { Enhancement, PrismaClient } from '../generated/client';
import { isUuid } from './prisma-json';

const toRow = (e: Enhancement): EnhancementRow => ({
  id: e.id, collection: e.collection, feedbackId: e.feedbackId, query: e.query, correctAnswer: e.correctAnswer, benignText: e.benignText, proxyId: e.proxyId,
  generatorKind: e.generatorKind, generatorModel: e.generatorModel, promptVersion: e.promptVersion, state: e.state, reason: e.reason, createdBy: e.createdBy,
  createdAt: e.createdAt, approvedAt: e.approvedAt, approvedBy: e.approvedBy, deletedAt: e.deletedAt, deletedBy: e.deletedBy,
});

export class PrismaEnhancementRepository implements EnhancementRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(e: NewEnhancement): Promise<EnhancementRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.enhancement.create({ data: e });
      await tx.auditLog.create({
        data: { actor: e.createdBy, action: e.state === 'PROPOSED' ? 'enhancement.proposed' : 'enhancement.created', entityType: 'Enhancement', entityId: row.id, details: { feedbackId: e.feedbackId, proxyId: e.proxyId, reason: e.reason } },
      });
      return toRow(row);
    });
  }

  async get(id: string): Promise<EnhancementRow | null> {
    if (!isUuid(id)) return null;
    const e = await this.db.enhancement.findUnique({ where: { id } });
    return e ? toRow(e) : null;
  }

  async list(filter: EnhancementFilter): Promise<EnhancementRow[]> {
    if (filter.feedbackId && !isUuid(filter.feedbackId)) return [];
    return (await this.db.enhancement.findMany({
      where: { ...(filter.collection ? { collection: filter.collection } : {}), ...(filter.feedbackId ? { feedbackId: filter.feedbackId } : {}), ...(filter.state ? { state: filter.state } : {}) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: 1000,
    })).map(toRow);
  }

  async findActiveByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]> {
    const ids = proxyIds.filter(isUuid);
    if (!ids.length) return [];
    return (await this.db.enhancement.findMany({ where: { proxyId: { in: ids }, state: 'ACTIVE' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toRow);
  }

  /** ACTIVE or PROPOSED → DELETED (conditional UPDATE, so concurrent deletes audit once); an already deleted row is returned as it is. */
  async markDeleted(id: string, actor: string): Promise<EnhancementRow> {
    if (!isUuid(id)) throw new NotFoundError(`enhancement ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.enhancement.updateManyAndReturn({ where: { id, state: { in: ['ACTIVE', 'PROPOSED'] } }, data: { state: 'DELETED', deletedAt: new Date(), deletedBy: actor } });
      if (!row) {
        const current = await tx.enhancement.findUnique({ where: { id } });
        if (!current) throw new NotFoundError(`enhancement ${id} does not exist`);
        return toRow(current);
      }
      await tx.auditLog.create({ data: { actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id, details: { proxyId: row.proxyId } } });
      return toRow(row);
    });
  }

  /** PROPOSED → ACTIVE (conditional UPDATE, so concurrent approvals audit once); ACTIVE is returned as it is; DELETED is a conflict. */
  async approve(id: string, actor: string): Promise<EnhancementRow> {
    if (!isUuid(id)) throw new NotFoundError(`enhancement ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.enhancement.updateManyAndReturn({ where: { id, state: 'PROPOSED' }, data: { state: 'ACTIVE', approvedAt: new Date(), approvedBy: actor } });
      if (!row) {
        const current = await tx.enhancement.findUnique({ where: { id } });
        if (!current) throw new NotFoundError(`enhancement ${id} does not exist`);
        if (current.state === 'DELETED') throw new ConflictError(`enhancement ${id} was deleted; it cannot be approved`);
        return toRow(current);
      }
      await tx.auditLog.create({ data: { actor, action: 'enhancement.approved', entityType: 'Enhancement', entityId: id, details: { proxyId: row.proxyId } } });
      return toRow(row);
    });
  }
}
