import { randomUUID } from 'node:crypto';
import { ConflictError, type AnswerRepository, type AnswerRow, type AuditEntry, type AuditLogRepository, type CollectionRow, type DocumentRepository, type DocumentRow, type FeedbackEventRepository, type FeedbackRow, type FeedbackStatus, type NewFeedback } from '@forensics/core';
import { ItemFailure, MicroBatcher, type MicroBatcherOptions } from '../../batching/micro-batcher';
import type { Answer, Document, FeedbackEvent, PrismaClient } from '../generated/client';
import { toRow as answerToRow } from './prisma-answer.repository';
import { toRow as documentToRow } from './prisma-document.repository';
import { toRow } from './prisma-feedback-event.repository';
import { isUuid } from './prisma-json';
import { sqlClientOf, type SqlClient } from '../sql-client';

/*
 * Intake writes as group commits (issue 15: POST /v1/feedback under load). Per request the intake
 * used to make five to seven Postgres round trips, each its own transaction and WAL flush; under 50
 * concurrent connections the pool and the commits were the limit. Here the writes of concurrent
 * requests go out together — one multi-row INSERT of events, one of audit entries, one UPDATE for
 * RECEIVED → QUEUED — and every caller's promise still settles only after ITS batch committed, so a
 * 202 still means the row is in Postgres. A failed statement rejects every request of its batch and
 * writes none of its rows (one statement = one transaction).
 *
 * The batched statements are SQL written here, every value a bound parameter, sent through
 * node-postgres on the Prisma client's own pool (sql-client.ts): Prisma's model API cost 0.65 ms of
 * CPU per row for createManyAndReturn (its query compiler plans every batch size anew), the same
 * INSERT as SQL through Prisma's raw queries 0.09 ms (20-row batches, measured on this machine) —
 * the model calls were ~45% of the API's CPU under the intake benchmark, the raw-query layer later
 * still ~11%. The SQL names the columns of prisma/schema.prisma; the repository contract tests run
 * these statements against Postgres.
 */


// The columns a new event is inserted with (the rest take their defaults), and their casts.
const INSERT_COLUMNS = ['id', 'collection', 'query', 'wrongAnswer', 'correctAnswer', 'servedIds', 'reporter', 'idempotencyKey', 'k', 'answerId', 'trust', 'reporterSource', 'reportKey', 'status'] as const;
const CASTS: Partial<Record<(typeof INSERT_COLUMNS)[number], string>> = { id: '::uuid', answerId: '::uuid', servedIds: '::text[]', k: '::int', status: '::"FeedbackStatus"' };

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

  private readonly sql: SqlClient;

  constructor(private readonly db: PrismaClient, private readonly inner: FeedbackEventRepository, private readonly opts: MicroBatcherOptions = {}) {
    this.sql = sqlClientOf(db);
    this.creates = new MicroBatcher((items) => this.createBatch(items), opts);
  }

  create(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    return this.creates.submit(input);
  }

  private async createBatch(inputs: NewFeedback[]): Promise<({ event: FeedbackRow; created: boolean } | ItemFailure)[]> {
    const data = inputs.map((input) => ({
      id: randomUUID(), collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: input.servedIds ?? [], reporter: input.reporter ?? null, idempotencyKey: input.idempotencyKey || null, k: input.k, answerId: input.answerId ?? null,
      trust: input.trust ?? 'identified', reporterSource: input.reporterSource ?? null, reportKey: input.reportKey ?? null, status: input.status ?? 'RECEIVED',
    }));
    const params: unknown[] = [];
    const values = data.map((d) => `(${INSERT_COLUMNS.map((c) => { params.push(d[c]); return `$${params.length}${CASTS[c] ?? ''}`; }).join(', ')}, now())`);
    const text = `INSERT INTO "FeedbackEvent" (${INSERT_COLUMNS.map((c) => `"${c}"`).join(', ')}, "updatedAt") VALUES ${values.join(', ')} ON CONFLICT DO NOTHING RETURNING *`;
    const inserted = new Map((await this.sql.query<FeedbackEvent>(text, params)).map((e) => [e.id, e]));
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
    const rows = await this.sql.query<FeedbackEvent>(
      'UPDATE "FeedbackEvent" SET "status" = $1::"FeedbackStatus", "updatedAt" = now() WHERE "id" = ANY($2::uuid[]) AND "status" = ANY($3::"FeedbackStatus"[]) RETURNING *',
      [to, [...new Set(ids)], from],
    );
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
  listRecent(...a: Parameters<FeedbackEventRepository['listRecent']>) { return this.inner.listRecent(...a); }
}

