import { NotFoundError, type NewQuarantine, type QuarantineEvidence, type QuarantineFilter, type QuarantineRepository, type QuarantineRow, type QuarantineState, type RedactionState } from '@forensics/core';
import type { PrismaClient, QuarantineRecord } from '../generated/client';
import { fromJson, isUniqueViolation, isUuid, jsonValue } from './prisma-json';

const toRow = (r: QuarantineRecord): QuarantineRow => ({
  id: r.id, documentId: r.documentId, feedbackId: r.feedbackId, collection: r.collection, reason: r.reason,
  // NOT NULL column, always written from a QuarantineEvidence by `create`.
  evidence: fromJson<QuarantineEvidence>(r.evidence)!,
  policy: r.policy, state: r.state, storeSynced: r.storeSynced, servedDuringReview: r.servedDuringReview, createdBy: r.createdBy,
  createdAt: r.createdAt, resolvedBy: r.resolvedBy, resolvedAt: r.resolvedAt, note: r.note, redaction: fromJson<RedactionState>(r.redaction),
});

const ACTIVE = ['QUARANTINED', 'NEEDS_REVIEW'] as const;

/** The review console's denormalised columns (issue 11): combined suspicion (when evidence was available) and judge kind. */
function reviewColumns(e: QuarantineEvidence): { suspicion: number | null; judgeKind: string | null } {
  const r = e.retrieverEvidence;
  const combined = r && 'combined' in r ? r.combined : null;
  return { suspicion: combined?.available && Number.isFinite(combined.suspicion) ? combined.suspicion : null, judgeKind: e.judge?.kind ?? null };
}

export class PrismaQuarantineRepository implements QuarantineRepository {
  constructor(private readonly db: PrismaClient) {}

  private async active(documentId: string): Promise<QuarantineRow | null> {
    const r = await this.db.quarantineRecord.findFirst({ where: { documentId, state: { in: [...ACTIVE] } } });
    return r ? toRow(r) : null;
  }

  async create(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }> {
    const missing = () => new NotFoundError(`document ${q.documentId} does not exist`);
    if (!isUuid(q.documentId)) throw missing();
    try {
      return await this.db.$transaction(async (tx) => {
        const existing = await tx.quarantineRecord.findFirst({ where: { documentId: q.documentId, state: { in: [...ACTIVE] } } });
        if (existing) return { record: toRow(existing), created: false };
        if (!(await tx.document.findUnique({ where: { id: q.documentId }, select: { id: true } }))) throw missing();
        const state = q.state ?? 'QUARANTINED';
        const record = await tx.quarantineRecord.create({
          data: {
            documentId: q.documentId, feedbackId: q.feedbackId, collection: q.collection, reason: q.reason, evidence: jsonValue(q.evidence),
            policy: q.policy, createdBy: q.createdBy, state, servedDuringReview: state === 'NEEDS_REVIEW' && !!q.servedDuringReview,
            ...reviewColumns(q.evidence),
          },
        });
        if (state === 'QUARANTINED' || !q.servedDuringReview) await tx.document.update({ where: { id: q.documentId }, data: { status: 'QUARANTINED' } });
        await tx.auditLog.create({
          data: {
            actor: q.createdBy, action: state === 'QUARANTINED' ? 'quarantine.created' : 'review.requested', entityType: 'QuarantineRecord', entityId: record.id,
            details: { documentId: q.documentId, feedbackId: q.feedbackId, policy: q.policy, servedDuringReview: record.servedDuringReview },
          },
        });
        return { record: toRow(record), created: true };
      });
    } catch (e) {
      // Lost a race on the partial unique index (one active record per document): the other
      // writer's record is the active one, and its transaction wrote the status and the audit entry.
      if (isUniqueViolation(e)) {
        const active = await this.active(q.documentId);
        if (active) return { record: active, created: false };
      }
      throw e;
    }
  }

  async markSynced(id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.quarantineRecord.updateMany({ where: { id }, data: { storeSynced: true } });
  }

  async get(id: string): Promise<QuarantineRow | null> {
    if (!isUuid(id)) return null;
    const r = await this.db.quarantineRecord.findUnique({ where: { id } });
    return r ? toRow(r) : null;
  }

  async list(filter: QuarantineFilter): Promise<QuarantineRow[]> {
    if (filter.feedbackId && !isUuid(filter.feedbackId)) return [];
    return (await this.db.quarantineRecord.findMany({
      where: {
        ...(filter.feedbackId ? { feedbackId: filter.feedbackId } : {}),
        ...(filter.state ? { state: filter.state } : {}),
        ...(filter.collection ? { collection: filter.collection } : {}),
        ...(filter.unsynced ? { storeSynced: false } : {}),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: Math.max(0, filter.limit ?? 500),
    })).map(toRow);
  }

  async restore(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.resolve(id, actor, note, ACTIVE, 'RESTORED', 'ACTIVE', 'quarantine.restored');
  }

  async approve(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.resolve(id, actor, note, ['NEEDS_REVIEW'], 'QUARANTINED', 'QUARANTINED', 'review.approved');
  }

  /**
   * One reviewer decision in one transaction: record state (unsynced), document status, audit entry.
   * The state change is a conditional UPDATE, so of two concurrent decisions on one record only one
   * applies (and is audited); the other sees the decided record, unchanged.
   */
  private async resolve(
    id: string, actor: string, note: string | undefined, from: readonly QuarantineState[], to: 'RESTORED' | 'QUARANTINED',
    documentStatus: 'ACTIVE' | 'QUARANTINED', action: string,
  ): Promise<QuarantineRow> {
    if (!isUuid(id)) throw new NotFoundError(`quarantine record ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const [updated] = await tx.quarantineRecord.updateManyAndReturn({
        where: { id, state: { in: [...from] } },
        data: { state: to, storeSynced: false, ...(to === 'QUARANTINED' ? { servedDuringReview: false } : {}), resolvedBy: actor, resolvedAt: new Date(), note: note ?? null },
      });
      if (!updated) {
        const rec = await tx.quarantineRecord.findUnique({ where: { id } });
        if (!rec) throw new NotFoundError(`quarantine record ${id} does not exist`);
        return toRow(rec);
      }
      await tx.document.update({ where: { id: updated.documentId }, data: { status: documentStatus } });
      await tx.auditLog.create({ data: { actor, action, entityType: 'QuarantineRecord', entityId: id, details: { documentId: updated.documentId, note: note ?? null } } });
      return toRow(updated);
    });
  }
}
