/**
 * Index upkeep of the embedded LanceDB vector store: training and retraining the ANN index, merging
 * new rows into it, moving the delta table in, compaction, and the ANN search path itself. Built on
 * LanceDbTables; the port is lancedb-vector-store.adapter.ts. Split out of the adapter (issue 34) unchanged.
 */
import * as lancedb from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import type { ScoredHit, SearchRequest } from '@forensics/core';
import {
  ANN_TIE_SLACK, DEFAULT_REFINE, DELTA_MOVE_ROWS, DELTA_MOVE_ROWS_HNSW, EXCLUDE_IN_WHERE, RETRAIN_GROWTH, RQ_BITS, SIDE_OVERFETCH, UPSERT_CHUNK, VECTOR_INDEX,
} from './lancedb.params';
import { annKindOf, chunks, type CollectionState, idList, toArrow } from './lancedb-snapshot';
import { LanceDbTables } from './lancedb-tables';
import { clampCosine, compareHits, parsePayload, uniqueIds, VectorStoreError } from './vector-store.common';

export abstract class LanceDbIndexUpkeep extends LanceDbTables {
  protected override async afterWrite(state: CollectionState): Promise<void> {
    state.writesSinceOptimize++;
    if (this.optimizeEvery > 0 && state.writesSinceOptimize >= this.optimizeEvery) {
      await this.optimizeNow(state, 15 * 60_000);
    }
    this.maintainIndex(state);
  }

  // ---- ANN index ----------------------------------------------------------------------------------

  /**
   * Background index maintenance after a write of this process (never awaited by the write):
   * - no index yet and the table reached `indexMinRows` → train one (IVF_PQ, see `buildIndexNow`);
   * - the table grew `RETRAIN_GROWTH`× since the index was trained → retrain (the IVF partitions were
   *   sized for the old row count);
   * - `INDEX_MERGE_ROWS` rows outside the index (LanceDB's own count, so rows written by any process
   *   and during a training count) → `optimize`, which folds them into the existing index (until
   *   then LanceDB searches them flat, so they are found anyway, only slower).
   * - `COMPACT_SMALL_FRAGMENTS` small fragments more than this process's last compaction left
   *   (every small write adds one) → `optimize`, which compacts them.
   * Also run from searches at most every `INDEX_CHECK_INTERVAL_MS`, so a tail left by a process that
   * wrote and exited (a CLI ingest, a killed API) is merged by whoever searches.
   * Failures (e.g. a commit conflict with another process) are dropped: the next write tries again.
   */
  protected maintainIndex(state: CollectionState): void {
    if (!this.autoIndex || this.indexMinRows === 0 || state.indexing || this.closed || state.isDelta) return;
    state.indexCheckedMs = Date.now();
    void this.runIndexing(state, async () => {
      // Rows keep arriving while an index trains or merges: look again after each job (bounded).
      for (let job = 0; job < 3 && !this.closed; job++) {
        const rows = await state.table.countRows();
        if (!(await this.annMode(state))) {
          if (rows < this.indexMinRows) return;
          await this.buildIndexNow(state);
          continue;
        }
        if (state.indexTrainedRows === 0) {
          const stats = await state.table.indexStats(VECTOR_INDEX);
          state.indexTrainedRows = Math.max(1, stats?.numIndexedRows ?? rows);
        }
        if (rows >= RETRAIN_GROWTH * state.indexTrainedRows) {
          await this.buildIndexNow(state);
          continue;
        }
        const delta = await this.deltaOf(state);
        if ((await delta.table.countRows()) >= this.deltaMoveRows(state)) {
          await this.withWriteLock(state.name, () => this.moveDelta(state, delta));
          continue;
        }
        const [index, table] = await Promise.all([state.table.indexStats(VECTOR_INDEX), state.table.stats()]);
        if (state.kind !== 'hnsw_sq' && (index?.numIndices ?? 1) > this.maxIndexDeltas) {
          await this.buildIndexNow(state);
          continue;
        }
        // Compaction does not merge every small fragment (those of earlier index builds stay apart): count
        // the ones added since this process last compacted, or it would compact after every write.
        const added = table.fragmentStats.numSmallFragments - state.smallFragmentsAfterCompaction;
        if ((index?.numUnindexedRows ?? 0) >= this.indexMergeRows || added >= this.compactFragments) {
          await this.withWriteLock(state.name, () => this.optimizeNow(state, 15 * 60_000));
          state.smallFragmentsAfterCompaction = (await state.table.stats()).fragmentStats.numSmallFragments;
        } else {
          return;
        }
      }
    }).catch(() => undefined);
  }

