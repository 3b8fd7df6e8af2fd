import { randomUUID } from 'node:crypto';
import { ConflictError, type AnswerRepository, type AuditEntry, type AuditLogRepository, type CollectionRow, type DocumentRepository, type DocumentRow, type FeedbackEventRepository, type FeedbackRow, type FeedbackStatus, type NewFeedback, type TraceRecord, type VerificationDetails } from '@forensics/core';
import { ItemFailure, MicroBatcher, type MicroBatcherOptions } from '../../batching/micro-batcher';
import type { FeedbackEvent, PrismaClient } from '../generated/client';
import { fromJson, isUuid, toJson } from './prisma-json';

/*
 * Intake writes as group commits (issue 15: POST /v1/feedback under load). Per request the intake
 * used to make five to seven Postgres round trips, each its own transaction and WAL flush; under 50
 * concurrent connections the pool and the commits were the limit. Here the writes of concurrent
 * requests go out together — one multi-row INSERT of events, one of audit entries, one UPDATE for
 * RECEIVED → QUEUED — and every caller's promise still settles only after ITS batch committed, so a
 * 202 still means the row is in Postgres. A failed statement rejects every request of its batch and
 * writes none of its rows (one statement = one transaction).
 */

// The same mapping as PrismaFeedbackEventRepository's (kept beside the SQL that returns the rows).
const toRow = (e: FeedbackEvent): FeedbackRow => ({
  id: e.id, collection: e.collection, query: e.query, wrongAnswer: e.wrongAnswer, correctAnswer: e.correctAnswer, servedIds: e.servedIds,
  reporter: e.reporter, idempotencyKey: e.idempotencyKey, status: e.status, step: e.step, k: e.k, trace: fromJson<TraceRecord>(e.trace),
  failureReason: e.failureReason, attempts: e.attempts, createdAt: e.createdAt, updatedAt: e.updatedAt, tracedAt: e.tracedAt, answerId: e.answerId,
  verification: e.verification, verificationDetails: fromJson<VerificationDetails>(e.verificationDetails),
  trust: e.trust as NonNullable<FeedbackRow['trust']>, reporterSource: e.reporterSource, reportKey: e.reportKey,
});

type TransitionChange = Parameters<FeedbackEventRepository['transition']>[1];

/**
 * FeedbackEventRepository whose `create` and plain status transitions (no patch, no attempt count)
 * are batched; everything else goes to the wrapped repository unchanged.
 *
 * create: ids are chosen here, the batch is one `INSERT … ON CONFLICT DO NOTHING RETURNING`
 * (Prisma's createManyAndReturn with skipDuplicates). A row that was not inserted met a unique
 * index — its Idempotency-Key or its answer id (one event per feedback token) is taken, possibly
 * by another row of the same batch. The event holding its key is returned with created=false,
 * exactly as the one-by-one create returns the winner of a race; an answer id held by an event
 * under another key is refused (ConflictError), as the unique index refuses it one by one.
 * transition: one `UPDATE … WHERE id IN (…) AND status IN (from) RETURNING` per (from, to); an id
 * twice in one batch is moved once (the second caller sees null, as a second compare-and-set would).
 */
export class BatchingFeedbackEventRepository implements FeedbackEventRepository {
  private readonly creates: MicroBatcher<NewFeedback, { event: FeedbackRow; created: boolean }>;
  private readonly transitions = new Map<string, MicroBatcher<string, FeedbackRow | null>>();

  constructor(private readonly db: PrismaClient, private readonly inner: FeedbackEventRepository, private readonly opts: MicroBatcherOptions = {}) {
    this.creates = new MicroBatcher((items) => this.createBatch(items), opts);
  }

  create(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    return this.creates.submit(input);
  }

  private async createBatch(inputs: NewFeedback[]): Promise<({ event: FeedbackRow; created: boolean } | ItemFailure)[]> {
    const data = inputs.map((input) => ({
      id: randomUUID(), collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: input.servedIds ?? [], reporter: input.reporter ?? null, idempotencyKey: input.idempotencyKey || null, k: input.k, answerId: input.answerId ?? null,
      trust: input.trust ?? 'identified', reporterSource: input.reporterSource ?? null, reportKey: input.reportKey ?? null,
    }));
    const inserted = new Map((await this.db.feedbackEvent.createManyAndReturn({ data, skipDuplicates: true })).map((e) => [e.id, e]));
    const losers = data.filter((d) => !inserted.has(d.id));
    let holders: FeedbackEvent[] = [];
    if (losers.length) {
      const keys = losers.flatMap((d) => (d.idempotencyKey ? [d.idempotencyKey] : []));
      const answers = losers.flatMap((d) => (d.answerId ? [d.answerId] : []));
      holders = await this.db.feedbackEvent.findMany({ where: { OR: [{ idempotencyKey: { in: keys } }, { answerId: { in: answers } }] } });
    }
    return data.map((d) => {
      const row = inserted.get(d.id);
      if (row) return { event: toRow(row), created: true };
      const holder = d.idempotencyKey !== null ? holders.find((h) => h.idempotencyKey === d.idempotencyKey) : undefined;
      if (holder) return { event: toRow(holder), created: false };
      // Refused like the one-by-one create's unique violation: the answer already has its event under another key.
      if (d.answerId !== null && holders.some((h) => h.answerId === d.answerId)) return new ItemFailure(new ConflictError(`answer ${d.answerId} already has its feedback event`));
      return new ItemFailure(new Error('feedback event was not inserted and no event holds its idempotency key or answer id'));
    });
  }

