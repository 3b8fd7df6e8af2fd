import {
  planDecision, reporterKindOf, PURGED_CACHE_KEY, PURGED_TEXT_MARKER,
  type AuditQuery, type AuditRow, type BatchDecided, type BulkRequestRow, type NewRememberedDecision, type ClaimResult, type DecideOptions, type DecideResult, type DecisionAction, type JsonObject,
  DECISION_AUDIT_ACTIONS, REDACT_AUDIT_ACTION, UNDO_AUDIT_ACTION, type RedactionState, type RedactOptions, type RedactResult,
  type DecisionPrev, type Label, type QuarantineState, type ReviewProgressCounts, type UndoResult, type RememberedDecision, type ReviewCounts, type ReviewCursor, type ReviewEventFilter, type ReviewEventRow,
  type ReviewFilter, type ReviewItemRow, type ReviewPage, type ReviewRepository, type ReviewSort,
} from '@forensics/core';
import { Prisma, type PrismaClient } from '../generated/client';
import { fromJson, isUuid, jsonValue } from './prisma-json';

type Tx = Prisma.TransactionClient | PrismaClient;

/** Timestamps are stored as UTC `timestamp(3)` (Prisma's convention): "now" in the same terms. */
const NOW = Prisma.raw(`(now() AT TIME ZONE 'UTC')`);
const RISK = Prisma.raw(`COALESCE(r."suspicion", -1)`);

const ITEM_COLUMNS = Prisma.raw(`r."id", r."state"::text AS "state", r."documentId", r."collection", d."externalId", d."metadata", d."textHash", left(d."text", 240) AS "textPreview",
  r."feedbackId", f."query", f."wrongAnswer", r."judgeKind", r."evidence"->'judge'->>'label' AS "judgeLabel", r."suspicion", r."servedDuringReview",
  r."createdAt", r."decision", r."resolvedBy", r."resolvedAt", r."note", r."reasons", r."claimedBy", r."claimedUntil",
  (r."claimedUntil" IS NOT NULL AND r."claimedUntil" > (now() AT TIME ZONE 'UTC')) AS "claimLive"`);
const ITEM_FROM = Prisma.raw(`"QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId" LEFT JOIN "FeedbackEvent" f ON f."id" = r."feedbackId"`);

interface ItemSqlRow {
  id: string; state: QuarantineState; documentId: string; collection: string; externalId: string | null; metadata: Prisma.JsonValue | null; textHash: string; textPreview: string; feedbackId: string | null;
  query: string | null; wrongAnswer: string | null; judgeKind: string | null; judgeLabel: string | null; suspicion: number | null; servedDuringReview: boolean;
  createdAt: Date; decision: string | null; resolvedBy: string | null; resolvedAt: Date | null; note: string | null; reasons: string[] | null; claimedBy: string | null;
  claimedUntil: Date | null; claimLive: boolean;
}

const LABELS: readonly string[] = ['YES', 'NO', 'UNDETERMINED'];

/** The stored metadata when it is a JSON object (what ingest accepts); anything else as null. */
function metadataOf(m: Prisma.JsonValue | null): JsonObject | null {
  return m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as JsonObject) : null;
}

function toItem(r: ItemSqlRow): ReviewItemRow {
  return {
    id: r.id, state: r.state, documentId: r.documentId, collection: r.collection, externalId: r.externalId, metadata: metadataOf(r.metadata), textHash: r.textHash, textPreview: r.textPreview, feedbackId: r.feedbackId,
    query: r.query, wrongAnswer: r.wrongAnswer, judgeKind: r.judgeKind, judgeLabel: r.judgeLabel && LABELS.includes(r.judgeLabel) ? (r.judgeLabel as Label) : null,
    suspicion: r.suspicion === null ? null : Number(r.suspicion), servedDuringReview: r.servedDuringReview, createdAt: r.createdAt,
    decision: (r.decision as DecisionAction | null) ?? null, decidedBy: r.resolvedBy, decidedAt: r.resolvedAt, note: r.note, reasons: r.reasons ?? [],
    claim: r.claimLive && r.claimedBy && r.claimedUntil ? { by: r.claimedBy, until: r.claimedUntil } : null,
  };
}