  /**
   * Moves the delta table's rows into the indexed table (one merge-insert) and merges the index, then
   * deletes them from the delta — except rows another process rewrote meanwhile (compared with what
   * was moved), which stay and shadow the moved copy. Readers see every row at each step: first a
   * flagged row's id goes to the side table (the moved row is written unflagged, so a restore is the
   * side table's), then the rows are in both tables (the delta copy wins), then in the indexed one.
   */
  protected async moveDelta(state: CollectionState, delta: CollectionState): Promise<void> {
    const snap = await this.fresh(delta);
    if (snap.ids.length === 0) return;
    const moved = snap.ids.map((id, row) => ({
      id, vector: snap.matrix.row(row), text: snap.texts[row]!, payload: parsePayload(snap.payloads[row]!), quarantined: false, flagged: snap.quarantined[row]!, rawPayload: snap.payloads[row]!,
    }));
    const side = await this.sideFlags(state);
    await this.writeSide(state, moved.filter((r) => r.flagged && !side.has(r.id)).map((r) => r.id), true);
    for (const part of chunks(moved, UPSERT_CHUNK)) {
      await state.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(toArrow(part, state.dim, true));
    }
    await this.optimizeNow(state, 15 * 60_000);
    state.smallFragmentsAfterCompaction = (await state.table.stats()).fragmentStats.numSmallFragments;
    const now = await this.fresh(delta);
    const unchanged = moved.filter((r) => {
      const row = now.index.get(r.id);
      if (row === undefined || now.texts[row] !== r.text || now.payloads[row] !== r.rawPayload || now.quarantined[row] !== r.flagged) return false;
      const v = now.matrix.row(row);
      return v.every((x, d) => x === r.vector[d]);
    });
    await this.exactDelete(delta, unchanged.map((r) => r.id));
  }

  /** One index job at a time per collection in this process; `state.indexing` while it runs. */
  protected runIndexing(state: CollectionState, job: () => Promise<void>): Promise<void> {
    const run = (async () => {
      while (state.indexing) await state.indexing.catch(() => undefined);
      await job();
    })();
    const tracked = run.finally(() => {
      if (state.indexing === tracked) state.indexing = null;
    });
    state.indexing = tracked;
    tracked.catch(() => undefined);
    return tracked;
  }

