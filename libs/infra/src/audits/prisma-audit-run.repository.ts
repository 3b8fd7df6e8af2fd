import type { AuditFindingRow, AuditKind, AuditProgress, AuditRunFilter, AuditRunRepository, AuditRunRow, AuditStatus, AuditTrigger, NewAuditFinding } from '@forensics/core';
import { ScanGraph } from '@forensics/core';
import type { AuditFinding, AuditRun, Prisma, PrismaClient } from '../prisma/generated/client';
import { fromJson, isUuid, jsonValue, toJson } from '../prisma/repositories/prisma-json';
import { decodeScanGraph, encodeScanGraph } from './scan-graph-codec';

/** Rows of at most this many bytes hold one collection's scan graph. */
const SCAN_GRAPH_PART_BYTES = 32 * 1024 * 1024;

/** Audit runs and their findings (issue 12) in Postgres. One runner writes a run at a time (its BullMQ job). */
export class PrismaAuditRunRepository implements AuditRunRepository {
  constructor(private readonly db: PrismaClient) {}

  async loadScanGraph(collection: string): Promise<ScanGraph> {
    const parts = await this.db.scanGraphPart.findMany({ where: { collection }, orderBy: { part: 'asc' }, select: { data: true } });
    if (parts.length === 0) return ScanGraph.empty();
    return decodeScanGraph(Buffer.concat(parts.map((p) => Buffer.from(p.data))));
  }

