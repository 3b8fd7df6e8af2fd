/**
 * Tables of the embedded LanceDB vector store: the connection, the per-collection state, the
 * snapshot kept fresh, the delta and quarantine side tables, and the writes every path shares
 * (merge-insert, flag update, delete). The index upkeep (lancedb-index-upkeep.ts) and the port
 * (lancedb-vector-store.adapter.ts) build on it. Split out of the adapter (issue 34) unchanged.
 */
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Schema, Table as ArrowTable, Utf8, vectorFromArray } from 'apache-arrow';
import type { PointPage, StoredRecord } from '@forensics/core';
import {
  COLUMNS, COMPACT_SMALL_FRAGMENTS, DELTA_TABLE_SUFFIX, ID_CHUNK, INDEX_CHECK_INTERVAL_MS, INDEX_MERGE_ROWS, MAX_INDEX_DELTAS,
  QUARANTINE_TABLE_SUFFIX, UPSERT_CHUNK, type LanceDbVectorStoreOptions,
} from './lancedb.params';
import {
  applyDelete, applyUpsert, chunks, type CollectionState, flagGuard, flatVectors, idList, load, patch, type Snapshot, sqlString, tableSchema, toArrow,
} from './lancedb-snapshot';
import {
  ANN_INDEX_KINDS, type AnnIndexKind, CollectionNotFoundError, DEFAULT_ANN_INDEX, KeyedSerializer, parsePayload, VectorStoreError, type VectorRecordInput,
} from './vector-store.common';

export abstract class LanceDbTables {
  protected readonly dir: string;
  protected readonly optimizeEvery: number;
  protected readonly indexMinRows: number;
  protected readonly autoIndex: boolean;
  protected readonly nprobes: number;
  protected readonly indexMergeRows: number;
  protected readonly indexCheckIntervalMs: number;
  protected readonly compactFragments: number;
  protected readonly deltaMoveRowsOption: number | undefined;
  protected readonly maxIndexDeltas: number;
  protected readonly annIndex: AnnIndexKind;
  protected readonly ef: number;
  protected readonly refineOption: number | undefined;
  protected connection: Promise<lancedb.Connection> | null = null;
  protected readonly states = new Map<string, Promise<CollectionState | null>>();
  protected readonly writes = new KeyedSerializer();
  protected closed = false;

  constructor(options: LanceDbVectorStoreOptions) {
    if (!options || typeof options.dir !== 'string' || options.dir.length === 0) {
      throw new VectorStoreError('LanceDbVectorStore: `dir` is required');
    }
    this.dir = options.dir;
    this.optimizeEvery = options.optimizeEvery ?? 200;
    this.indexMergeRows = Math.max(1, Math.floor(options.indexMergeRows ?? INDEX_MERGE_ROWS));
    this.indexCheckIntervalMs = Math.max(0, options.indexCheckIntervalMs ?? INDEX_CHECK_INTERVAL_MS);
    this.compactFragments = Math.max(2, Math.floor(options.compactFragments ?? COMPACT_SMALL_FRAGMENTS));
    this.deltaMoveRowsOption = options.deltaMoveRows === undefined ? undefined : Math.max(1, Math.floor(options.deltaMoveRows));
    if (options.annIndex !== undefined && !ANN_INDEX_KINDS.includes(options.annIndex)) throw new VectorStoreError(`LanceDbVectorStore: annIndex must be one of ${ANN_INDEX_KINDS.join(', ')}, got '${String(options.annIndex)}'`);
    this.annIndex = options.annIndex ?? DEFAULT_ANN_INDEX;
    this.ef = Math.max(1, Math.floor(options.ef ?? 100));
    this.maxIndexDeltas = Math.max(1, Math.floor(options.maxIndexDeltas ?? MAX_INDEX_DELTAS));
    this.indexMinRows = Math.max(0, Math.floor(options.indexMinRows ?? 50_000));
    this.autoIndex = options.autoIndex ?? true;
    this.nprobes = Math.max(1, Math.floor(options.nprobes ?? 128));
    this.refineOption = options.refineFactor === undefined ? undefined : Math.max(1, Math.floor(options.refineFactor));
  }

  /** After each committed write of this process (optimize every N writes, index upkeep): lancedb-index-upkeep.ts. */
  protected abstract afterWrite(state: CollectionState): Promise<void>;