/** `%`, `_` and `\` taken literally in an ILIKE pattern. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function where(f: ReviewFilter, withStates: boolean): Prisma.Sql | null {
  const parts: Prisma.Sql[] = [];
  if (withStates && f.states) {
    if (!f.states.length) return null;
    // Compared as the enum (not ::text), so the planner uses the state indexes and estimates.
    parts.push(Prisma.sql`r."state" IN (${Prisma.join(f.states.map((st) => Prisma.sql`CAST(${st} AS "QuarantineState")`))})`);
  }
  if (f.collection !== undefined) parts.push(Prisma.sql`r."collection" = ${f.collection}`);
  if (f.feedbackId !== undefined) {
    if (!isUuid(f.feedbackId)) return null;
    parts.push(Prisma.sql`r."feedbackId" = ${f.feedbackId}::uuid`);
  }
  if (f.judgeKind !== undefined) parts.push(Prisma.sql`r."judgeKind" = ${f.judgeKind}`);
  if (f.from) parts.push(Prisma.sql`r."createdAt" >= ${f.from.toISOString()}::timestamp`);
  if (f.to) parts.push(Prisma.sql`r."createdAt" < ${f.to.toISOString()}::timestamp`);
  // Also stated on the risk key (implied for non-null suspicions), so the risk indexes are read as a range, not filtered.
  if (f.minSuspicion !== undefined) parts.push(Prisma.sql`r."suspicion" >= ${f.minSuspicion} AND ${RISK} >= ${f.minSuspicion}::double precision`);
  if (f.maxSuspicion !== undefined) parts.push(Prisma.sql`r."suspicion" <= ${f.maxSuspicion} AND ${RISK} <= ${f.maxSuspicion}::double precision`);
  if (f.q) parts.push(Prisma.sql`d."text" ILIKE ${`%${likeLiteral(f.q)}%`}`);
  if (f.decided === true) parts.push(Prisma.sql`r."decision" IS NOT NULL`);
  if (f.decided === false) parts.push(Prisma.sql`r."decision" IS NULL`);
  if (f.reason !== undefined) parts.push(Prisma.sql`r."reasons" @> ARRAY[${f.reason}]::text[]`);
  if (f.decidableBy !== undefined) {
    parts.push(Prisma.sql`r."decision" IS NULL AND (r."claimedBy" IS NULL OR r."claimedBy" = ${f.decidableBy} OR r."claimedUntil" IS NULL OR r."claimedUntil" <= ${NOW})`);
  }
  return parts.length ? Prisma.join(parts, ' AND ') : Prisma.sql`TRUE`;
}

function orderBy(sort: ReviewSort): Prisma.Sql {
  if (sort === 'risk') return Prisma.sql`${RISK} DESC, r."createdAt" DESC, r."id" DESC`;
  if (sort === 'age') return Prisma.sql`r."createdAt" ASC, r."id" ASC`;
  return Prisma.sql`r."createdAt" DESC, r."id" DESC`;
}

function after(sort: ReviewSort, c: ReviewCursor): Prisma.Sql {
  const at = Prisma.sql`${c.createdAt}::timestamp`;
  const id = Prisma.sql`${c.id}::uuid`;
  if (sort === 'risk') return Prisma.sql`(${RISK}, r."createdAt", r."id") < (${c.suspicion}::double precision, ${at}, ${id})`;
  if (sort === 'age') return Prisma.sql`(r."createdAt", r."id") > (${at}, ${id})`;
  return Prisma.sql`(r."createdAt", r."id") < (${at}, ${id})`;
}

const emptyCounts = (): ReviewCounts => ({ NEEDS_REVIEW: 0, QUARANTINED: 0, RESTORED: 0, PURGED: 0 });

/** Per action: the audit action name. */
const AUDIT_ACTION = DECISION_AUDIT_ACTIONS;

/** Audit entries of this principal (their name, with any key id after it: `alice key:3f2a…`). */
const byPrincipal = (p: string) => Prisma.sql`(a."actor" = ${p} OR a."actor" LIKE ${`${likeLiteral(p)} key:%`})`;

export class PrismaReviewRepository implements ReviewRepository {
  constructor(private readonly db: PrismaClient) {}

  async search(filter: ReviewFilter, page: { sort: ReviewSort; limit: number; after?: ReviewCursor | null }): Promise<ReviewPage> {
    const w = where(filter, true);
    if (!w) return { rows: [], next: null };
    const conds = page.after ? Prisma.sql`${w} AND ${after(page.sort, page.after)}` : w;
    const rows = await this.db.$queryRaw<ItemSqlRow[]>(Prisma.sql`SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE ${conds} ORDER BY ${orderBy(page.sort)} LIMIT ${page.limit + 1}`);
    const items = rows.slice(0, page.limit).map(toItem);
    const last = items[items.length - 1];
    const next = rows.length > page.limit && last ? { sort: page.sort, suspicion: last.suspicion ?? -1, createdAt: last.createdAt.toISOString(), id: last.id } : null;
    return { rows: items, next };
  }

  async countByState(filter: ReviewFilter): Promise<ReviewCounts> {
    const counts = emptyCounts();
    const w = where(filter, false);
    if (!w) return counts;
    const from = filter.q ? Prisma.sql`"QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId"` : Prisma.sql`"QuarantineRecord" r`;
    const rows = await this.db.$queryRaw<Array<{ state: QuarantineState; n: bigint }>>(Prisma.sql`SELECT r."state"::text AS "state", count(*) AS "n" FROM ${from} WHERE ${w} GROUP BY r."state"`);
    for (const r of rows) counts[r.state] = Number(r.n);
    return counts;
  }

  async matchIds(filter: ReviewFilter, cap: number): Promise<{ ids: string[]; capped: boolean }> {
    const w = where(filter, true);
    if (!w) return { ids: [], capped: false };
    const from = filter.q ? Prisma.sql`"QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId"` : Prisma.sql`"QuarantineRecord" r`;
    const rows = await this.db.$queryRaw<Array<{ id: string }>>(Prisma.sql`SELECT r."id" FROM ${from} WHERE ${w} ORDER BY r."createdAt", r."id" LIMIT ${cap + 1}`);
    return { ids: rows.slice(0, cap).map((r) => r.id), capped: rows.length > cap };
  }

  async summaries(ids: readonly string[]): Promise<ReviewItemRow[]> {
    return this.summariesIn(this.db, ids);
  }

