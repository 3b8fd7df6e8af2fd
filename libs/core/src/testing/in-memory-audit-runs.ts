import { randomUUID } from 'node:crypto';
import { ScanGraph } from '../domain/scan-graph';
import type { AuditFindingRow, AuditRunFilter, AuditRunRepository, AuditRunRow, NewAuditFinding } from '../ports/audits.port';

/** In-memory AuditRunRepository with the Prisma repository's semantics (test/repositories.contract.test.ts runs both). */
export class InMemoryAuditRunRepository implements AuditRunRepository {
  private readonly runs = new Map<string, AuditRunRow>();
  private readonly findings = new Map<string, AuditFindingRow[]>();
  private seq = 0;
  private readonly graphs = new Map<string, ScanGraph>();

  async loadScanGraph(collection: string): Promise<ScanGraph> {
    const g = this.graphs.get(collection);
    return g ? copyGraph(g) : ScanGraph.empty();
  }

  async replaceScanGraph(collection: string, graph: ScanGraph): Promise<void> {
    this.graphs.set(collection, copyGraph(graph));
  }

  async create(input: Parameters<AuditRunRepository['create']>[0]): Promise<AuditRunRow> {
    // createdAt strictly increasing so "newest first" is total even within one millisecond.
    const createdAt = new Date(Math.max(Date.now(), this.seq + 1));
    this.seq = createdAt.getTime();
    const row: AuditRunRow = {
      id: randomUUID(), kind: input.kind, collection: input.collection, params: { ...input.params }, status: 'QUEUED', trigger: input.trigger,
      startedBy: input.startedBy, progress: { done: 0, total: null }, cursor: null, counts: {}, findingsCount: 0, error: null, cancelRequested: false,
      createdAt, startedAt: null, finishedAt: null,
    };
    this.runs.set(row.id, row);
    return clone(row);
  }

  async get(id: string): Promise<AuditRunRow | null> {
    const r = this.runs.get(id);
    return r ? clone(r) : null;
  }

  async list(filter: AuditRunFilter): Promise<AuditRunRow[]> {
    const before = filter.before ? this.runs.get(filter.before) : undefined;
    return [...this.runs.values()]
      .filter((r) => (!filter.kind || r.kind === filter.kind) && (!filter.collection || r.collection === filter.collection) && (!filter.status || r.status === filter.status))
      .sort(newestFirst)
      .filter((r) => !before || newestFirst(before, r) < 0)
      .slice(0, filter.limit ?? 50)
      .map(clone);
  }

  async markRunning(id: string): Promise<AuditRunRow | null> {
    const r = this.runs.get(id);
    if (!r || (r.status !== 'QUEUED' && r.status !== 'RUNNING')) return null;
    r.status = 'RUNNING';
    r.startedAt ??= new Date();
    return clone(r);
  }

  async checkpoint(id: string, update: Parameters<AuditRunRepository['checkpoint']>[1]): Promise<AuditRunRow> {
    const r = this.mustGet(id);
    if (update.cursor !== undefined) r.cursor = update.cursor === null ? null : json(update.cursor);
    if (update.progress) r.progress = { ...update.progress };
    if (update.counts) r.counts = { ...r.counts, ...update.counts };
    return clone(r);
  }

  async finish(id: string, status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED', error: string | null = null): Promise<AuditRunRow> {
    const r = this.mustGet(id);
    r.status = status;
    r.error = error;
    r.finishedAt = new Date();
    return clone(r);
  }

  async cancel(id: string): Promise<AuditRunRow | null> {
    const r = this.runs.get(id);
    if (!r) return null;
    if (r.status === 'QUEUED') { r.status = 'CANCELLED'; r.finishedAt = new Date(); } else if (r.status === 'RUNNING') r.cancelRequested = true;
    return clone(r);
  }

  async listUnfinished(limit: number): Promise<AuditRunRow[]> {
    return [...this.runs.values()].filter((r) => r.status === 'QUEUED' || r.status === 'RUNNING').sort((a, b) => -newestFirst(a, b)).slice(0, limit).map(clone);
  }

  async addFinding(runId: string, f: NewAuditFinding): Promise<AuditFindingRow> {
    const r = this.mustGet(runId);
    const row: AuditFindingRow = {
      type: f.type, action: f.action, documentIds: [...f.documentIds], detail: json(f.detail), id: randomUUID(), runId, quarantineIds: [...(f.quarantineIds ?? [])], score: f.score ?? null, createdAt: new Date(),
    };
    const list = this.findings.get(runId) ?? [];
    list.push(row);
    this.findings.set(runId, list);
    r.findingsCount += 1;
    return cloneFinding(row);
  }

  async listFindings(runId: string, opts: { limit: number; after?: string }): Promise<AuditFindingRow[]> {
    const list = this.findings.get(runId) ?? [];
    const start = opts.after ? list.findIndex((f) => f.id === opts.after) + 1 : 0;
    return list.slice(start, start + opts.limit).map(cloneFinding);
  }

  private mustGet(id: string): AuditRunRow {
    const r = this.runs.get(id);
    if (!r) throw new Error(`audit run ${id} not found`);
    return r;
  }
}

function newestFirst(a: AuditRunRow, b: AuditRunRow): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Deep copy (JSON fields) with Dates rebuilt here (structuredClone's Dates come from another realm under jest). */
function clone(r: AuditRunRow): AuditRunRow {
  const d = (x: Date | null) => (x ? new Date(x.getTime()) : null);
  return {
    ...r, params: json(r.params), progress: { ...r.progress }, cursor: r.cursor === null || r.cursor === undefined ? null : json(r.cursor), counts: { ...r.counts },
    createdAt: new Date(r.createdAt.getTime()), startedAt: d(r.startedAt), finishedAt: d(r.finishedAt),
  };
}

function json<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function cloneFinding(f: AuditFindingRow): AuditFindingRow {
  return { ...f, documentIds: [...f.documentIds], quarantineIds: [...f.quarantineIds], detail: json(f.detail), createdAt: new Date(f.createdAt.getTime()) };
}

/** A stored graph shares no array with its writer or reader (as a database round trip). */
function copyGraph(g: ScanGraph): ScanGraph {
  return new ScanGraph([...g.ids], g.size, g.offsets.slice(), g.neighbours.slice(), g.scores.slice(), g.lshTables, g.lsh.slice());
}
