import type { TrustLevel } from '@forensics/algorithms';
import type { FeedbackEventRepository, FeedbackPatch, FeedbackRow, FeedbackStatus, NewFeedback, TraceRecord, VerificationDetails } from '@forensics/core';
import type { FeedbackEvent, Prisma, PrismaClient } from '../generated/client';
import { fromJson, isUniqueViolation, isUuid, toJson } from './prisma-json';

export const toRow = (e: FeedbackEvent): FeedbackRow => ({
  id: e.id, collection: e.collection, query: e.query, wrongAnswer: e.wrongAnswer, correctAnswer: e.correctAnswer, servedIds: e.servedIds,
  reporter: e.reporter, idempotencyKey: e.idempotencyKey, status: e.status, step: e.step, k: e.k, trace: fromJson<TraceRecord>(e.trace),
  failureReason: e.failureReason, attempts: e.attempts, createdAt: e.createdAt, updatedAt: e.updatedAt, tracedAt: e.tracedAt, answerId: e.answerId,
  verification: e.verification, verificationDetails: fromJson<VerificationDetails>(e.verificationDetails),
  trust: e.trust as TrustLevel, reporterSource: e.reporterSource, reportKey: e.reportKey,
});

function patchData(patch: FeedbackPatch): Prisma.FeedbackEventUpdateManyMutationInput {
  const { trace, verificationDetails, ...rest } = patch;
  return {
    ...rest,
    ...(trace !== undefined ? { trace: toJson(trace) } : {}),
    ...(verificationDetails !== undefined ? { verificationDetails: toJson(verificationDetails) } : {}),
  };
}

export class PrismaFeedbackEventRepository implements FeedbackEventRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    const data = {
      collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: input.servedIds ?? [], reporter: input.reporter ?? null, idempotencyKey: input.idempotencyKey ?? null, k: input.k, answerId: input.answerId ?? null,
      trust: input.trust ?? 'identified', reporterSource: input.reporterSource ?? null, reportKey: input.reportKey ?? null, status: input.status ?? 'RECEIVED',
    };
    const key = input.idempotencyKey;
    if (key) {
      const existing = await this.db.feedbackEvent.findUnique({ where: { idempotencyKey: key } });
      if (existing) return { event: toRow(existing), created: false };
    }
    try {
      return { event: toRow(await this.db.feedbackEvent.create({ data })), created: true };
    } catch (e) {
      // Two concurrent requests with one key: the loser returns the winner's event.
      if (key && isUniqueViolation(e)) {
        const winner = await this.db.feedbackEvent.findUnique({ where: { idempotencyKey: key } });
        if (winner) return { event: toRow(winner), created: false };
      }
      throw e;
    }
  }

  async get(id: string): Promise<FeedbackRow | null> {
    if (!isUuid(id)) return null;
    const e = await this.db.feedbackEvent.findUnique({ where: { id } });
    return e ? toRow(e) : null;
  }

  async findByAnswer(answerId: string): Promise<FeedbackRow | null> {
    if (!isUuid(answerId)) return null;
    const e = await this.db.feedbackEvent.findUnique({ where: { answerId } });
    return e ? toRow(e) : null;
  }

  async transition(id: string, change: { from: readonly FeedbackStatus[]; to: FeedbackStatus; set?: FeedbackPatch; incrementAttempts?: boolean }): Promise<FeedbackRow | null> {
    if (!isUuid(id) || !change.from.length) return null;
    // One conditional UPDATE … RETURNING: Postgres serialises concurrent writers on the row and
    // re-checks the WHERE after the first one committed, so exactly one of them moves the status;
    // the row returned is the one this statement wrote (no second read that a later writer could change).
    const [row] = await this.db.feedbackEvent.updateManyAndReturn({
      where: { id, status: { in: [...change.from] } },
      data: { ...patchData(change.set ?? {}), status: change.to, ...(change.incrementAttempts ? { attempts: { increment: 1 } } : {}) },
    });
    return row ? toRow(row) : null;
  }

  async update(id: string, patch: FeedbackPatch): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.feedbackEvent.updateMany({ where: { id }, data: patchData(patch) });
  }

  async listStale(statuses: readonly FeedbackStatus[], updatedBefore: Date, limit: number, after?: { updatedAt: Date; id: string }): Promise<FeedbackRow[]> {
    if (!statuses.length || limit <= 0) return [];
    const page = after ? { OR: [{ updatedAt: { gt: after.updatedAt } }, { updatedAt: after.updatedAt, id: { gt: after.id } }] } : {};
    return (await this.db.feedbackEvent.findMany({ where: { status: { in: [...statuses] }, updatedAt: { lt: updatedBefore }, ...page }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }], take: limit })).map(toRow);
  }

  async listRecent(collection: string, opts: { trust: readonly TrustLevel[]; limit: number; before?: { createdAt: Date; id: string } }): Promise<FeedbackRow[]> {
    if (!opts.trust.length || opts.limit <= 0) return [];
    const b = opts.before;
    const page = b ? { OR: [{ createdAt: { lt: b.createdAt } }, { createdAt: b.createdAt, id: { lt: b.id } }] } : {};
    // The (collection, createdAt) index serves it.
    return (await this.db.feedbackEvent.findMany({ where: { collection, trust: { in: [...opts.trust] }, ...page }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: opts.limit })).map(toRow);
  }
}