/** AuditLogRepository whose appends are batched (one multi-row INSERT); reads go to the wrapped repository. */
export class BatchingAuditLogRepository implements AuditLogRepository {
  private readonly appends: MicroBatcher<AuditEntry, void>;

  private readonly sql: SqlClient;

  constructor(db: PrismaClient, private readonly inner: AuditLogRepository, opts: MicroBatcherOptions = {}) {
    this.sql = sqlClientOf(db);
    this.appends = new MicroBatcher<AuditEntry, void>(async (entries) => {
      await this.sql.query(
        'INSERT INTO "AuditLog" ("actor", "action", "entityType", "entityId", "details") SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[])',
        [entries.map((e) => e.actor), entries.map((e) => e.action), entries.map((e) => e.entityType), entries.map((e) => e.entityId),
          entries.map((e) => (e.details === undefined || e.details === null ? null : JSON.stringify(e.details)))],
      );
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
 * query, `documents.get` calls one query over the union of their ids, and `answers.get` /
 * `feedback.findByAnswer` calls one query each: `= ANY($1)` SELECTs in SQL, as the writes above. Results are as the wrapped repository returns them; nothing is cached beyond the batch.
 */
export function withBatchedReads<R extends { documents: DocumentRepository; answers: AnswerRepository; feedback: FeedbackEventRepository }>(db: PrismaClient, repos: R, opts: MicroBatcherOptions = {}): R {
  const { documents, answers, feedback } = repos;
  const sql = sqlClientOf(db);
  const collections = new MicroBatcher<string, CollectionRow | null>(async (names) => {
    const rows = await sql.query<CollectionRow>('SELECT "name", "embedder", "dimension", "vettedBefore" FROM "Collection" WHERE "name" = ANY($1::text[])', [[...new Set(names)]]);
    const byName = new Map(rows.map((r) => [r.name, r]));
    return names.map((n) => byName.get(n) ?? null);
  }, opts);
  const docs = new MicroBatcher<readonly string[], DocumentRow[]>(async (lists) => {
    const valid = [...new Set(lists.flat().filter(isUuid))];
    const rows = valid.length ? await sql.query<Document>('SELECT * FROM "Document" WHERE "id" = ANY($1::uuid[])', [valid]) : [];
    const byId = new Map(rows.map((d) => [d.id, documentToRow(d)]));
    return lists.map((ids) => [...new Set(ids)].flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])));
  }, opts);
  /** One `SELECT * … WHERE column = ANY($1::uuid[])` per batch; each caller gets the row whose column equals its id (non-UUIDs: null). */
  const byUuid = <Row extends Record<string, unknown>, Out>(table: string, column: string, toOut: (r: Row) => Out) => new MicroBatcher<string, Out | null>(async (ids) => {
    const valid = [...new Set(ids.filter(isUuid))];
    const rows = valid.length ? await sql.query<Row>(`SELECT * FROM "${table}" WHERE "${column}" = ANY($1::uuid[])`, [valid]) : [];
    const found = new Map(rows.map((r) => [String(r[column]), r]));
    return ids.map((id) => { const r = found.get(id); return r ? toOut(r) : null; });
  }, opts);
  const answerById = byUuid<Answer, AnswerRow>('Answer', 'id', answerToRow);
  const eventByAnswer = byUuid<FeedbackEvent, FeedbackRow>('FeedbackEvent', 'answerId', toRow);
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