  private async summariesIn(db: Tx, ids: readonly string[]): Promise<ReviewItemRow[]> {
    const valid = [...new Set(ids.filter(isUuid))];
    if (!valid.length) return [];
    const rows = await db.$queryRaw<ItemSqlRow[]>(Prisma.sql`SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE r."id" IN (${Prisma.join(valid.map((id) => Prisma.sql`${id}::uuid`))})`);
    return rows.map(toItem);
  }

  async claim(id: string, by: string, ttlMs: number): Promise<ClaimResult> {
    if (!isUuid(id)) return { outcome: 'missing', claim: null };
    const until = Prisma.sql`${NOW} + make_interval(secs => ${ttlMs / 1000}::double precision)`;
    const won = await this.db.$queryRaw<Array<{ claimedBy: string; claimedUntil: Date }>>(Prisma.sql`
      UPDATE "QuarantineRecord" SET "claimedBy" = ${by}, "claimedUntil" = ${until}
      WHERE "id" = ${id}::uuid AND ("claimedBy" IS NULL OR "claimedUntil" IS NULL OR "claimedUntil" <= ${NOW} OR "claimedBy" = ${by})
      RETURNING "claimedBy", "claimedUntil"`);
    if (won.length) return { outcome: 'claimed', claim: { by: won[0].claimedBy, until: won[0].claimedUntil } };
    const [held] = await this.db.$queryRaw<Array<{ claimedBy: string | null; claimedUntil: Date | null }>>(Prisma.sql`SELECT "claimedBy", "claimedUntil" FROM "QuarantineRecord" WHERE "id" = ${id}::uuid`);
    if (!held) return { outcome: 'missing', claim: null };
    return { outcome: 'held-by-other', claim: held.claimedBy && held.claimedUntil ? { by: held.claimedBy, until: held.claimedUntil } : null };
  }

  async releaseClaim(id: string, by: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.$executeRaw(Prisma.sql`UPDATE "QuarantineRecord" SET "claimedBy" = NULL, "claimedUntil" = NULL WHERE "id" = ${id}::uuid AND "claimedBy" = ${by}`);
  }

