/**
 * The embedded on-disk VectorStore (no server): LanceDB tables are the durable store, searches are
 * answered from an in-process snapshot of each table.
 *
 * Storage: one LanceDB table per collection under `dir`, columns
 *   id (utf8), vector (fixed_size_list<float32>[dim]), text (utf8), payload (utf8, JSON),
 *   quarantined (bool, nullable: NULL = false — see `upsert`).
 *
 * Serving: exact cosine top-k. A snapshot of the table (vectors in a float32 matrix, ids, texts,
 * payloads, flags, inverse norms) is loaded once and reused while the table version is unchanged; the
 * scoring of a whole `searchBatch` is ONE pass of a WebAssembly-SIMD kernel over the matrix
 * (exact-kernel.ts). A plain LanceDB search costs ~20 ms per query here; the snapshot answers a
 * 21-query batch over 10,000×384 in a few ms (bench/vector-store.bench.ts).
 *
 * Several processes (API, worker) may open the same directory:
 * - the connection uses `readConsistencyInterval: 0`, so every read (including `table.version()`,
 *   ~0.1 ms) checks the latest committed version on disk;
 * - each search/fetch first compares that version with its snapshot's and reloads when another
 *   process has committed since (cost: one table scan, ~150 ms for 10k×384);
 * - this process's own writes patch the snapshot in place when the write committed exactly one version
 *   after the snapshot (so quarantine/restore/upsert never force a reload here); otherwise the
 *   snapshot is simply considered stale.
 * Writes to one table are serialised inside the process (a promise chain per collection), so
 * concurrent upserts never race each other; across processes LanceDB's optimistic commits apply.
 *
 * Two serving paths — the switch is the table having an ANN index on `vector`:
 * - below `indexMinRows` (VECTOR_INDEX_MIN_ROWS, default 50,000) there is none: the snapshot above
 *   answers with EXACT scores in a few ms per batch, and a foreign write costs a reload bounded by
 *   the threshold (~150 ms per 10k rows → ≤ ~0.75 s at 50k). Exact is the right tool there: recall 1,
 *   no index to train, and BiRD's 21-query batches are one pass of the kernel;
 * - once a write leaves the table at ≥ `indexMinRows` rows, the writing process trains an ANN index
 *   (IVF_RQ by default, see `annIndex`) in the background (`buildIndexNow`). From the commit on, every process (checked once per
 *   new table version) drops its snapshot and searches through LanceDB: quarantine and long
 *   exclusion lists as `where` postfilters (re-run wider, then as a prefilter, when they leave fewer
 *   than k), refine re-scores exactly. Small writes go to a delta table served exactly from memory
 *   and merged with the index's hits (DELTA_TABLE_SUFFIX), so the indexed table stays covered by its
 *   index and another process's write costs the next search a re-read of the delta — no reload, no
 *   per-process copy of the table (RSS stays flat at 1M rows). Rows a bulk write leaves outside the
 *   index are scanned flat by LanceDB until merged.
 *   Fetch/setQuarantined/delete read the table by id (BTREE index on `id`); quarantines are kept in a
 *   side table of ids, not by updating indexed rows (QUARANTINE_TABLE_SUFFIX). Index upkeep:
 *   `maintainIndex` (merge new rows via `optimize`, move the delta in, compact small fragments,
 *   retrain after 4× growth or past MAX_INDEX_DELTAS).
 * Evidence's candidate pools use `fetch` by id on either path.
 *
 * Files: this one implements the VectorStore port; lancedb.params.ts holds the options and tuning
 * constants, lancedb-snapshot.ts the exact snapshot and Arrow helpers, lancedb-tables.ts the connection,
 * tables and shared writes, lancedb-index-upkeep.ts the ANN index's upkeep and the ANN search.
 */
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import { DELTA_TABLE_SUFFIX, ID_CHUNK, QUARANTINE_TABLE_SUFFIX, VECTOR_INDEX } from './lancedb.params';
import { annKindOf, chunks, type CollectionState, flagGuard, idList, inverseNorm, type Snapshot, tableSchema, topK } from './lancedb-snapshot';
import { LanceDbIndexUpkeep } from './lancedb-index-upkeep';
import {
  type AnnIndexKind, assertCollectionName, assertDimension, compareHits, DimensionMismatchError, normaliseRecords, parsePayload, uniqueIds,
  validateSearchRequests, VectorStoreError, type VectorRecordInput,
} from './vector-store.common';

