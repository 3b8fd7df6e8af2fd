import type {
  AnswerRow, AuditEntry, CollectionRow, EnhancementRow, NewAnswer, NewEnhancement, DocumentRow, FeedbackRow, ForensicsRepository, NewFeedback, NewQuarantine, NewVerdict,
  QuarantineRow, QuarantineState, VerdictRow,
} from '@forensics/core';
import { NotFoundError } from '@forensics/core';
import { Prisma, type PrismaClient } from './generated/client';

const json = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull => (v === null || v === undefined ? Prisma.DbNull : (v as Prisma.InputJsonValue));

/** ForensicsRepository over Prisma (Postgres). */
export class PrismaForensicsRepository implements ForensicsRepository {
  constructor(private readonly db: PrismaClient) {}

  async getCollection(name: string): Promise<CollectionRow | null> {
    return this.db.collection.findUnique({ where: { name }, select: { name: true, embedder: true, dimension: true } });
  }

  async ensureCollection(c: CollectionRow): Promise<CollectionRow> {
    await this.db.collection.createMany({ data: [c], skipDuplicates: true });
    return (await this.getCollection(c.name))!;
  }

  async findDocumentsByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]> {
    if (!hashes.length) return [];
    return this.db.document.findMany({ where: { collection, textHash: { in: [...hashes] } } }) as Promise<DocumentRow[]>;
  }

  async insertDocuments(rows: readonly Omit<DocumentRow, 'status'>[]): Promise<number> {
    if (!rows.length) return 0;
    const r = await this.db.document.createMany({
      data: rows.map((d) => ({ id: d.id, collection: d.collection, externalId: d.externalId, textHash: d.textHash, text: d.text, metadata: json(d.metadata) })),
      skipDuplicates: true,
    });
    return r.count;
  }

  async getDocuments(ids: readonly string[]): Promise<DocumentRow[]> {
    const valid = ids.filter(isUuid);
    if (!valid.length) return [];
    return this.db.document.findMany({ where: { id: { in: valid } } }) as Promise<DocumentRow[]>;
  }

  async countDocuments(collection: string): Promise<number> {
    return this.db.document.count({ where: { collection } });
  }

  async createFeedback(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    const data = {
      collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: input.servedIds ?? [], reporter: input.reporter ?? null, idempotencyKey: input.idempotencyKey ?? null, k: input.k,
      answerId: input.answerId ?? null,
    };
    if (input.idempotencyKey) {
      const existing = await this.db.feedbackEvent.findUnique({ where: { idempotencyKey: input.idempotencyKey } });
      if (existing) return { event: existing as FeedbackRow, created: false };
      try {
        return { event: (await this.db.feedbackEvent.create({ data })) as FeedbackRow, created: true };
      } catch (e) {
        // Two concurrent requests with one key: the loser returns the winner's event.
        if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002') {
          const winner = await this.db.feedbackEvent.findUnique({ where: { idempotencyKey: input.idempotencyKey } });
          if (winner) return { event: winner as FeedbackRow, created: false };
        }
        throw e;
      }
    }
    return { event: (await this.db.feedbackEvent.create({ data })) as FeedbackRow, created: true };
  }

  async getFeedback(id: string): Promise<FeedbackRow | null> {
    if (!isUuid(id)) return null;
    return (await this.db.feedbackEvent.findUnique({ where: { id } })) as FeedbackRow | null;
  }

  async updateFeedback(id: string, patch: Partial<Pick<FeedbackRow, 'status' | 'trace' | 'failureReason' | 'attempts' | 'tracedAt' | 'verification' | 'verificationDetails' | 'correctAnswer'>>): Promise<void> {
    const { trace, verificationDetails, ...rest } = patch;
    await this.db.feedbackEvent.update({
      where: { id },
      data: { ...rest, ...(trace !== undefined ? { trace: json(trace) } : {}), ...(verificationDetails !== undefined ? { verificationDetails: json(verificationDetails) } : {}) },
    });
  }

  async findFeedbackByAnswer(answerId: string): Promise<FeedbackRow | null> {
    if (!isUuid(answerId)) return null;
    return (await this.db.feedbackEvent.findUnique({ where: { answerId } })) as FeedbackRow | null;
  }

  async createAnswer(a: NewAnswer): Promise<AnswerRow> {
    return (await this.db.answer.create({ data: a })) as AnswerRow;
  }

  async getAnswer(id: string): Promise<AnswerRow | null> {
    if (!isUuid(id)) return null;
    return (await this.db.answer.findUnique({ where: { id } })) as AnswerRow | null;
  }

  async createEnhancement(e: NewEnhancement): Promise<EnhancementRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.enhancement.create({ data: e });
      await tx.auditLog.create({ data: { actor: e.createdBy, action: 'enhancement.created', entityType: 'Enhancement', entityId: row.id, details: { feedbackId: e.feedbackId, proxyId: e.proxyId } } });
      return row as EnhancementRow;
    });
  }

  async getEnhancement(id: string): Promise<EnhancementRow | null> {
    if (!isUuid(id)) return null;
    return (await this.db.enhancement.findUnique({ where: { id } })) as EnhancementRow | null;
  }

  async listEnhancements(filter: { collection?: string; feedbackId?: string; state?: 'ACTIVE' | 'DELETED' }): Promise<EnhancementRow[]> {
    return (await this.db.enhancement.findMany({
      where: { ...(filter.collection ? { collection: filter.collection } : {}), ...(filter.feedbackId ? { feedbackId: filter.feedbackId } : {}), ...(filter.state ? { state: filter.state } : {}) },
      orderBy: { createdAt: 'asc' },
      take: 1000,
    })) as EnhancementRow[];
  }

  async getEnhancementsByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]> {
    const ids = proxyIds.filter(isUuid);
    if (!ids.length) return [];
    return (await this.db.enhancement.findMany({ where: { proxyId: { in: ids }, state: 'ACTIVE' } })) as EnhancementRow[];
  }

  async markEnhancementDeleted(id: string, actor: string): Promise<EnhancementRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.enhancement.update({ where: { id }, data: { state: 'DELETED', deletedAt: new Date(), deletedBy: actor } });
      await tx.auditLog.create({ data: { actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id, details: { proxyId: row.proxyId } } });
      return row as EnhancementRow;
    });
  }

  async listUnqueuedFeedback(olderThan: Date, limit: number): Promise<FeedbackRow[]> {
    return (await this.db.feedbackEvent.findMany({ where: { status: 'RECEIVED', createdAt: { lt: olderThan } }, orderBy: { createdAt: 'asc' }, take: limit })) as FeedbackRow[];
  }

  async listVerdicts(feedbackId: string): Promise<VerdictRow[]> {
    return (await this.db.judgeVerdict.findMany({ where: { feedbackId }, orderBy: [{ round: 'asc' }, { createdAt: 'asc' }] })) as VerdictRow[];
  }

  async findVerdictByCacheKey(cacheKey: string): Promise<VerdictRow | null> {
    return (await this.db.judgeVerdict.findFirst({ where: { cacheKey, cached: false, label: { not: 'UNDETERMINED' } }, orderBy: { createdAt: 'desc' } })) as VerdictRow | null;
  }

  async saveVerdict(v: NewVerdict): Promise<void> {
    const data = { ...v, signals: json(v.signals), evidence: json(v.evidence) };
    await this.db.judgeVerdict.upsert({
      where: { feedbackId_documentId: { feedbackId: v.feedbackId, documentId: v.documentId } },
      create: data,
      update: data,
    });
  }

  async createQuarantine(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }> {
    return this.db.$transaction(async (tx) => {
      const active = await tx.quarantineRecord.findFirst({ where: { documentId: q.documentId, state: { in: ['QUARANTINED', 'NEEDS_REVIEW'] } } });
      if (active) return { record: active as QuarantineRow, created: false };
      const state = q.state ?? 'QUARANTINED';
      const record = await tx.quarantineRecord.create({
        data: {
          documentId: q.documentId, feedbackId: q.feedbackId, collection: q.collection, reason: q.reason, evidence: q.evidence as Prisma.InputJsonValue,
          policy: q.policy, createdBy: q.createdBy, state, servedDuringReview: state === 'NEEDS_REVIEW' && !!q.servedDuringReview,
        },
      });
      if (state === 'QUARANTINED' || !q.servedDuringReview) await tx.document.update({ where: { id: q.documentId }, data: { status: 'QUARANTINED' } });
      await tx.auditLog.create({ data: { actor: q.createdBy, action: state === 'QUARANTINED' ? 'quarantine.created' : 'review.requested', entityType: 'QuarantineRecord', entityId: record.id, details: { documentId: q.documentId, feedbackId: q.feedbackId, policy: q.policy, servedDuringReview: record.servedDuringReview } } });
      return { record: record as QuarantineRow, created: true };
    }).catch(async (e) => {
      // Lost a race on the partial unique index: the other writer's record is the active one.
      if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002') {
        const active = await this.db.quarantineRecord.findFirst({ where: { documentId: q.documentId, state: { in: ['QUARANTINED', 'NEEDS_REVIEW'] } } });
        if (active) return { record: active as QuarantineRow, created: false };
      }
      throw e;
    });
  }

  async markQuarantineSynced(id: string): Promise<void> {
    await this.db.quarantineRecord.update({ where: { id }, data: { storeSynced: true } });
  }

  async getQuarantine(id: string): Promise<QuarantineRow | null> {
    if (!isUuid(id)) return null;
    return (await this.db.quarantineRecord.findUnique({ where: { id } })) as QuarantineRow | null;
  }

  async listQuarantines(filter: { feedbackId?: string; state?: QuarantineState; collection?: string; unsynced?: boolean; limit?: number }): Promise<QuarantineRow[]> {
    return (await this.db.quarantineRecord.findMany({
      where: {
        ...(filter.feedbackId ? { feedbackId: filter.feedbackId } : {}),
        ...(filter.state ? { state: filter.state } : {}),
        ...(filter.collection ? { collection: filter.collection } : {}),
        ...(filter.unsynced ? { storeSynced: false } : {}),
      },
      orderBy: { createdAt: 'asc' },
      take: filter.limit ?? 500,
    })) as QuarantineRow[];
  }

  async restoreQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.db.$transaction(async (tx) => {
      const rec = await tx.quarantineRecord.findUnique({ where: { id } });
      if (!rec) throw new NotFoundError(`quarantine record ${id} does not exist`);
      if (rec.state !== 'QUARANTINED' && rec.state !== 'NEEDS_REVIEW') return rec as QuarantineRow;
      const updated = await tx.quarantineRecord.update({ where: { id }, data: { state: 'RESTORED', storeSynced: false, resolvedBy: actor, resolvedAt: new Date(), note: note ?? null } });
      await tx.document.update({ where: { id: rec.documentId }, data: { status: 'ACTIVE' } });
      await tx.auditLog.create({ data: { actor, action: 'quarantine.restored', entityType: 'QuarantineRecord', entityId: id, details: { documentId: rec.documentId, note: note ?? null } } });
      return updated as QuarantineRow;
    });
  }

  async approveQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.db.$transaction(async (tx) => {
      const rec = await tx.quarantineRecord.findUnique({ where: { id } });
      if (!rec) throw new NotFoundError(`quarantine record ${id} does not exist`);
      if (rec.state !== 'NEEDS_REVIEW') return rec as QuarantineRow;
      const updated = await tx.quarantineRecord.update({ where: { id }, data: { state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, resolvedBy: actor, resolvedAt: new Date(), note: note ?? null } });
      await tx.document.update({ where: { id: rec.documentId }, data: { status: 'QUARANTINED' } });
      await tx.auditLog.create({ data: { actor, action: 'review.approved', entityType: 'QuarantineRecord', entityId: id, details: { documentId: rec.documentId, note: note ?? null } } });
      return updated as QuarantineRow;
    });
  }

  async audit(entry: AuditEntry): Promise<void> {
    await this.db.auditLog.create({ data: { actor: entry.actor, action: entry.action, entityType: entry.entityType, entityId: entry.entityId, details: json(entry.details) } });
  }

  async listAudit(entityType: string, entityId: string): Promise<(AuditEntry & { at: Date })[]> {
    const rows = await this.db.auditLog.findMany({ where: { entityType, entityId }, orderBy: { id: 'asc' } });
    return rows.map((r) => ({ at: r.at, actor: r.actor, action: r.action, entityType: r.entityType, entityId: r.entityId, details: (r.details ?? undefined) as Record<string, unknown> | undefined }));
  }

  async ping(): Promise<void> {
    await this.db.$queryRawUnsafe('SELECT 1');
  }
}

function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}