  // ---- connection and tables ----------------------------------------------------------------------

  protected conn(): Promise<lancedb.Connection> {
    if (this.closed) return Promise.reject(new VectorStoreError('LanceDbVectorStore is closed'));
    if (!this.connection) {
      const attempt = (async () => {
        await fs.promises.mkdir(this.dir, { recursive: true });
        // 0 = strong read consistency: every read checks for versions committed by other processes.
        return lancedb.connect(this.dir, { readConsistencyInterval: 0 });
      })();
      this.connection = attempt;
      attempt.catch(() => {
        if (this.connection === attempt) this.connection = null;
      });
    }
    return this.connection;
  }

  /** The collection's state, or null when the table does not exist (not cached: it may appear later). */
  protected state(collection: string): Promise<CollectionState | null> {
    if (this.closed) return Promise.reject(new VectorStoreError('LanceDbVectorStore is closed'));
    const cached = this.states.get(collection);
    if (cached) return cached;
    const attempt = (async () => {
      const conn = await this.conn();
      const names = await conn.tableNames();
      if (!names.includes(collection)) return null;
      return this.describe(collection, await conn.openTable(collection));
    })();
    this.states.set(collection, attempt);
    attempt.then(
      (s) => {
        if (s === null && this.states.get(collection) === attempt) this.states.delete(collection);
      },
      () => {
        if (this.states.get(collection) === attempt) this.states.delete(collection);
      },
    );
    return attempt;
  }

  protected async requireState(collection: string): Promise<CollectionState> {
    const state = await this.state(collection);
    if (!state) {
      throw new CollectionNotFoundError(`Collection "${collection}" does not exist (call ensureCollection first)`);
    }
    return state;
  }

  protected async describe(name: string, table: lancedb.Table, isDelta = false): Promise<CollectionState> {
    const schema = await table.schema();
    const vector = schema.fields.find((f) => f.name === 'vector');
    const missing = COLUMNS.filter((c) => !schema.fields.some((f) => f.name === c));
    if (!vector || !(vector.type instanceof FixedSizeList) || missing.length > 0) {
      throw new VectorStoreError(
        `Table "${name}" in ${this.dir} is not a vector-store collection (missing ${missing.join(', ') || 'a fixed-size vector column'})`,
      );
    }
    return {
      name, table, dim: vector.type.listSize, snapshot: null, loading: null, writesSinceOptimize: 0,
      indexed: false, indexCheckedAt: -1, indexTrainedRows: 0, indexCheckedMs: 0, smallFragmentsAfterCompaction: 0, sideFlags: new Set(), sideVersion: -1, sideTable: null, indexing: null,
      isDelta, delta: null, kind: 'ivf_pq',
    };
  }

  // ---- writes -------------------------------------------------------------------------------------