export { ANN_INDEX_KINDS, type AnnIndexKind } from './vector-store.common';
export type { LanceDbVectorStoreOptions } from './lancedb.params';
export { flatVectors } from './lancedb-snapshot';

export class LanceDbVectorStore extends LanceDbIndexUpkeep implements VectorStore {
  readonly kind = 'lancedb';

  // ---- VectorStore --------------------------------------------------------------------------------

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    assertCollectionName(collection);
    assertDimension(dimension);
    await this.withWriteLock(collection, async () => {
      let state = await this.state(collection);
      if (!state) {
        const conn = await this.conn();
        const table = await conn.createEmptyTable(collection, tableSchema(dimension), { mode: 'create', existOk: true });
        const created = await this.describe(collection, table); // another process may have won the race
        this.states.set(collection, Promise.resolve(created));
        state = created;
      }
      if (state.dim !== dimension) {
        throw new DimensionMismatchError(
          `Collection "${collection}" exists with dimension ${state.dim}, requested ${dimension}`,
        );
      }
    });
  }

  /**
   * Insert or replace by id (LanceDB merge-insert on `id`). Records without an explicit `quarantined`
   * are written WITHOUT the quarantined column: a matched row keeps its flag untouched by the write
   * itself (no read-modify-write, so no race with another process quarantining it), a new row gets
   * NULL, which means "not quarantined".
   */
  async upsert(collection: string, records: readonly VectorRecordInput[]): Promise<void> {
    assertCollectionName(collection);
    const state = await this.requireState(collection);
    const clean = normaliseRecords(collection, records, state.dim);
    if (clean.length === 0) return;
    let toDelta = false;
    await this.withWriteLock(collection, async () => {
      const ann = await this.annMode(state);
      if (ann && clean.length < this.deltaMoveRows(state)) {
        // A small write on the ANN path goes to the delta table (see DELTA_TABLE_SUFFIX). A record
        // without a flag keeps the flag of the row it replaces: the delta's own row keeps it by the
        // merge-insert itself; an indexed row's in-row flag is carried over here.
        const delta = await this.deltaOf(state);
        const dsnap = await this.fresh(delta);
        const fromMain = clean.filter((r) => r.quarantined === undefined && !dsnap.index.has(r.id)).map((r) => r.id);
        const flagged = new Set(fromMain.length > 0 ? await this.existingIds(state, fromMain, 'quarantined = true') : []);
        await this.writeRecords(delta, clean.map((r) => (flagged.has(r.id) ? { ...r, quarantined: true } : r)));
        toDelta = true;
      } else {
        await this.writeRecords(state, clean);
        if (ann) {
          // A bulk write goes to the indexed table: a delta copy of one of its ids is now stale.
          const delta = await this.deltaOf(state);
          const dsnap = await this.fresh(delta);
          const stale = clean.map((r) => r.id).filter((id) => dsnap.index.has(id));
          if (stale.length > 0) await this.exactDelete(delta, stale);
        }
      }
      // An explicit `quarantined: false` also lifts a quarantine kept in the side table.
      const cleared = clean.filter((r) => r.quarantined === false).map((r) => r.id);
      if (cleared.length > 0 && ann) {
        const side = await this.sideFlags(state);
        await this.writeSide(state, cleared.filter((id) => side.has(id)), false);
      }
    });
    if (toDelta) this.maintainIndex(state); // the delta may have reached `deltaMoveRows`
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const [hits] = await this.searchBatch(collection, [request]);
    return hits;
  }

  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    assertCollectionName(collection);
    const state = await this.requireState(collection);
    validateSearchRequests(collection, requests, state.dim);
    if (requests.length === 0) return [];
    if (await this.annMode(state)) {
      // The index's hits (delta ids shadowed) merged with the delta's exact hits (see DELTA_TABLE_SUFFIX).
      const delta = await this.deltaOf(state);
      // Both re-read only when another process wrote them; in parallel, as that is the next search's cost.
      const [dsnap, side] = await Promise.all([this.fresh(delta), this.sideFlags(state)]);
      if (dsnap.ids.length === 0) return Promise.all(requests.map((r) => this.annSearch(state, r)));
      // Side-table ids among the delta's rows, from the smaller of the two (the side table only grows).
      const sideInDelta = side.size < dsnap.index.size ? [...side].filter((id) => dsnap.index.has(id)) : [...dsnap.index.keys()].filter((id) => side.has(id));
      const fromDelta = this.exactSearchBatch(delta, dsnap, requests, sideInDelta);
      return Promise.all(requests.map(async (r, j) => {
        const fromIndex = await this.annSearch(state, r, dsnap.index);
        return [...fromIndex, ...fromDelta[j]!].sort(compareHits).slice(0, r.k);
      }));
    }
    return this.exactSearchBatch(state, await this.fresh(state), requests);
  }

  /**
   * Exact top-k of each request over a snapshot (one pass of the kernel for the batch). `alsoExcluded`:
   * ids excluded from every request unless it includes quarantined texts (the side table's, for a delta).
   */
  private exactSearchBatch(state: CollectionState, snap: Snapshot, requests: readonly SearchRequest[], alsoExcluded: readonly string[] = []): ScoredHit[][] {
    // From here on everything is synchronous: the snapshot cannot change under us.
    const queries = requests.map((r) => {
      const q = new Float32Array(state.dim);
      const inv = inverseNorm(r.vector);
      for (let d = 0; d < state.dim; d++) q[d] = r.vector[d] * inv;
      return q;
    });
    const scores = snap.matrix.scores(queries);
    return requests.map((req, j) => {
      const excluded = new Set<number>();
      for (const id of [...(req.excludeIds ?? []), ...(req.includeQuarantined === true ? [] : alsoExcluded)]) {
        const row = snap.index.get(id);
        if (row !== undefined) excluded.add(row);
      }
      return topK(snap, scores, j, req.k, excluded, req.includeQuarantined === true);
    });
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    assertCollectionName(collection);
    const wanted = uniqueIds(ids);
    const state = await this.state(collection);
    if (!state || wanted.length === 0) return [];
    if (await this.annMode(state)) {
      // A delta row is the current one; the rest are read from the indexed table.
      const [dsnap, side] = await Promise.all([this.fresh(await this.deltaOf(state)), this.sideFlags(state)]);
      const fromDelta = new Map(this.deltaRecords(dsnap, side, wanted.filter((id) => dsnap.index.has(id))).map((r) => [r.id, r]));
      const fromIndex = new Map((await this.fetchRows(state, wanted.filter((id) => !fromDelta.has(id)))).map((r) => [r.id, r]));
      return wanted.map((id) => fromDelta.get(id) ?? fromIndex.get(id)).filter((r): r is StoredRecord => r !== undefined);
    }
    return this.snapshotRecords(await this.fresh(state), wanted);
  }

  /** Delta rows as stored records, quarantined by their own flag or by the side table. */
  private deltaRecords(dsnap: Snapshot, side: ReadonlySet<string>, ids: readonly string[]): StoredRecord[] {
    return this.snapshotRecords(dsnap, ids).map((r) => (side.has(r.id) ? { ...r, quarantined: true } : r));
  }

  private snapshotRecords(snap: Snapshot, ids: readonly string[]): StoredRecord[] {
    const out: StoredRecord[] = [];
    for (const id of ids) {
      const row = snap.index.get(id);
      if (row === undefined) continue;
      out.push({
        id,
        vector: snap.matrix.row(row),
        text: snap.texts[row],
        payload: parsePayload(snap.payloads[row]),
        quarantined: snap.quarantined[row],
      });
    }
    return out;
  }

  /**
   * Pages of the collection ordered by id (audits). Small collections: from the exact snapshot.
   * Indexed ones: LanceDB has no ordered scan, so each page reads the ids above `after` (one column)
   * and sorts them here, then fetches the page's rows by id — O(rows left) per page, which is why
   * callers use large pages.
   */
  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    assertCollectionName(collection);
    const state = await this.state(collection);
    if (!state) return { records: [], next: null };
    const limit = Math.max(1, Math.floor(opts.limit));
    const after = opts.after ?? null;
    let ids: string[];
    if (await this.annMode(state)) {
      // The indexed table's page, its rows shadowed by the delta's dropped, merged with the delta's
      // rows in the same id range (see DELTA_TABLE_SUFFIX).
      const [dsnap, side] = await Promise.all([this.fresh(await this.deltaOf(state)), this.sideFlags(state)]);
      const main = await this.indexedPage(state, after, limit, opts);
      // Past the indexed page's last id the indexed table has rows not read yet: the delta's rows
      // there belong to a later page.
      const bound = main.next;
      const deltaIds = [...dsnap.index.keys()].filter((id) => (after === null || id > after) && (bound === null || id <= bound));
      const fromDelta = this.deltaRecords(dsnap, side, deltaIds).map((r) => ({
        id: r.id, quarantined: r.quarantined, payload: r.payload,
        ...(opts.withText ? { text: r.text } : {}), ...(opts.withVectors ? { vector: r.vector } : {}),
      }));
      const merged = [...main.records.filter((r) => !dsnap.index.has(r.id)), ...fromDelta].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const records = merged.slice(0, limit);
      const last = records[records.length - 1]?.id ?? null;
      // Every delta row above `after` is in `merged` unless it lies past `bound`, i.e. main.next is set.
      const more = merged.length > limit || main.next !== null;
      return { records, next: more && last !== null ? last : null };
    } else {
      ids = [...(await this.fresh(state)).index.keys()].filter((id) => after === null || id > after);
    }
    ids.sort();
    const page = ids.slice(0, limit);
    const rows = await this.fetch(collection, page);
    const records = rows.map((r) => ({
      id: r.id, quarantined: r.quarantined, payload: r.payload, ...(opts.withText ? { text: r.text } : {}), ...(opts.withVectors ? { vector: r.vector } : {}),
    }));
    return { records, next: ids.length > page.length ? page[page.length - 1]! : null };
  }

  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    assertCollectionName(collection);
    if (typeof quarantined !== 'boolean') throw new VectorStoreError('setQuarantined: `quarantined` must be a boolean');
    const wanted = uniqueIds(ids);
    const state = await this.state(collection);
    if (!state || wanted.length === 0) return;
    await this.withWriteLock(collection, async () => {
      if (!(await this.annMode(state))) return this.exactSetQuarantined(state, wanted, quarantined);
      // Rows in the delta table: their own flag (a small exact table, see DELTA_TABLE_SUFFIX). A
      // restore also lifts a side-table quarantine the id kept from before it was rewritten.
      const delta = await this.deltaOf(state);
      const dsnap = await this.fresh(delta);
      const inDelta = wanted.filter((id) => dsnap.index.has(id));
      const indexed = wanted.filter((id) => !dsnap.index.has(id));
      await this.exactSetQuarantined(delta, inDelta, quarantined);
      const side = await this.sideFlags(state);
      if (!quarantined) await this.writeSide(state, inDelta.filter((id) => side.has(id)), false);
      // Indexed rows: the side table, not an update of the indexed rows (see QUARANTINE_TABLE_SUFFIX).
      // A restore also clears the row's own flag when it was set (at ingest / before indexing): an
      // update, but a rare one. Only rows that exist: a no-op commits nothing.
      const guard = flagGuard(quarantined);
      if (quarantined) {
        const unflagged = await this.existingIds(state, indexed, guard);
        await this.writeSide(state, unflagged.filter((id) => !side.has(id)), true);
        return;
      }
      await this.writeSide(state, indexed.filter((id) => side.has(id)), false);
      await this.updateFlags(state, await this.existingIds(state, indexed, guard), quarantined);
    });
  }

  /** Exact path (or a delta table): the rows whose flag differs get an update (a no-op commits nothing, so other processes' snapshots stay valid). */
  private async exactSetQuarantined(state: CollectionState, wanted: readonly string[], quarantined: boolean): Promise<void> {
    if (wanted.length === 0) return;
    const snap = await this.fresh(state);
    const todo = wanted.filter((id) => {
      const row = snap.index.get(id);
      return row !== undefined && snap.quarantined[row] !== quarantined;
    });
    await this.updateFlags(state, todo, quarantined);
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    const wanted = uniqueIds(ids);
    const state = await this.state(collection);
    if (!state || wanted.length === 0) return;
    await this.withWriteLock(collection, async () => {
      if (!(await this.annMode(state))) return this.exactDelete(state, wanted);
      await this.exactDelete(await this.deltaOf(state), wanted);
      for (const part of chunks(await this.existingIds(state, wanted), ID_CHUNK)) {
        await state.table.delete(`id IN (${idList(part)})`);
        await this.afterWrite(state);
      }
      const side = await this.sideFlags(state);
      await this.writeSide(state, wanted.filter((id) => side.has(id)), false);
    });
  }

  async count(collection: string): Promise<number> {
    assertCollectionName(collection);
    const state = await this.state(collection);
    if (!state) return 0;
    const rows = await state.table.countRows();
    if (!(await this.annMode(state))) return rows;
    // Delta rows count once: those replacing an indexed row are in both tables.
    const deltaIds = [...(await this.fresh(await this.deltaOf(state))).index.keys()];
    return rows + deltaIds.length - (deltaIds.length > 0 ? (await this.existingIds(state, deltaIds)).length : 0);
  }

  /** The LanceDB table version: it changes with every committed write, from any process. */
  async revision(collection: string): Promise<string | null> {
    assertCollectionName(collection);
    const state = await this.state(collection);
    if (!state) return null;
    const main = String(await state.table.version());
    if (!(await this.annMode(state))) return state.sideTable ? `${main}.${await state.sideTable.version()}` : main;
    // ANN path: a write may land in the delta or the side table instead.
    const [delta, side] = await Promise.all([this.deltaOf(state), this.sideTable(state)]);
    return `${main}.${await delta.table.version()}.${await side.version()}`;
  }

  async health(): Promise<void> {
    const conn = await this.conn();
    await conn.tableNames();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.drain();
    for (const p of this.states.values()) {
      const state = await p.catch(() => null);
      if (state?.indexing) await state.indexing.catch(() => undefined);
      if (state && state.table.isOpen()) state.table.close();
      if (state?.sideTable?.isOpen()) state.sideTable.close();
      const delta = state?.delta ? await state.delta.catch(() => null) : null;
      if (delta?.table.isOpen()) delta.table.close();
      if (state) state.snapshot = null;
    }
    this.states.clear();
    const conn = this.connection ? await this.connection.catch(() => null) : null;
    this.connection = null;
    if (conn && conn.isOpen()) conn.close();
  }

  /** Removes the collection and its data (not part of the port: tests and operations). */
  async dropCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.withWriteLock(collection, async () => {
      const state = await this.state(collection);
      if (!state) return;
      this.states.delete(collection);
      if (state.table.isOpen()) state.table.close();
      if (state.sideTable?.isOpen()) state.sideTable.close();
      const delta = state.delta ? await state.delta.catch(() => null) : null;
      if (delta?.table.isOpen()) delta.table.close();
      const conn = await this.conn();
      await conn.dropTable(collection);
      const names = await conn.tableNames();
      for (const extra of [QUARANTINE_TABLE_SUFFIX, DELTA_TABLE_SUFFIX]) if (names.includes(collection + extra)) await conn.dropTable(collection + extra);
    });
  }

  /**
   * Compacts the table's fragments and removes versions older than `olderThanMs` (default 15 min).
   * Also run automatically every `optimizeEvery` writes of this process.
   */
  async optimize(collection: string, olderThanMs = 15 * 60_000): Promise<void> {
    assertCollectionName(collection);
    const state = await this.state(collection);
    if (!state) return;
    await this.withWriteLock(collection, () => this.optimizeNow(state, olderThanMs));
  }

  /**
   * Builds (or retrains) the collection's ANN index now and waits for it; from then on every process
   * serves the collection through it. Normally automatic (`autoIndex`) once the collection reaches
   * `indexMinRows`; exposed for operations, benches and tests.
   */
  async buildIndex(collection: string): Promise<void> {
    assertCollectionName(collection);
    const state = await this.requireState(collection);
    await this.waitForIndexing(collection);
    await this.runIndexing(state, () => this.buildIndexNow(state));
  }

  /** Resolves when the background index build/merge of this process (if any) has finished. */
  async waitForIndexing(collection: string): Promise<void> {
    const state = await this.state(collection);
    while (state?.indexing) await state.indexing.catch(() => undefined);
  }

  /**
   * Rows inside / outside the ANN index and the table's small fragments (LanceDB's counts; null below
   * the threshold, where there is no index). Rows outside the index are scanned flat by every search,
   * and every fragment costs each search, until the next `optimize`.
   */
  async annIndexStats(collection: string): Promise<{ kind: AnnIndexKind; indexedRows: number; unindexedRows: number; smallFragments: number; indices: number; deltaRows: number } | null> {
    assertCollectionName(collection);
    const state = await this.requireState(collection);
    if (!(await this.annMode(state))) return null;
    const [stats, table, delta] = await Promise.all([state.table.indexStats(VECTOR_INDEX), state.table.stats(), this.deltaOf(state)]);
    return stats
      ? { kind: annKindOf(stats.indexType), indexedRows: stats.numIndexedRows, unindexedRows: stats.numUnindexedRows, smallFragments: table.fragmentStats.numSmallFragments, indices: stats.numIndices ?? 1, deltaRows: await delta.table.countRows() }
      : null;
  }

  /** Which serving path answers this collection's searches now ('exact' snapshot or 'ann' index). */
  async servingPath(collection: string): Promise<'exact' | 'ann'> {
    const state = await this.requireState(collection);
    return (await this.annMode(state)) ? 'ann' : 'exact';
  }

}