  /** The whole graph in parts of at most SCAN_GRAPH_PART_BYTES, in one transaction under a lock per collection (two scans of one collection write one after the other). */
  async replaceScanGraph(collection: string, graph: ScanGraph): Promise<void> {
    const data = encodeScanGraph(graph);
    await this.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`scan-graph:${collection}`}))`;
      await tx.scanGraphPart.deleteMany({ where: { collection } });
      for (let off = 0, part = 0; off < data.length; off += SCAN_GRAPH_PART_BYTES, part++) {
        // SQL with the bytes as a bound parameter: the model API's create took 1.0–1.5 s for a 23 MB part, this 0.35 s.
        await tx.$executeRawUnsafe('INSERT INTO "ScanGraphPart" ("collection", "part", "data") VALUES ($1, $2, $3)', collection, part, data.subarray(off, off + SCAN_GRAPH_PART_BYTES));
      }
    }, { timeout: 300_000 });
  }

  async create(input: Parameters<AuditRunRepository['create']>[0]): Promise<AuditRunRow> {
    return toRow(await this.db.auditRun.create({
      data: {
        kind: input.kind, collection: input.collection, params: jsonValue(input.params), trigger: input.trigger, startedBy: input.startedBy,
        progress: jsonValue({ done: 0, total: null }), counts: jsonValue({}),
      },
    }));
  }

  async get(id: string): Promise<AuditRunRow | null> {
    if (!isUuid(id)) return null;
    const r = await this.db.auditRun.findUnique({ where: { id } });
    return r ? toRow(r) : null;
  }

  async list(filter: AuditRunFilter): Promise<AuditRunRow[]> {
    const where: Prisma.AuditRunWhereInput = {
      ...(filter.kind ? { kind: filter.kind } : {}), ...(filter.collection ? { collection: filter.collection } : {}), ...(filter.status ? { status: filter.status } : {}),
    };
    if (filter.before) {
      const b = isUuid(filter.before) ? await this.db.auditRun.findUnique({ where: { id: filter.before }, select: { createdAt: true, id: true } }) : null;
      if (!b) return [];
      where.OR = [{ createdAt: { lt: b.createdAt } }, { createdAt: b.createdAt, id: { lt: b.id } }];
    }
    const rows = await this.db.auditRun.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: filter.limit ?? 50 });
    return rows.map(toRow);
  }

  async markRunning(id: string): Promise<AuditRunRow | null> {
    const res = await this.db.auditRun.updateMany({ where: { id, status: { in: ['QUEUED', 'RUNNING'] } }, data: { status: 'RUNNING' } });
    if (res.count === 0) return null;
    await this.db.auditRun.updateMany({ where: { id, startedAt: null }, data: { startedAt: new Date() } });
    return this.get(id);
  }

  async checkpoint(id: string, update: { cursor?: unknown; progress?: AuditProgress; counts?: Record<string, number> }): Promise<AuditRunRow> {
    return this.db.$transaction(async (tx) => {
      const cur = await tx.auditRun.findUniqueOrThrow({ where: { id }, select: { counts: true } });
      return toRow(await tx.auditRun.update({
        where: { id },
        data: {
          ...(update.cursor !== undefined ? { cursor: toJson(update.cursor as object | null) } : {}),
          ...(update.progress ? { progress: jsonValue(update.progress) } : {}),
          ...(update.counts ? { counts: jsonValue({ ...(fromJson<Record<string, number>>(cur.counts) ?? {}), ...update.counts }) } : {}),
        },
      }));
    });
  }

  async finish(id: string, status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED', error: string | null = null): Promise<AuditRunRow> {
    return toRow(await this.db.auditRun.update({ where: { id }, data: { status, error, finishedAt: new Date() } }));
  }

  async cancel(id: string): Promise<AuditRunRow | null> {
    if (!isUuid(id)) return null;
    await this.db.auditRun.updateMany({ where: { id, status: 'QUEUED' }, data: { status: 'CANCELLED', finishedAt: new Date() } });
    await this.db.auditRun.updateMany({ where: { id, status: 'RUNNING' }, data: { cancelRequested: true } });
    return this.get(id);
  }

  async listUnfinished(limit: number): Promise<AuditRunRow[]> {
    const rows = await this.db.auditRun.findMany({ where: { status: { in: ['QUEUED', 'RUNNING'] } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit });
    return rows.map(toRow);
  }

  async addFinding(runId: string, f: NewAuditFinding): Promise<AuditFindingRow> {
    const [row] = await this.db.$transaction([
      this.db.auditFinding.create({
        data: {
          runId, type: f.type, action: f.action, documentIds: f.documentIds, quarantineIds: f.quarantineIds ?? [], score: f.score ?? null, detail: jsonValue(f.detail),
        },
      }),
      this.db.auditRun.update({ where: { id: runId }, data: { findingsCount: { increment: 1 } } }),
    ]);
    return toFinding(row);
  }

  async listFindings(runId: string, opts: { limit: number; after?: string }): Promise<AuditFindingRow[]> {
    if (!isUuid(runId)) return [];
    let where: Prisma.AuditFindingWhereInput = { runId };
    if (opts.after) {
      const a = isUuid(opts.after) ? await this.db.auditFinding.findUnique({ where: { id: opts.after }, select: { createdAt: true, id: true } }) : null;
      if (!a) return [];
      where = { runId, OR: [{ createdAt: { gt: a.createdAt } }, { createdAt: a.createdAt, id: { gt: a.id } }] };
    }
    const rows = await this.db.auditFinding.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: opts.limit });
    return rows.map(toFinding);
  }
}

function toRow(r: AuditRun): AuditRunRow {
  return {
    id: r.id, kind: r.kind as AuditKind, collection: r.collection, params: fromJson<Record<string, unknown>>(r.params) ?? {}, status: r.status as AuditStatus,
    trigger: r.trigger as AuditTrigger, startedBy: r.startedBy, progress: fromJson<AuditProgress>(r.progress) ?? { done: 0, total: null },
    cursor: fromJson<unknown>(r.cursor), counts: fromJson<Record<string, number>>(r.counts) ?? {}, findingsCount: r.findingsCount, error: r.error,
    cancelRequested: r.cancelRequested, createdAt: r.createdAt, startedAt: r.startedAt, finishedAt: r.finishedAt,
  };
}

function toFinding(f: AuditFinding): AuditFindingRow {
  return {
    id: f.id, runId: f.runId, type: f.type, action: f.action as AuditFindingRow['action'], documentIds: f.documentIds, quarantineIds: f.quarantineIds,
    score: f.score, detail: fromJson<Record<string, unknown>>(f.detail) ?? {}, createdAt: f.createdAt,
  };
}