  /** Serialises writes per collection inside this process. */
  protected withWriteLock<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    return this.writes.run(collection, fn);
  }

  /**
   * Merge-insert of records into one table (the collection's or its delta), patching this
   * process's snapshot. Records without an explicit flag are written without the column (see `upsert`).
   */
  protected async writeRecords(state: CollectionState, clean: readonly VectorRecordInput[]): Promise<void> {
    const keepFlag = clean.filter((r) => r.quarantined === undefined);
    const setFlag = clean.filter((r) => r.quarantined !== undefined);
    for (const [group, withFlag] of [
      [keepFlag, false],
      [setFlag, true],
    ] as const) {
      for (const part of chunks(group, UPSERT_CHUNK)) {
        const result = await state.table
          .mergeInsert('id')
          .whenMatchedUpdateAll()
          .whenNotMatchedInsertAll()
          .execute(toArrow(part, state.dim, withFlag));
        patch(state, result.version, (snap) => applyUpsert(snap, part));
        await this.afterWrite(state);
      }
    }
  }

  protected async updateFlags(state: CollectionState, todo: readonly string[], quarantined: boolean): Promise<void> {
    const guard = flagGuard(quarantined);
    for (const part of chunks(todo, ID_CHUNK)) {
      const result = await state.table.update({
        valuesSql: { quarantined: quarantined ? 'true' : 'false' },
        where: `id IN (${idList(part)}) AND ${guard}`,
      });
      patch(state, result.version, (s) => {
        for (const id of part) {
          const row = s.index.get(id);
          if (row !== undefined) s.quarantined[row] = quarantined;
        }
      });
      await this.afterWrite(state);
    }
  }

  /** Exact path (or a delta table): deletes the rows that exist, patching this process's snapshot. */
  protected async exactDelete(state: CollectionState, wanted: readonly string[]): Promise<void> {
    if (wanted.length === 0) return;
    const snap = await this.fresh(state);
    const todo = wanted.filter((id) => snap.index.has(id));
    for (const part of chunks(todo, ID_CHUNK)) {
      const result = await state.table.delete(`id IN (${idList(part)})`);
      patch(state, result.version, (s) => applyDelete(s, part));
      await this.afterWrite(state);
    }
  }

  /** listPage on the indexed table alone (ANN path). */
  protected async indexedPage(state: CollectionState, after: string | null, limit: number, opts: { withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    // LanceDB has no ORDER BY … LIMIT: the ids above `after` are read first (one narrow column), sorted
    // here, and the page's last id bounds the second read, which materialises the wide columns (text,
    // vector) of the page's rows only — not of every row above `after` (at 100k rows in pages of 20k
    // that read 3× the table; fetching the page by id lists costs one scan per 1,000 ids).
    const above = after === null ? null : `id > ${sqlString(after)}`;
    const idTable = await (above === null ? state.table.query() : state.table.query().where(above)).select(['id']).toArrow();
    const allIds: string[] = [];
    for (const b of idTable.batches) { const col = b.getChild('id')!; for (let i = 0; i < b.numRows; i++) allIds.push(col.get(i) as string); }
    if (allIds.length === 0) return { records: [], next: null };
    allIds.sort();
    const last = allIds[Math.min(limit, allIds.length) - 1]!;
    const within = [above, `id <= ${sqlString(last)}`].filter((w) => w !== null).join(' AND ');
    const cols = ['id', 'payload', 'quarantined', ...(opts.withText ? ['text'] : []), ...(opts.withVectors ? ['vector'] : [])];
    const table = await state.table.query().where(within).select(cols).toArrow();
    const rows: { id: string; batch: number; row: number }[] = [];
    table.batches.forEach((b, bi) => { const col = b.getChild('id')!; for (let i = 0; i < b.numRows; i++) rows.push({ id: col.get(i) as string, batch: bi, row: i }); });
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // Every row up to `last` is returned (one written between the two reads too: none is skipped).
    // Columns are looked up once per batch, vectors read through flatVectors.
    const columns = table.batches.map((b) => ({
      quarantined: b.getChild('quarantined')!, payload: b.getChild('payload')!, text: opts.withText ? b.getChild('text')! : null,
      vector: opts.withVectors ? flatVectors(b.getChild('vector')!, true) : null,
    }));
    const side = await this.sideFlags(state);
    const records = rows.map(({ id, batch, row }) => {
      const c = columns[batch]!;
      return {
        id, quarantined: c.quarantined.get(row) === true || side.has(id), payload: parsePayload(c.payload.get(row) as string),
        ...(c.text ? { text: c.text.get(row) as string } : {}),
        ...(c.vector ? { vector: c.vector(row) } : {}),
      };
    });
    return { records, next: allIds.length > limit ? last : null };
  }

  /** ANN path: the collection's delta table (created on first use; any process may have, see DELTA_TABLE_SUFFIX). */
  protected deltaOf(state: CollectionState): Promise<CollectionState> {
    if (!state.delta) {
      const opening = (async () => {
        const conn = await this.conn();
        const name = state.name + DELTA_TABLE_SUFFIX;
        const table = await conn.createEmptyTable(name, tableSchema(state.dim), { mode: 'create', existOk: true });
        return this.describe(name, table, true);
      })();
      state.delta = opening;
      opening.catch(() => {
        if (state.delta === opening) state.delta = null;
      });
    }
    return state.delta;
  }

  /** ANN path: the side table of quarantined ids (created on first use; any process may have). */
  protected async sideTable(state: CollectionState): Promise<lancedb.Table> {
    if (!state.sideTable) {
      const conn = await this.conn();
      state.sideTable = await conn.createEmptyTable(state.name + QUARANTINE_TABLE_SUFFIX, new Schema([new Field('id', new Utf8(), false)]), { existOk: true });
    }
    return state.sideTable;
  }

  /** ANN path: the ids quarantined through the side table, re-read when its version changed. */
  protected async sideFlags(state: CollectionState): Promise<ReadonlySet<string>> {
    const table = await this.sideTable(state);
    const version = await table.version();
    if (version !== state.sideVersion) {
      const ids = new Set<string>();
      const result = await table.query().select(['id']).toArrow();
      for (const b of result.batches) { const col = b.getChild('id')!; for (let i = 0; i < b.numRows; i++) ids.add(col.get(i) as string); }
      state.sideFlags = ids;
      state.sideVersion = version;
    }
    return state.sideFlags;
  }

  /** ANN path: adds (quarantine) or removes (restore, delete) ids in the side table. */
  protected async writeSide(state: CollectionState, ids: readonly string[], quarantined: boolean): Promise<void> {
    if (ids.length === 0) return;
    const table = await this.sideTable(state);
    for (const part of chunks(ids, ID_CHUNK)) {
      if (quarantined) {
        const data = new ArrowTable({ id: vectorFromArray(part, new Utf8()) });
        await table.mergeInsert('id').whenNotMatchedInsertAll().execute(data);
      } else {
        await table.delete(`id IN (${idList(part)})`);
      }
    }
    state.sideVersion = -1; // re-read on next use
    if ((await table.version()) % 50 === 0) await table.optimize({ cleanupOlderThan: new Date(Date.now() - 15 * 60_000) }).catch(() => undefined);
  }

  /** Stored records by id straight from the table (ANN path: there is no snapshot). */
  protected async fetchRows(state: CollectionState, ids: readonly string[]): Promise<StoredRecord[]> {
    const found = new Map<string, StoredRecord>();
    const side = await this.sideFlags(state);
    for (const part of chunks(ids, ID_CHUNK)) {
      const table = await state.table.query().where(`id IN (${idList(part)})`).select(COLUMNS).toArrow();
      for (const batch of table.batches) {
        const idCol = batch.getChild('id');
        const vectorCol = batch.getChild('vector');
        const texts = batch.getChild('text');
        const payloads = batch.getChild('payload');
        const flags = batch.getChild('quarantined');
        if (!idCol || !vectorCol || !texts || !payloads || !flags) throw new VectorStoreError(`Table "${state.name}" lost a column`);
        const vectorOf = flatVectors(vectorCol);
        for (let i = 0; i < batch.numRows; i++) {
          const id = idCol.get(i) as string;
          found.set(id, {
            id,
            vector: vectorOf(i),
            text: texts.get(i) as string,
            payload: parsePayload(payloads.get(i) as string),
            quarantined: flags.get(i) === true || side.has(id),
          });
        }
      }
    }
    return ids.map((id) => found.get(id)).filter((r): r is StoredRecord => r !== undefined);
  }

  /** Which of `ids` exist (and match `extra`, a SQL condition), read from the table. */
  protected async existingIds(state: CollectionState, ids: readonly string[], extra?: string): Promise<string[]> {
    const out: string[] = [];
    for (const part of chunks(ids, ID_CHUNK)) {
      const where = `id IN (${idList(part)})${extra ? ` AND ${extra}` : ''}`;
      const rows = await state.table.query().where(where).select(['id']).toArray();
      for (const r of rows) out.push(String((r as { id: unknown }).id));
    }
    return out;
  }

  protected async optimizeNow(state: CollectionState, olderThanMs: number): Promise<void> {
    state.writesSinceOptimize = 0;
    try {
      await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - olderThanMs) });
    } catch {
      // Maintenance only: a conflict with another process's commit is retried at the next round.
    }
  }

  // ---- reads --------------------------------------------------------------------------------------

  /** The snapshot for the latest committed version (reloaded when another process wrote). */
  protected async fresh(state: CollectionState): Promise<Snapshot> {
    for (;;) {
      const latest = await state.table.version();
      const snap = state.snapshot;
      if (snap && snap.version >= latest) return snap;
      if (!state.loading) {
        const loading = load(state);
        state.loading = loading;
        try {
          const loaded = await loading;
          if (!state.snapshot || state.snapshot.version < loaded.version) state.snapshot = loaded;
        } finally {
          if (state.loading === loading) state.loading = null;
        }
      } else {
        await state.loading.catch(() => undefined);
      }
      const current = state.snapshot as Snapshot | null;
      if (current && current.version >= latest) return current;
    }
  }

}