  async decide(id: string, action: DecisionAction, opts: DecideOptions): Promise<DecideResult> {
    if (!isUuid(id)) return { outcome: 'missing' };
    return this.db.$transaction(async (tx) => {
      // The row lock serialises decisions on one record: of two concurrent ones, the second sees the first's result.
      const [cur] = await tx.$queryRaw<Array<{
        state: QuarantineState; decision: string | null; documentId: string; claimedBy: string | null; claimedUntil: Date | null; claimLive: boolean;
        resolvedBy: string | null; resolvedAt: Date | null; note: string | null; reasons: string[]; servedDuringReview: boolean; documentStatus: string;
        redaction: Prisma.JsonValue;
      }>>(Prisma.sql`
        SELECT r."state"::text AS "state", r."decision", r."documentId", r."claimedBy", r."claimedUntil",
               (r."claimedUntil" IS NOT NULL AND r."claimedUntil" > ${NOW}) AS "claimLive",
               r."resolvedBy", r."resolvedAt", r."note", r."reasons", r."servedDuringReview", d."status"::text AS "documentStatus", r."redaction"
        FROM "QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId" WHERE r."id" = ${id}::uuid FOR UPDATE OF r`);
      if (!cur) return { outcome: 'missing' } as const;
      const row = async () => (await this.summariesIn(tx, [id]))[0];
      if (cur.claimLive && cur.claimedBy && cur.claimedBy !== opts.claimant && !opts.override) {
        return { outcome: 'claimed', row: await row(), claim: { by: cur.claimedBy, until: cur.claimedUntil! } } as const;
      }
      const plan = planDecision(action, cur.state, cur.decision);
      if (plan === 'conflict') return { outcome: 'conflict', row: await row() } as const;
      if (plan === 'unchanged') return { outcome: 'unchanged', row: await row() } as const;
      const { to, storeChanges } = plan;
      await tx.$executeRaw(Prisma.sql`
        UPDATE "QuarantineRecord" SET "state" = CAST(${to} AS "QuarantineState"), "decision" = ${action}, "resolvedBy" = ${opts.actor}, "resolvedAt" = ${NOW},
          "note" = ${opts.note ?? null}, "decisionRequestId" = ${opts.requestId ?? null}, "claimedBy" = NULL, "claimedUntil" = NULL,
          "reasons" = ${[...(opts.reasons ?? [])]}::text[],
          "storeSynced" = CASE WHEN ${storeChanges} THEN false ELSE "storeSynced" END,
          "servedDuringReview" = CASE WHEN ${to} = 'QUARANTINED' THEN false ELSE "servedDuringReview" END
        WHERE "id" = ${id}::uuid`);
      const prev: DecisionPrev = {
        state: cur.state, decision: cur.decision, resolvedBy: cur.resolvedBy, resolvedAt: cur.resolvedAt?.toISOString() ?? null, note: cur.note,
        reasons: cur.reasons ?? [], servedDuringReview: cur.servedDuringReview, documentStatus: cur.documentStatus,
      };
      if (action === 'purge') {
        await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = 'PURGED', "text" = ${PURGED_TEXT_MARKER}, "updatedAt" = ${NOW} WHERE "id" = ${cur.documentId}::uuid`);
        // The judge's replies about this text may quote it: redacted too (label, model and evidence numbers kept).
        // …and taken out of the verdict cache: a redacted reply must never be copied into another
        // event's verdict (the same text in another collection is judged afresh).
        await tx.$executeRaw(Prisma.sql`UPDATE "JudgeVerdict" SET "reply" = ${PURGED_TEXT_MARKER}, "cacheKey" = ${PURGED_CACHE_KEY} WHERE "documentId" = ${cur.documentId}::uuid`);
        await tx.$executeRaw(Prisma.sql`UPDATE "QuarantineRecord" SET "evidence" = jsonb_set("evidence", '{judge,reply}', to_jsonb(${PURGED_TEXT_MARKER}::text))
          WHERE "documentId" = ${cur.documentId}::uuid AND "evidence" ? 'judge'`);
        // Another active record of the same text (possible after a restore and a new report) goes with it.
        await tx.$executeRaw(Prisma.sql`UPDATE "QuarantineRecord" SET "state" = 'PURGED', "storeSynced" = false WHERE "documentId" = ${cur.documentId}::uuid AND "id" <> ${id}::uuid AND "state" IN ('QUARANTINED', 'NEEDS_REVIEW')`);
      } else {
        const status = to === 'RESTORED' ? 'ACTIVE' : 'QUARANTINED';
        await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = CAST(${status} AS "DocumentStatus"), "updatedAt" = ${NOW} WHERE "id" = ${cur.documentId}::uuid`);
      }
      // Any other decision on a redacted item withdraws its redacted version (kept in Postgres, out of serving).
      const redaction = fromJson<RedactionState>(cur.redaction);
      const withdrew = redaction?.active ? redaction.documentId : null;
      if (withdrew) {
        await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = 'QUARANTINED', "updatedAt" = ${NOW} WHERE "id" = ${withdrew}::uuid AND "status" = 'ACTIVE'`);
        await tx.$executeRaw(Prisma.sql`UPDATE "QuarantineRecord" SET "redaction" = jsonb_set("redaction", '{active}', 'false'::jsonb), "storeSynced" = false WHERE "id" = ${id}::uuid`);
      }
      await tx.auditLog.create({
        data: {
          actor: opts.actor, action: AUDIT_ACTION[action], entityType: 'QuarantineRecord', entityId: id,
          details: jsonValue({ documentId: cur.documentId, note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], from: cur.state, to, prev: { ...prev }, ...(opts.requestId ? { requestId: opts.requestId } : {}), ...(withdrew ? { withdrewRedaction: withdrew } : {}), ...(opts.override && cur.claimLive && cur.claimedBy !== opts.claimant ? { overrodeClaimOf: cur.claimedBy } : {}) }),
        },
      });
      if (opts.remember) {
        const m = opts.remember;
        const [rec] = await tx.$queryRaw<Array<{ collection: string }>>(Prisma.sql`SELECT "collection" FROM "QuarantineRecord" WHERE "id" = ${id}::uuid`);
        await tx.reviewMemory.create({
          data: {
            collection: rec.collection, textHash: m.textHash, queryKey: m.queryKey, wrongAnswerKey: m.wrongAnswerKey, query: m.query, wrongAnswer: m.wrongAnswer,
            action, actor: opts.actor, note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], recordId: id,
          },
        });
      }
      return { outcome: 'changed', row: await row() } as const;
    });
  }

  async decideBatch(entries: readonly { id: string; remember: NewRememberedDecision | null }[], action: 'approve' | 'restore', opts: Omit<DecideOptions, 'remember'>): Promise<BatchDecided[]> {
    const byId = new Map(entries.filter((e) => isUuid(e.id)).map((e) => [e.id, e.remember]));
    if (!byId.size) return [];
    const idList = (ids: Iterable<string>) => Prisma.join([...ids].map((id) => Prisma.sql`${id}::uuid`));
    return this.db.$transaction(async (tx) => {
      // Locked in id order (no deadlock with another batch over overlapping ids).
      const rows = await tx.$queryRaw<Array<{ id: string; state: QuarantineState; decision: string | null; documentId: string; collection: string; claimedBy: string | null; claimLive: boolean }>>(Prisma.sql`
        SELECT r."id", r."state"::text AS "state", r."decision", r."documentId", r."collection", r."claimedBy",
               (r."claimedUntil" IS NOT NULL AND r."claimedUntil" > ${NOW}) AS "claimLive"
        FROM "QuarantineRecord" r WHERE r."id" IN (${idList(byId.keys())}) ORDER BY r."id" FOR UPDATE`);
      const changes = rows.flatMap((r) => {
        if (r.claimLive && r.claimedBy && r.claimedBy !== opts.claimant && !opts.override) return [];
        const plan = planDecision(action, r.state, r.decision);
        return typeof plan === 'object' ? [{ r, plan }] : [];
      });
      if (!changes.length) return [];
      const to = action === 'approve' ? 'QUARANTINED' : 'RESTORED';
      const flip = changes.filter((c) => c.plan.storeChanges).map((c) => c.r.id);
      await tx.$executeRaw(Prisma.sql`
        UPDATE "QuarantineRecord" SET "state" = CAST(${to} AS "QuarantineState"), "decision" = ${action}, "resolvedBy" = ${opts.actor}, "resolvedAt" = ${NOW},
          "note" = ${opts.note ?? null}, "decisionRequestId" = ${opts.requestId ?? null}, "claimedBy" = NULL, "claimedUntil" = NULL,
          "reasons" = ${[...(opts.reasons ?? [])]}::text[],
          "storeSynced" = CASE WHEN "id" IN (${flip.length ? idList(flip) : Prisma.sql`NULL`}) THEN false ELSE "storeSynced" END,
          "servedDuringReview" = CASE WHEN ${to} = 'QUARANTINED' THEN false ELSE "servedDuringReview" END
        WHERE "id" IN (${idList(changes.map((c) => c.r.id))})`);
      await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = CAST(${to === 'RESTORED' ? 'ACTIVE' : 'QUARANTINED'} AS "DocumentStatus"), "updatedAt" = ${NOW}
        WHERE "id" IN (${idList(changes.map((c) => c.r.documentId))})`);
      await tx.$executeRaw(Prisma.sql`INSERT INTO "AuditLog" ("actor", "action", "entityType", "entityId", "details") VALUES ${Prisma.join(changes.map((c) => Prisma.sql`(
        ${opts.actor}, ${AUDIT_ACTION[action]}, 'QuarantineRecord', ${c.r.id},
        ${JSON.stringify({ documentId: c.r.documentId, note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], from: c.r.state, to, ...(opts.requestId ? { requestId: opts.requestId } : {}), ...(opts.override && c.r.claimLive && c.r.claimedBy !== opts.claimant ? { overrodeClaimOf: c.r.claimedBy } : {}) })}::jsonb)`))}`);
      const remembered = changes.filter((c) => byId.get(c.r.id));
      if (remembered.length) {
        await tx.$executeRaw(Prisma.sql`INSERT INTO "ReviewMemory" ("id", "collection", "textHash", "queryKey", "wrongAnswerKey", "query", "wrongAnswer", "action", "actor", "note", "recordId")
          VALUES ${Prisma.join(remembered.map((c) => {
            const m = byId.get(c.r.id)!;
            return Prisma.sql`(gen_random_uuid(), ${c.r.collection}, ${m.textHash}, ${m.queryKey}, ${m.wrongAnswerKey}, ${m.query}, ${m.wrongAnswer}, ${action}, ${opts.actor}, ${opts.note ?? null}, ${c.r.id}::uuid)`;
          }))}`);
      }
      const done = await tx.$queryRaw<Array<{ id: string; documentId: string; collection: string; feedbackId: string | null; state: QuarantineState; storeSynced: boolean }>>(Prisma.sql`
        SELECT "id", "documentId", "collection", "feedbackId", "state"::text AS "state", "storeSynced" FROM "QuarantineRecord" WHERE "id" IN (${idList(changes.map((c) => c.r.id))})`);
      return done;
    });
  }

  async undoLast(principal: string, actor: string, opts: { id?: string } = {}): Promise<UndoResult> {
    if (opts.id !== undefined && !isUuid(opts.id)) return { outcome: 'nothing' };
    return this.db.$transaction(async (tx) => {
      // The principal's newest single approve / restore / redaction (bulk and purge are not undone) that no undo entry names.
      const [last] = await tx.$queryRaw<Array<{ id: bigint; at: Date; action: string; entityId: string; details: Prisma.JsonValue }>>(Prisma.sql`
        SELECT a."id", a."at", a."action", a."entityId", a."details" FROM "AuditLog" a
        WHERE a."entityType" = 'QuarantineRecord' AND a."action" IN (${AUDIT_ACTION.approve}, ${AUDIT_ACTION.restore}, ${REDACT_AUDIT_ACTION}) AND ${byPrincipal(principal)}
          AND a."details" ? 'prev' AND NOT (a."details" ? 'requestId') AND NOT (a."details" ? 'withdrewRedaction') ${opts.id !== undefined ? Prisma.sql`AND a."entityId" = ${opts.id}` : Prisma.empty}
          AND NOT EXISTS (SELECT 1 FROM "AuditLog" u WHERE u."entityType" = 'QuarantineRecord' AND u."entityId" = a."entityId" AND u."action" = ${UNDO_AUDIT_ACTION}
                          AND u."details"->>'undoes' = a."id"::text)
        ORDER BY a."id" DESC LIMIT 1`);
      if (!last || !isUuid(last.entityId)) return { outcome: 'nothing' } as const;
      const id = last.entityId;
      const [cur] = await tx.$queryRaw<Array<{ state: QuarantineState; documentId: string }>>(Prisma.sql`
        SELECT r."state"::text AS "state", r."documentId" FROM "QuarantineRecord" r WHERE r."id" = ${id}::uuid FOR UPDATE`);
      if (!cur) return { outcome: 'nothing' } as const;
      // Read after the row lock: a decision committed meanwhile is seen.
      const [since] = await tx.$queryRaw<Array<{ actor: string; action: string }>>(Prisma.sql`
        SELECT a."actor", a."action" FROM "AuditLog" a WHERE a."entityType" = 'QuarantineRecord' AND a."entityId" = ${id} AND a."id" > ${last.id}
          AND a."action" IN (${AUDIT_ACTION.approve}, ${AUDIT_ACTION.restore}, ${AUDIT_ACTION.purge}, ${UNDO_AUDIT_ACTION}, ${REDACT_AUDIT_ACTION})
        ORDER BY a."id" DESC LIMIT 1`);
      const d = fromJson<{ to: QuarantineState; prev: DecisionPrev; documentId: string }>(last.details)!;
      if (since || cur.state !== d.to) {
        return { outcome: 'decided-since', row: (await this.summariesIn(tx, [id]))[0], by: since?.actor ?? 'another process', action: since?.action ?? `state ${cur.state}` } as const;
      }
      const p = d.prev;
      await tx.$executeRaw(Prisma.sql`
        UPDATE "QuarantineRecord" SET "state" = CAST(${p.state} AS "QuarantineState"), "decision" = ${p.decision}, "resolvedBy" = ${p.resolvedBy},
          "resolvedAt" = ${p.resolvedAt}::timestamp, "note" = ${p.note}, "reasons" = ${p.reasons}::text[], "decisionRequestId" = NULL,
          "servedDuringReview" = ${p.servedDuringReview}, "storeSynced" = false
        WHERE "id" = ${id}::uuid`);
      await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = CAST(${p.documentStatus} AS "DocumentStatus"), "updatedAt" = ${NOW} WHERE "id" = ${cur.documentId}::uuid`);
      if (last.action === REDACT_AUDIT_ACTION) {
        // Undoing a redaction withdraws its version (kept in Postgres, out of serving), like a later decision would.
        const version = fromJson<{ redactedDocumentId?: string }>(last.details)?.redactedDocumentId;
        if (version && isUuid(version)) await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = 'QUARANTINED', "updatedAt" = ${NOW} WHERE "id" = ${version}::uuid AND "status" = 'ACTIVE'`);
        await tx.$executeRaw(Prisma.sql`UPDATE "QuarantineRecord" SET "redaction" = jsonb_set("redaction", '{active}', 'false'::jsonb) WHERE "id" = ${id}::uuid AND "redaction" IS NOT NULL`);
      } else {
        // The decision is no longer remembered for the text (re-ingesting it is judged afresh).
        const undone = last.action === AUDIT_ACTION.approve ? 'approve' : 'restore';
        await tx.$executeRaw(Prisma.sql`DELETE FROM "ReviewMemory" WHERE "id" IN (
          SELECT "id" FROM "ReviewMemory" WHERE "recordId" = ${id}::uuid AND "action" = ${undone} ORDER BY "at" DESC LIMIT 1)`);
      }
      await tx.auditLog.create({
        data: {
          actor, action: UNDO_AUDIT_ACTION, entityType: 'QuarantineRecord', entityId: id,
          details: jsonValue({ documentId: cur.documentId, undoes: String(last.id), undoneAction: last.action, from: cur.state, to: p.state }),
        },
      });
      return { outcome: 'undone', row: (await this.summariesIn(tx, [id]))[0], undid: { auditId: String(last.id), action: last.action, at: last.at } } as const;
    });
  }

  async redact(id: string, opts: RedactOptions): Promise<RedactResult> {
    if (!isUuid(id)) return { outcome: 'missing' };
    return this.db.$transaction(async (tx) => {
      const [cur] = await tx.$queryRaw<Array<{
        state: QuarantineState; decision: string | null; documentId: string; collection: string; claimedBy: string | null; claimedUntil: Date | null; claimLive: boolean;
        resolvedBy: string | null; resolvedAt: Date | null; note: string | null; reasons: string[]; servedDuringReview: boolean; documentStatus: string;
        externalId: string | null; redaction: Prisma.JsonValue;
      }>>(Prisma.sql`
        SELECT r."state"::text AS "state", r."decision", r."documentId", r."collection", r."claimedBy", r."claimedUntil",
               (r."claimedUntil" IS NOT NULL AND r."claimedUntil" > ${NOW}) AS "claimLive",
               r."resolvedBy", r."resolvedAt", r."note", r."reasons", r."servedDuringReview", d."status"::text AS "documentStatus", d."externalId", r."redaction"
        FROM "QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId" WHERE r."id" = ${id}::uuid FOR UPDATE OF r`);
      if (!cur) return { outcome: 'missing' } as const;
      const row = async () => (await this.summariesIn(tx, [id]))[0];
      if (cur.claimLive && cur.claimedBy && cur.claimedBy !== opts.claimant && !opts.override) {
        return { outcome: 'claimed', row: await row(), claim: { by: cur.claimedBy, until: cur.claimedUntil! } } as const;
      }
      const existing = fromJson<RedactionState>(cur.redaction);
      if (cur.decision === 'redact' && existing?.active) return { outcome: 'unchanged', row: await row(), redaction: existing } as const;
      if (cur.state === 'PURGED') return { outcome: 'conflict', row: await row(), reason: `quarantine record ${id} is PURGED: the text is gone` } as const;
      const [dup] = await tx.$queryRaw<Array<{ id: string }>>(Prisma.sql`
        SELECT "id" FROM "Document" WHERE "collection" = ${cur.collection} AND "textHash" = ${opts.version.textHash} LIMIT 1`);
      // The same redaction again after an undo or a restore: this record's own withdrawn version is served again.
      const reuse = dup !== undefined && existing?.active === false && existing.documentId === dup.id;
      if (dup && !reuse) return { outcome: 'conflict', row: await row(), reason: `the redacted text is already document ${dup.id} of the collection` } as const;
      const versionId = reuse ? dup.id : opts.version.id;
      if (reuse) await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = 'ACTIVE', "updatedAt" = ${NOW} WHERE "id" = ${versionId}::uuid`);
      else {
        await tx.document.create({
          data: {
            id: opts.version.id, collection: cur.collection, externalId: cur.externalId, textHash: opts.version.textHash, text: opts.version.text,
            metadata: opts.version.metadata === null ? Prisma.DbNull : jsonValue(opts.version.metadata), status: 'ACTIVE',
          },
        });
      }
      const redaction: RedactionState = { ...opts.redaction, documentId: versionId, active: true };
      await tx.$executeRaw(Prisma.sql`
        UPDATE "QuarantineRecord" SET "state" = 'QUARANTINED', "decision" = 'redact', "resolvedBy" = ${opts.actor}, "resolvedAt" = ${NOW},
          "note" = ${opts.note ?? null}, "decisionRequestId" = NULL, "claimedBy" = NULL, "claimedUntil" = NULL,
          "reasons" = ${[...(opts.reasons ?? [])]}::text[], "storeSynced" = false, "servedDuringReview" = false,
          "redaction" = ${JSON.stringify(redaction)}::jsonb
        WHERE "id" = ${id}::uuid`);
      await tx.$executeRaw(Prisma.sql`UPDATE "Document" SET "status" = 'QUARANTINED', "updatedAt" = ${NOW} WHERE "id" = ${cur.documentId}::uuid`);
      const prev: DecisionPrev = {
        state: cur.state, decision: cur.decision, resolvedBy: cur.resolvedBy, resolvedAt: cur.resolvedAt?.toISOString() ?? null, note: cur.note,
        reasons: cur.reasons ?? [], servedDuringReview: cur.servedDuringReview, documentStatus: cur.documentStatus,
      };
      await tx.auditLog.create({
        data: {
          actor: opts.actor, action: REDACT_AUDIT_ACTION, entityType: 'QuarantineRecord', entityId: id,
          details: jsonValue({
            documentId: cur.documentId, redactedDocumentId: versionId, spans: redaction.spans, removedChars: redaction.removedChars, marker: redaction.marker,
            note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], from: cur.state, to: 'QUARANTINED', prev: { ...prev },
            ...(opts.override && cur.claimLive && cur.claimedBy !== opts.claimant ? { overrodeClaimOf: cur.claimedBy } : {}),
          }),
        },
      });
      return { outcome: 'changed', row: await row() } as const;
    });
  }

  async progress(principal: string, since: Date): Promise<ReviewProgressCounts> {
    // Decisions minus undos since `since` (the ("action", "at") index), for the principal and everyone.
    const [r] = await this.db.$queryRaw<Array<{ mine: bigint; team: bigint; reviewers: bigint }>>(Prisma.sql`
      SELECT COALESCE(sum(CASE WHEN a."action" = ${UNDO_AUDIT_ACTION} THEN -1 ELSE 1 END) FILTER (WHERE ${byPrincipal(principal)}), 0)::bigint AS "mine",
             COALESCE(sum(CASE WHEN a."action" = ${UNDO_AUDIT_ACTION} THEN -1 ELSE 1 END), 0)::bigint AS "team",
             count(DISTINCT split_part(a."actor", ' key:', 1)) FILTER (WHERE a."action" <> ${UNDO_AUDIT_ACTION})::bigint AS "reviewers"
      FROM "AuditLog" a
      WHERE a."action" IN (${AUDIT_ACTION.approve}, ${AUDIT_ACTION.restore}, ${AUDIT_ACTION.purge}, ${UNDO_AUDIT_ACTION}, ${REDACT_AUDIT_ACTION})
        AND a."at" >= ${since.toISOString()}::timestamp AND a."entityType" = 'QuarantineRecord'`);
    return { mine: Math.max(0, Number(r?.mine ?? 0)), team: Math.max(0, Number(r?.team ?? 0)), reviewers: Number(r?.reviewers ?? 0) };
  }

  async remembered(collection: string, textHash: string): Promise<RememberedDecision[]> {
    const rows = await this.db.reviewMemory.findMany({ where: { collection, textHash }, orderBy: [{ at: 'desc' }, { id: 'desc' }] });
    return rows.map((r) => ({ ...r, action: r.action as DecisionAction }));
  }

  async beginBulk(b: Omit<BulkRequestRow, 'result' | 'createdAt' | 'finishedAt'>): Promise<{ row: BulkRequestRow; created: boolean }> {
    const inserted = await this.db.reviewBulkRequest.createMany({ data: [{ requestId: b.requestId, action: b.action, actor: b.actor, ids: b.ids }], skipDuplicates: true });
    const r = (await this.db.reviewBulkRequest.findUnique({ where: { requestId: b.requestId } }))!;
    return {
      created: inserted.count === 1,
      row: { requestId: r.requestId, action: r.action as BulkRequestRow['action'], actor: r.actor, ids: r.ids, result: fromJson<BulkRequestRow['result']>(r.result), createdAt: r.createdAt, finishedAt: r.finishedAt },
    };
  }

  async finishBulk(requestId: string, result: NonNullable<BulkRequestRow['result']>): Promise<void> {
    await this.db.reviewBulkRequest.updateMany({ where: { requestId, finishedAt: null }, data: { result: jsonValue(result), finishedAt: new Date() } });
  }

  async countDecidedBy(requestId: string): Promise<number> {
    return this.db.quarantineRecord.count({ where: { decisionRequestId: requestId } });
  }

  async listEvents(filter: ReviewEventFilter): Promise<ReviewEventRow[]> {
    const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
    if (filter.status) parts.push(Prisma.sql`f."status"::text = ${filter.status}`);
    if (filter.collection) parts.push(Prisma.sql`f."collection" = ${filter.collection}`);
    if (filter.after) parts.push(Prisma.sql`(f."createdAt", f."id") < (${filter.after.createdAt}::timestamp, ${filter.after.id}::uuid)`);
    return this.events(Prisma.join(parts, ' AND '), filter.limit);
  }

  async getEvent(id: string): Promise<ReviewEventRow | null> {
    if (!isUuid(id)) return null;
    const [e] = await this.events(Prisma.sql`f."id" = ${id}::uuid`, 1);
    return e ?? null;
  }

  private async events(cond: Prisma.Sql, limit: number): Promise<ReviewEventRow[]> {
    const rows = await this.db.$queryRaw<Array<{
      id: string; collection: string; query: string; wrongAnswer: string; correctAnswer: string | null; reporter: string | null; trust: string; reporterSource: string | null; status: string; step: string | null;
      verification: string | null; createdAt: Date; yes: bigint; no: bigint; und: bigint; nr: bigint; qu: bigint; re: bigint; pu: bigint; enh: bigint;
    }>>(Prisma.sql`
      SELECT f."id", f."collection", f."query", f."wrongAnswer", f."correctAnswer", f."reporter", f."trust", f."reporterSource", f."status"::text AS "status", f."step"::text AS "step",
             f."verification"::text AS "verification", f."createdAt", v."yes", v."no", v."und", q."nr", q."qu", q."re", q."pu", e."enh"
      FROM "FeedbackEvent" f
      CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE "label" = 'YES') AS "yes", count(*) FILTER (WHERE "label" = 'NO') AS "no",
                                 count(*) FILTER (WHERE "label" = 'UNDETERMINED') AS "und" FROM "JudgeVerdict" WHERE "feedbackId" = f."id") v
      CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE "state" = 'NEEDS_REVIEW') AS "nr", count(*) FILTER (WHERE "state" = 'QUARANTINED') AS "qu",
                                 count(*) FILTER (WHERE "state" = 'RESTORED') AS "re", count(*) FILTER (WHERE "state" = 'PURGED') AS "pu"
                          FROM "QuarantineRecord" WHERE "feedbackId" = f."id") q
      CROSS JOIN LATERAL (SELECT count(*) AS "enh" FROM "Enhancement" WHERE "feedbackId" = f."id") e
      WHERE ${cond}
      ORDER BY f."createdAt" DESC, f."id" DESC LIMIT ${limit}`);
    return rows.map((r) => ({
      id: r.id, collection: r.collection, query: r.query, wrongAnswer: r.wrongAnswer, correctAnswer: r.correctAnswer, reporter: r.reporter, reporterKind: reporterKindOf(r),
      status: r.status as ReviewEventRow['status'], step: r.step, verification: r.verification as ReviewEventRow['verification'], createdAt: r.createdAt,
      verdicts: { YES: Number(r.yes), NO: Number(r.no), UNDETERMINED: Number(r.und) },
      items: { NEEDS_REVIEW: Number(r.nr), QUARANTINED: Number(r.qu), RESTORED: Number(r.re), PURGED: Number(r.pu) },
      enhancements: Number(r.enh),
    }));
  }

  async listAudit(query: AuditQuery): Promise<AuditRow[]> {
    const parts: Prisma.Sql[] = [Prisma.sql`TRUE`];
    if (query.actor) parts.push(Prisma.sql`a."actor" = ${query.actor}`);
    if (query.action) parts.push(Prisma.sql`a."action" = ${query.action}`);
    if (query.entityId) parts.push(Prisma.sql`a."entityId" = ${query.entityId}`);
    if (query.reason) parts.push(Prisma.sql`a."details"->'reasons' ? ${query.reason}`);
    if (query.from) parts.push(Prisma.sql`a."at" >= ${query.from.toISOString()}::timestamp`);
    if (query.to) parts.push(Prisma.sql`a."at" < ${query.to.toISOString()}::timestamp`);
    if (query.q) {
      const p = `%${likeLiteral(query.q)}%`;
      parts.push(Prisma.sql`(a."entityId" ILIKE ${p} OR a."actor" ILIKE ${p} OR a."action" ILIKE ${p} OR a."details"::text ILIKE ${p})`);
    }
    if (query.beforeId !== undefined) {
      if (!/^\d{1,19}$/.test(query.beforeId)) return [];
      parts.push(Prisma.sql`a."id" < ${BigInt(query.beforeId)}`);
    }
    const rows = await this.db.$queryRaw<Array<{ id: bigint; at: Date; actor: string; action: string; entityType: string; entityId: string; details: Prisma.JsonValue | null }>>(
      Prisma.sql`SELECT a."id", a."at", a."actor", a."action", a."entityType", a."entityId", a."details" FROM "AuditLog" a WHERE ${Prisma.join(parts, ' AND ')} ORDER BY a."id" DESC LIMIT ${query.limit}`,
    );
    return rows.map((r) => ({ id: String(r.id), at: r.at, actor: r.actor, action: r.action, entityType: r.entityType, entityId: r.entityId, details: fromJson<JsonObject>(r.details) }));
  }

  async auditFor(entityIds: readonly string[]): Promise<AuditRow[]> {
    if (!entityIds.length) return [];
    const rows = await this.db.auditLog.findMany({ where: { entityId: { in: [...entityIds] } }, orderBy: { id: 'asc' } });
    return rows.map((r) => ({ id: String(r.id), at: r.at, actor: r.actor, action: r.action, entityType: r.entityType, entityId: r.entityId, details: fromJson<JsonObject>(r.details) }));
  }
}