  transition(id: string, change: TransitionChange): Promise<FeedbackRow | null> {
    if (change.set || change.incrementAttempts || !isUuid(id) || !change.from.length) return this.inner.transition(id, change);
    const from = [...change.from].sort();
    const key = `${from.join(',')}>${change.to}`;
    let batcher = this.transitions.get(key);
    if (!batcher) {
      batcher = new MicroBatcher((ids) => this.transitionBatch(ids, from, change.to), this.opts);
      this.transitions.set(key, batcher);
    }
    return batcher.submit(id);
  }

  private async transitionBatch(ids: string[], from: FeedbackStatus[], to: FeedbackStatus): Promise<(FeedbackRow | null)[]> {
    const rows = await this.db.feedbackEvent.updateManyAndReturn({ where: { id: { in: [...new Set(ids)] }, status: { in: from } }, data: { status: to } });
    const moved = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = moved.get(id);
      moved.delete(id); // the first caller of an id gets the row, a later one null
      return r ? toRow(r) : null;
    });
  }

  get(...a: Parameters<FeedbackEventRepository['get']>) { return this.inner.get(...a); }
  findByAnswer(...a: Parameters<FeedbackEventRepository['findByAnswer']>) { return this.inner.findByAnswer(...a); }
  update(...a: Parameters<FeedbackEventRepository['update']>) { return this.inner.update(...a); }
  listStale(...a: Parameters<FeedbackEventRepository['listStale']>) { return this.inner.listStale(...a); }
}

/** AuditLogRepository whose appends are batched (one multi-row INSERT); reads go to the wrapped repository. */
export class BatchingAuditLogRepository implements AuditLogRepository {
  private readonly appends: MicroBatcher<AuditEntry, void>;

  constructor(private readonly db: PrismaClient, private readonly inner: AuditLogRepository, opts: MicroBatcherOptions = {}) {
    this.appends = new MicroBatcher<AuditEntry, void>(async (entries) => {
      await this.db.auditLog.createMany({ data: entries.map((e) => ({ actor: e.actor, action: e.action, entityType: e.entityType, entityId: e.entityId, details: toJson(e.details) })) });
      return entries.map(() => undefined);
    }, opts);
  }

  append(entry: AuditEntry): Promise<void> {
    return this.appends.submit(entry);
  }

  listFor(...a: Parameters<AuditLogRepository['listFor']>) { return this.inner.listFor(...a); }
}

/**
 * The intake's per-request reads, grouped the same way: collection lookups of a batch become one
 * query per distinct name, `documents.get` calls one query over the union of their ids, and
 * `answers.get` / `feedback.findByAnswer` calls are issued in one tick, where Prisma merges
 * findUnique calls into one query. Results are as the wrapped repository returns them; nothing is
 * cached beyond the batch.
 */
export function withBatchedReads<R extends { documents: DocumentRepository; answers: AnswerRepository; feedback: FeedbackEventRepository }>(repos: R, opts: MicroBatcherOptions = {}): R {
  const { documents, answers, feedback } = repos;
  const collections = new MicroBatcher<string, CollectionRow | null>(async (names) => {
    const distinct = [...new Set(names)];
    const rows = new Map(await Promise.all(distinct.map(async (n) => [n, await documents.getCollection(n)] as const)));
    return names.map((n) => rows.get(n) ?? null);
  }, opts);
  const docs = new MicroBatcher<readonly string[], DocumentRow[]>(async (lists) => {
    const rows = new Map((await documents.get([...new Set(lists.flat())])).map((d) => [d.id, d]));
    return lists.map((ids) => [...new Set(ids)].flatMap((id) => (rows.has(id) ? [rows.get(id)!] : [])));
  }, opts);
  const sameTick = <I, O>(fn: (i: I) => Promise<O>) => new MicroBatcher<I, O>(async (items) =>
    (await Promise.allSettled(items.map(fn))).map((r) => (r.status === 'fulfilled' ? r.value : new ItemFailure(r.reason))), opts);
  const answerById = sameTick((id: string) => answers.get(id));
  const eventByAnswer = sameTick((id: string) => feedback.findByAnswer(id));
  return {
    ...repos,
    documents: overlay(documents, { getCollection: (name: string) => collections.submit(name), get: (ids: readonly string[]) => (ids.length ? docs.submit(ids) : documents.get(ids)) }),
    answers: overlay(answers, { get: (id: string) => answerById.submit(id) }),
    feedback: overlay(feedback, { findByAnswer: (id: string) => eventByAnswer.submit(id) }),
  };
}

/** `inner` with some methods replaced; every other member is inner's own (through the prototype chain). */
function overlay<T extends object>(inner: T, overrides: Partial<T>): T {
  return Object.assign(Object.create(inner) as T, overrides);
}