  /**
   * Trains the ANN index on the whole table and commits it (replacing an older one), plus a BTREE
   * index on `id` (fetch / exclusions / merge-insert by id at scale).
   *
   * IVF_PQ, cosine: ~rows/4096 partitions (4k vectors each; probing `nprobes` of them scans a small
   * fraction of the table through 8-dimension PQ codes), then the `refineFactor × limit` best
   * candidates are re-scored exactly on the stored float32 vectors — the returned scores are exact
   * cosines and recall is governed by nprobes/refine (bench/scale.bench.ts measures it). k-means runs
   * 20 iterations on LanceDB's default sample (256 vectors per partition), which bounds the training
   * time at 1M rows on 2 cores to a few minutes. Queries never wait for it: the old path serves until
   * the commit, and rows added meanwhile are searched flat by LanceDB.
   */
  protected async buildIndexNow(state: CollectionState): Promise<void> {
    const rows = await state.table.countRows();
    if (rows === 0) return;
    const kind = this.annIndex;
    // IVF_PQ: small partitions, a fraction probed. IVF_HNSW_SQ and IVF_RQ: few partitions of ~250k rows,
    // all probed (nprobes ≥ their count): the graph, or RaBitQ's scan of 4-bit codes, does the work.
    const numPartitions = kind === 'ivf_pq' ? Math.max(1, Math.min(4096, Math.round(rows / 4096))) : Math.max(1, Math.ceil(rows / 250_000));
    const numSubVectors = state.dim % 8 === 0 ? state.dim / 8 : undefined;
    await state.table.createIndex('vector', {
      config: kind === 'hnsw_sq'
        ? lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions, m: 20, efConstruction: 150 })
        : kind === 'ivf_rq'
          ? lancedb.Index.ivfRq({ distanceType: 'cosine', numPartitions, numBits: RQ_BITS })
          : lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions, ...(numSubVectors ? { numSubVectors } : {}), maxIterations: 20 }),
      replace: true,
      name: VECTOR_INDEX,
    });
    state.indexTrainedRows = rows;
    state.kind = kind;
    state.indexed = true;
    state.snapshot = null;
    await state.table.createIndex('id', { config: lancedb.Index.btree(), replace: true }).catch(() => undefined);
  }

  /**
   * True when the table has an ANN index (built by any process): searches then go to LanceDB and the
   * snapshot is dropped (it is what would not scale). Checked once per new table version until true.
   */
  protected async annMode(state: CollectionState): Promise<boolean> {
    if (state.indexed) return true;
    if (state.isDelta) return false;
    const version = await state.table.version();
    if (state.indexCheckedAt === version) return false;
    const indices = await state.table.listIndices();
    state.indexCheckedAt = version;
    const ann = indices.find((i) => i.name === VECTOR_INDEX || (i.columns.includes('vector') && /IVF|HNSW|PQ/i.test(i.indexType)));
    if (ann) {
      state.indexed = true;
      state.kind = annKindOf(ann.indexType);
      state.snapshot = null;
      state.loading = null;
      return true;
    }
    return false;
  }

  /** Delta rows from which they are moved into the indexed table: fewer moves for an index that merges by rebuilding. */
  protected deltaMoveRows(state: CollectionState): number {
    return this.deltaMoveRowsOption ?? (state.kind === 'hnsw_sq' ? DELTA_MOVE_ROWS_HNSW : DELTA_MOVE_ROWS);
  }

  protected refineFor(state: CollectionState): number {
    return this.refineOption ?? DEFAULT_REFINE[state.kind];
  }

  /**
   * One search through LanceDB. The quarantine flag (`quarantined IS NOT TRUE`) and a long exclusion
   * list of the request's own (`id NOT IN …`) are applied as a POSTfilter on the ANN candidates:
   * quarantined rows are rare, and a prefilter costs a scan of the flag column of the whole table on
   * every query (measured at 1M rows: ~40 % of the search time). A few excluded ids are over-fetched
   * (k + |excluded|) and dropped here.
   * The side table's quarantined ids are dropped here too, never put in the SQL of a first attempt:
   * a quarantine list only grows, and an `id NOT IN` list costs every search in proportion to its
   * length (measured on the 100k bench:worker table, k = 5: 12.5 ms with none, 14.2 ms with 500 ids,
   * 28.2 ms with 5,000, 83 ms with 20,000), while only the few quarantined texts near the query can be
   * among its candidates. So the search over-fetches by min(|side|, SIDE_OVERFETCH) and drops them by
   * set lookup (12–13.6 ms on that table at every size). Rows whose id is in the delta table
   * (`shadowed`) are dropped the same way. When fewer than k remain, it is repeated with 4× the limit,
   * and finally with every exclusion in a prefilter, so the result is never short because of
   * filtering. Each query checks the latest committed version (readConsistencyInterval 0).
   */
  protected async annSearch(state: CollectionState, req: SearchRequest, shadowed: ReadonlyMap<string, number> = new Map()): Promise<ScoredHit[]> {
    if (req.k === 0) return [];
    if (Date.now() - state.indexCheckedMs >= this.indexCheckIntervalMs) this.maintainIndex(state);
    const own = uniqueIds(req.excludeIds ?? []);
    const ownSet = new Set(own);
    // Read as it is (no copy per search: the set can hold thousands of ids).
    const side: ReadonlySet<string> = req.includeQuarantined === true ? new Set() : await this.sideFlags(state);
    const ownInWhere = own.length > EXCLUDE_IN_WHERE;
    // Ids whose current row is in the delta table are dropped here too: the indexed row is stale. Not
    // over-fetched for: most delta rows are new texts, not rewrites of indexed ones (the retry covers those).
    const excluded = { has: (id: string) => ownSet.has(id) || side.has(id) || shadowed.has(id) };
    const base = req.k + ANN_TIE_SLACK + (ownInWhere ? 0 : own.length) + Math.min(side.size, SIDE_OVERFETCH);
    let hits: ScoredHit[] = [];
    const attempts = [[base, false], [base * 4, false], [base, true]] as const;
    for (const [limit, prefilter] of attempts) {
      const filters: string[] = [];
      if (req.includeQuarantined !== true) filters.push('quarantined IS NOT TRUE');
      // The last attempt names every exclusion in SQL: nothing is dropped after the search.
      const inSql = prefilter ? uniqueIds([...own, ...side, ...shadowed.keys()]) : ownInWhere ? own : [];
      if (inSql.length > 0) filters.push(`id NOT IN (${idList(inSql)})`);
      let query = state.table
        .vectorSearch(Float32Array.from(req.vector))
        .column('vector')
        .distanceType('cosine')
        .nprobes(this.nprobes)
        .refineFactor(this.refineFor(state))
        .limit(limit)
        .select(['id', 'text', 'payload', '_distance']);
      // IVF_HNSW_SQ: each graph search must keep at least the candidates the refine step re-scores.
      if (state.kind === 'hnsw_sq') query = query.ef(Math.max(this.ef, limit * this.refineFor(state)));
      if (filters.length > 0) query = query.where(filters.join(' AND '));
      if (filters.length > 0 && !prefilter) query = query.postfilter();
      const result = await query.toArrow();
      hits = this.annHits(state, result, excluded);
      // Enough hits, or the table has no more rows to give (nothing was filtered and fewer came back): done.
      if (hits.length >= req.k || (filters.length === 0 && result.numRows < limit)) break;
    }
    return hits.sort(compareHits).slice(0, req.k);
  }

  protected annHits(state: CollectionState, result: ArrowTable, excluded: { has(id: string): boolean }): ScoredHit[] {
    const hits: ScoredHit[] = [];
    for (const batch of result.batches) {
      const ids = batch.getChild('id');
      const texts = batch.getChild('text');
      const payloads = batch.getChild('payload');
      const distances = batch.getChild('_distance');
      if (!ids || !texts || !payloads || !distances) throw new VectorStoreError(`Table "${state.name}": unexpected search result columns`);
      for (let i = 0; i < batch.numRows; i++) {
        const id = ids.get(i) as string;
        if (excluded.has(id)) continue;
        const d = distances.get(i) as number;
        hits.push({ id, score: clampCosine(1 - d), text: texts.get(i) as string, payload: parsePayload(payloads.get(i) as string) });
      }
    }
    return hits;
  }

}
