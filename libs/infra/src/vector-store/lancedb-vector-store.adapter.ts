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
 */
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import {
  Bool,
  type Data,
  Field,
  FixedSizeList,
  Float32,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table as ArrowTable,
  Utf8,
  vectorFromArray,
  type Vector as ArrowVector,
} from 'apache-arrow';
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import { ExactMatrix } from './exact-kernel';
import {
  ANN_INDEX_KINDS,
  type AnnIndexKind,
  assertCollectionName,
  assertDimension,
  clampCosine,
  CollectionNotFoundError,
  compareHits,
  DimensionMismatchError,
  KeyedSerializer,
  normaliseRecords,
  parsePayload,
  uniqueIds,
  validateSearchRequests,
  DEFAULT_ANN_INDEX,
  VectorStoreError,
  type VectorRecordInput,
} from './vector-store.common';

export interface LanceDbVectorStoreOptions {
  /** Directory of the LanceDB database (created if missing). */
  dir: string;
  /**
   * Compact the table's small fragments and drop versions older than 15 minutes after this many
   * writes from this process (0 disables). Default 200.
   */
  optimizeEvery?: number;
  /**
   * Row count from which a collection is served by an ANN index instead of the in-process snapshot
   * (VECTOR_INDEX_MIN_ROWS). Default 50,000; 0 = never build one automatically. See "Two serving paths".
   */
  indexMinRows?: number;
  /** Build / rebuild the ANN index automatically in the background after writes. Default true. */
  autoIndex?: boolean;
  /** Rows outside the ANN index from which they are merged into it (`optimize`). Default 5,000 (see INDEX_MERGE_ROWS). */
  indexMergeRows?: number;
  /** How often a process that only searches checks the index's upkeep, in ms. Default 30,000. */
  indexCheckIntervalMs?: number;
  /** ANN path: small fragments from which the table is compacted (`optimize`). Default 32 (see COMPACT_SMALL_FRAGMENTS). */
  compactFragments?: number;
  /** ANN path: rows in the delta table from which they are moved into the indexed table. Default 2,000 (see DELTA_TABLE_SUFFIX). */
  deltaMoveRows?: number;
  /** ANN path: delta indices (one per merge) beyond which the index is retrained in the background. Default 8 (see MAX_INDEX_DELTAS). */
  maxIndexDeltas?: number;
  /** IVF partitions probed per ANN search (VECTOR_ANN_NPROBES). Default 128: with IVF_PQ ≈ half of the ~244 partitions at 1M rows (recall@10 0.996 on clustered 1M, 0.917 with 32 — bench:scale); with IVF_RQ and IVF_HNSW_SQ (~250k rows per partition) every partition up to 32M rows. */
  nprobes?: number;
  /** ANN candidates re-ranked by exact distance = refineFactor × limit (VECTOR_ANN_REFINE). Default 2 (IVF_RQ), 10 (IVF_PQ), 4 (IVF_HNSW_SQ). */
  refineFactor?: number;
  /**
   * The ANN index built when a collection crosses `indexMinRows` (VECTOR_ANN_INDEX): 'ivf_rq' (default;
   * RaBitQ 4-bit codes, every partition scanned: recall ≥ 0.99 whatever the vectors' structure, cost
   * linear in the rows; see RQ_BITS), 'ivf_pq' (a fraction of small partitions probed: for collections
   * far above 1M with clustered vectors) or 'hnsw_sq' (IVF_HNSW_SQ: fast searches, but LanceDB rebuilds
   * it whole on every merge of new rows — 10.6 min at 1M on 2 cores — so only for collections that are
   * mostly read; see DELTA_MOVE_ROWS_HNSW). A collection keeps the index it has until it is retrained.
   */
  annIndex?: AnnIndexKind;
  /** IVF_HNSW_SQ: candidates explored per graph search (VECTOR_ANN_EF; at least limit × refine). Default 100. */
  ef?: number;
}

export { ANN_INDEX_KINDS, type AnnIndexKind } from './vector-store.common';

/** The kind of an index as LanceDB's `listIndices` names it ("IvfPq", "IvfHnswSq", "IvfRq", …). */
function annKindOf(indexType: string): AnnIndexKind {
  if (/HNSW/i.test(indexType)) return 'hnsw_sq';
  if (/RQ/i.test(indexType)) return 'ivf_rq';
  return 'ivf_pq';
}

/** Refine factor per index kind when VECTOR_ANN_REFINE is not set (see the measurements at DELTA_MOVE_ROWS_HNSW and RQ_BITS). */
const DEFAULT_REFINE: Readonly<Record<AnnIndexKind, number>> = { ivf_pq: 10, hnsw_sq: 4, ivf_rq: 2 };

/** Name of the ANN index on `vector` (one per table; rebuilt with `replace`). */
const VECTOR_INDEX = 'vector_idx';
/** Extra ANN candidates per search so that ties at the k-th place are ordered by id. */
const ANN_TIE_SLACK = 4;
/** Above this many excluded ids a search excludes them in the `where` filter instead of over-fetching. */
const EXCLUDE_IN_WHERE = 64;
/**
 * Extra ANN candidates per search for the side table's quarantined ids (dropped after the search).
 * Few: the refine step reads refineFactor × limit full vectors, so the limit costs (100k × 512-d,
 * refine 10, k = 5: limit 9 → 12.9 ms, 17 → 13.7, 41 → 18.0, 73 → 22.6 ms); a query with more
 * quarantined texts among its candidates (an attacked question) takes the 4× retry.
 */
const SIDE_OVERFETCH = 8;
/**
 * Rows outside the ANN index (written since it was trained or last merged, by any process) from which
 * `optimize` folds them in. LanceDB scans those rows flat on every search, ~2 µs per row here
 * (512-d, 2 cores): 5,000 rows add ~10 ms to a search. Measured with bench:worker at 100k, where the
 * old per-process row counter had lost track (it was reset when a build finished, though rows kept
 * arriving during training, and never saw other processes' writes): 49,649 unindexed rows made
 * every search 113 ms; after the merge, 15 ms.
 */
const INDEX_MERGE_ROWS = 5_000;
/**
 * Small fragments (LanceDB's count) from which the table is compacted. Every small write (an upsert;
 * before the side table, every quarantine) adds a fragment, and each search pays for every fragment:
 * in bench:worker at 100k, 233 fragments (mostly one row each, from quarantines) made a search 46 ms;
 * compacted (1.2 s), 12 ms.
 */
const COMPACT_SMALL_FRAGMENTS = 32;
/** A process that only searches (a worker) checks the unindexed tail at most this often. */
const INDEX_CHECK_INTERVAL_MS = 30_000;
/** A collection this many times larger than when its index was trained gets a retrained index. */
const RETRAIN_GROWTH = 4;

const COLUMNS = ['id', 'vector', 'text', 'payload', 'quarantined'];
/** Ids per SQL `IN (…)` predicate. */
const ID_CHUNK = 1000;
/** Records per merge-insert. */
const UPSERT_CHUNK = 10_000;

interface Snapshot {
  /** Table version the content corresponds to (a lower bound: see `load`). */
  version: number;
  matrix: ExactMatrix;
  ids: string[];
  texts: string[];
  payloads: string[];
  quarantined: boolean[];
  /** 1/‖row‖ (0 for a zero vector); capacity ≥ ids.length. */
  invNorm: Float64Array;
  index: Map<string, number>;
}

interface CollectionState {
  name: string;
  table: lancedb.Table;
  dim: number;
  snapshot: Snapshot | null;
  loading: Promise<Snapshot> | null;
  writesSinceOptimize: number;
  /** True once the table has an ANN index on `vector` (any process may have built it): ANN path. */
  indexed: boolean;
  /** Table version at which `indexed` was last checked (only re-checked while false). */
  indexCheckedAt: number;
  /** Rows the current index was trained on (as known to this process), for retraining on growth. */
  indexTrainedRows: number;
  /** When this process last checked the index's upkeep (ms since epoch). */
  indexCheckedMs: number;
  /** Small fragments left by this process's last compaction (some are never merged). */
  smallFragmentsAfterCompaction: number;
  /** The background index build/merge, if one runs. */
  indexing: Promise<void> | null;
  /** ANN path: the ids quarantined through the side table (see QUARANTINE_TABLE_SUFFIX), as of `sideVersion`. */
  sideFlags: Set<string>;
  /** Version of the side table `sideFlags` was read at (-1 = read it again). */
  sideVersion: number;
  sideTable: lancedb.Table | null;
  /** This state is a delta table ("<collection>.delta"): always served exactly, never indexed. */
  isDelta: boolean;
  /** ANN path: the collection's delta table (see DELTA_TABLE_SUFFIX), opened on first use. */
  delta: Promise<CollectionState> | null;
  /** ANN path: the table's index kind (IVF_HNSW_SQ is searched with `ef`; see AnnIndexKind). */
  kind: AnnIndexKind;
}

/**
 * ANN path: quarantines are kept in a small side table "<collection>.quarantined" (ids only; '.' is not
 * allowed in collection names, so it never collides with one), not by updating the vector table.
 * A LanceDB update moves the row to a new fragment and leaves a deletion file on the indexed one, and
 * every later IVF_PQ search pays for that in proportion to the fragment's rows — measured: 100k rows
 * 9.4 → 18 ms, 300k 21.5 → 39.7 ms, 1M 31.6 → 79.9 ms (bench:scale `searchP50AfterQuarantinesMs`),
 * for good (compaction keeps deletions under 10% of a fragment). A text is quarantined when its row's
 * `quarantined` column is true (set at ingest, or by an update before the table was indexed) OR its
 * id is in the side table. Every process re-reads the side table when its version changes (~0.1 ms to
 * check); searches exclude its ids like any excluded id.
 */
const QUARANTINE_TABLE_SUFFIX = '.quarantined';

/**
 * ANN path: small writes (upserts of fewer than `deltaMoveRows` records: an API ingest, the worker's
 * enhancements) go to a delta table "<collection>.delta", not to the indexed table. Each process
 * serves the delta from an exact in-memory snapshot (the small-collection path) and merges its hits
 * with the index's; a delta row shadows the indexed row of the same id. Once the delta holds
 * `deltaMoveRows` rows, the upkeep job moves them into the indexed table in one write and merges the
 * index (`moveDelta`).
 * Why: the indexed table must stay fully covered by its index. As soon as it holds one row outside
 * the index, every search costs about twice as much — measured with LanceDB 0.37, IVF_PQ, k = 10,
 * refine 10: 100k × 512-d 12.1 → 23.9 ms with 1 unindexed row (24.8 with 100), 1M × 384-d 32.5 → 68 ms
 * with 100 — whatever the flat scan itself costs (`fastSearch`, which skips it, cost the same), until
 * `optimize` merges them. And merging after every small write is no way out: each merge adds a delta
 * index, and each costs every search ~1.2 ms (100k: 30 merges of 10 rows took it 11.9 → 48 ms).
 * Before, every write of another process (the API's ingests, the worker's enhancements) doubled the
 * searches' cost until 5,000 rows had piled up (bench:scale `foreignWriteNextSearchMs` 74–83 ms at
 * 1M against 33 ms without the write).
 */
const DELTA_TABLE_SUFFIX = '.delta';
/** Rows in the delta table from which the upkeep moves them into the indexed table. */
const DELTA_MOVE_ROWS = 2_000;
/** Delta indices (one per index merge) beyond which the index is retrained (~1.2 ms per search each). */
const MAX_INDEX_DELTAS = 8;
/**
 * The two ANN indices, measured on the same 1M × 384-d clustered table (2 cores, 40 queries, k = 10):
 * - IVF_PQ (~rows/4096 partitions, 48 sub-vectors, nprobes 128, refine 10): built in 71 s; p50 30–38 ms,
 *   recall@10 0.994; new rows merged as a delta index in seconds.
 * - IVF_HNSW_SQ (rows/250k partitions, all probed, m 20, ef_construction 150; ef 100, refine 4): built
 *   in 619 s; p50 9.0 ms, p99 14.0 ms, recall@10 0.997 (refine 1: 7.5 ms, 0.980); but `optimize` after
 *   2,000 new rows rebuilt the whole index (638 s) instead of adding a delta. Hence opt-in, with a
 *   larger delta table (DELTA_MOVE_ROWS_HNSW) so that moves are rare.
 */
const DELTA_MOVE_ROWS_HNSW = 20_000;
/**
 * IVF_RQ (RaBitQ): each dimension's residual quantised to this many bits, every partition probed
 * (~250k rows each; VECTOR_ANN_NPROBES' default 128 covers up to 32M rows). Measured on 1M × 384-d
 * random unit vectors (2 cores, 40 queries, k = 10, raw LanceDB 0.37 queries, 2026-11-24): 4 bits →
 * built in 21 s, recall@10 0.973 / 0.995 / 1.0 at refine 2 / 5 / 10 (p50 14.0 / 17.7 / 20.2 ms); 2 bits →
 * 0.75 at refine 5, 0.94 at refine 20; 1 bit at 200k → 0.97 only at refine 400 (36 ms). IVF_PQ on the
 * same table: recall 0.43 (its partitions say nothing about random vectors). Through this store
 * (bench:scale, k + 12 candidates asked): refine 2 / 3 / 5 → recall 0.9945 / 0.998 / 0.9985 at p50 19.1 /
 * 20.2 / 22.1 ms, hence the default refine 2 (clustered vectors: recall 1.0 at 11.6 ms). `optimize` after
 * 2,000 new rows at 1M took 29–31 s (the index is rewritten: one index, no delta indices piling up).
 */
const RQ_BITS = 4;

/** SQL condition on the rows whose flag a quarantine (true) or a restore (false) would change. */
const flagGuard = (quarantined: boolean): string => (quarantined ? '(quarantined IS NULL OR quarantined = false)' : 'quarantined = true');
const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
const idList = (ids: readonly string[]): string => ids.map(sqlString).join(', ');
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
const vectorType = (dim: number) => new FixedSizeList(dim, new Field('item', new Float32(), true));

function tableSchema(dim: number): Schema {
  return new Schema([
    new Field('id', new Utf8(), false),
    new Field('vector', vectorType(dim), false),
    new Field('text', new Utf8(), false),
    new Field('payload', new Utf8(), false),
    new Field('quarantined', new Bool(), true),
  ]);
}

/**
 * Row → a copy of its vector, for a FixedSizeList<Float32> column of one record batch: one slice of
 * the batch's flat float buffer per row instead of an Arrow list object per row (listPage, fetch and
 * the snapshot load all read vectors through it). Falls back to Arrow's accessor for a
 * column laid out otherwise (several chunks, nulls). `view`: subarrays of the batch's buffer, no copy
 * (listPage: a bulk read whose rows are all kept; the buffer lives as long as any of them).
 */
export function flatVectors(col: ArrowVector, view = false): (row: number) => Float32Array {
  const data = col.data.length === 1 ? col.data[0] : undefined;
  const child = data?.children[0];
  const size = (col.type as { listSize?: number }).listSize;
  if (!data || !child || !(child.values instanceof Float32Array) || !size || data.nullCount > 0) {
    return (row) => Float32Array.from((col.get(row) as { toArray(): Float32Array }).toArray());
  }
  // Arrow slices a list column's child values with it: row r's values start at r × size of the child's buffer.
  const values = child.values as Float32Array;
  return view ? (row) => values.subarray(row * size, (row + 1) * size) : (row) => values.slice(row * size, (row + 1) * size);
}

function inverseNorm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) {
    const x = Math.fround(v[i]);
    s += x * x;
  }
  return s > 0 ? 1 / Math.sqrt(s) : 0;
}

export class LanceDbVectorStore implements VectorStore {
  readonly kind = 'lancedb';
  private readonly dir: string;
  private readonly optimizeEvery: number;
  private readonly indexMinRows: number;
  private readonly autoIndex: boolean;
  private readonly nprobes: number;
  private readonly indexMergeRows: number;
  private readonly indexCheckIntervalMs: number;
  private readonly compactFragments: number;
  private readonly deltaMoveRowsOption: number | undefined;
  private readonly maxIndexDeltas: number;
  private readonly annIndex: AnnIndexKind;
  private readonly ef: number;
  private readonly refineOption: number | undefined;
  private connection: Promise<lancedb.Connection> | null = null;
  private readonly states = new Map<string, Promise<CollectionState | null>>();
  private readonly writes = new KeyedSerializer();
  private closed = false;

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

  /**
   * Merge-insert of records into one table (the collection's or its delta), patching this
   * process's snapshot. Records without an explicit flag are written without the column (see `upsert`).
   */
  private async writeRecords(state: CollectionState, clean: readonly VectorRecordInput[]): Promise<void> {
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
          .execute(this.toArrow(part, state.dim, withFlag));
        this.patch(state, result.version, (snap) => this.applyUpsert(snap, part));
        await this.afterWrite(state);
      }
    }
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
      return this.topK(snap, scores, j, req.k, excluded, req.includeQuarantined === true);
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

  /** listPage on the indexed table alone (ANN path). */
  private async indexedPage(state: CollectionState, after: string | null, limit: number, opts: { withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
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

  private async updateFlags(state: CollectionState, todo: readonly string[], quarantined: boolean): Promise<void> {
    const guard = flagGuard(quarantined);
    for (const part of chunks(todo, ID_CHUNK)) {
      const result = await state.table.update({
        valuesSql: { quarantined: quarantined ? 'true' : 'false' },
        where: `id IN (${idList(part)}) AND ${guard}`,
      });
      this.patch(state, result.version, (s) => {
        for (const id of part) {
          const row = s.index.get(id);
          if (row !== undefined) s.quarantined[row] = quarantined;
        }
      });
      await this.afterWrite(state);
    }
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

  /** Exact path (or a delta table): deletes the rows that exist, patching this process's snapshot. */
  private async exactDelete(state: CollectionState, wanted: readonly string[]): Promise<void> {
    if (wanted.length === 0) return;
    const snap = await this.fresh(state);
    const todo = wanted.filter((id) => snap.index.has(id));
    for (const part of chunks(todo, ID_CHUNK)) {
      const result = await state.table.delete(`id IN (${idList(part)})`);
      this.patch(state, result.version, (s) => this.applyDelete(s, part));
      await this.afterWrite(state);
    }
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

  // ---- connection and tables ----------------------------------------------------------------------

  private conn(): Promise<lancedb.Connection> {
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
  private state(collection: string): Promise<CollectionState | null> {
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

  private async requireState(collection: string): Promise<CollectionState> {
    const state = await this.state(collection);
    if (!state) {
      throw new CollectionNotFoundError(`Collection "${collection}" does not exist (call ensureCollection first)`);
    }
    return state;
  }

  private async describe(name: string, table: lancedb.Table, isDelta = false): Promise<CollectionState> {
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
  private withWriteLock<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    return this.writes.run(collection, fn);
  }

  private toArrow(records: readonly VectorRecordInput[], dim: number, withFlag: boolean): ArrowTable {
    const n = records.length;
    const flat = new Float32Array(n * dim);
    records.forEach((r, i) => {
      for (let d = 0; d < dim; d++) flat[i * dim + d] = r.vector[d];
    });
    const fields = tableSchema(dim).fields.filter((f) => withFlag || f.name !== 'quarantined');
    const schema = new Schema(fields);
    const children: Data[] = [
      vectorFromArray(records.map((r) => r.id), new Utf8()).data[0],
      makeData({
        type: vectorType(dim),
        length: n,
        nullCount: 0,
        child: makeData({ type: new Float32(), length: n * dim, nullCount: 0, data: flat }),
      }),
      vectorFromArray(records.map((r) => r.text), new Utf8()).data[0],
      vectorFromArray(records.map((r) => JSON.stringify(r.payload ?? {})), new Utf8()).data[0],
    ];
    if (withFlag) children.push(vectorFromArray(records.map((r) => r.quarantined === true), new Bool()).data[0]);
    const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
    return new ArrowTable(schema, new RecordBatch(schema, data));
  }

  /**
   * Applies this process's own committed write to the cached snapshot when the write is the very
   * next version after it (the content is then exactly snapshot + write); otherwise leaves the
   * snapshot alone — its version no longer matches and the next read reloads.
   */
  private patch(state: CollectionState, committed: number, apply: (snap: Snapshot) => void): void {
    const snap = state.snapshot;
    if (snap && snap.version === committed - 1) {
      apply(snap);
      snap.version = committed;
    }
  }

  private applyUpsert(snap: Snapshot, records: readonly VectorRecordInput[]): void {
    for (const r of records) {
      let row = snap.index.get(r.id);
      if (row === undefined) {
        row = snap.ids.length;
        snap.index.set(r.id, row);
        snap.ids.push(r.id);
        snap.texts.push('');
        snap.payloads.push('');
        snap.quarantined.push(false);
        if (row >= snap.invNorm.length) {
          const grown = new Float64Array(Math.max(16, Math.ceil(row * 1.5)));
          grown.set(snap.invNorm);
          snap.invNorm = grown;
        }
      }
      snap.matrix.setRow(row, r.vector);
      snap.texts[row] = r.text;
      snap.payloads[row] = JSON.stringify(r.payload ?? {});
      snap.invNorm[row] = inverseNorm(r.vector);
      if (r.quarantined !== undefined) snap.quarantined[row] = r.quarantined;
    }
  }

  /** Swap-remove: the last row moves into the hole (row order is irrelevant, ties break by id). */
  private applyDelete(snap: Snapshot, ids: readonly string[]): void {
    for (const id of ids) {
      const row = snap.index.get(id);
      if (row === undefined) continue;
      const last = snap.ids.length - 1;
      if (row !== last) {
        snap.matrix.moveRow(last, row);
        snap.ids[row] = snap.ids[last];
        snap.texts[row] = snap.texts[last];
        snap.payloads[row] = snap.payloads[last];
        snap.quarantined[row] = snap.quarantined[last];
        snap.invNorm[row] = snap.invNorm[last];
        snap.index.set(snap.ids[row], row);
      }
      snap.index.delete(id);
      snap.matrix.pop();
      snap.ids.pop();
      snap.texts.pop();
      snap.payloads.pop();
      snap.quarantined.pop();
    }
  }

  private async afterWrite(state: CollectionState): Promise<void> {
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
  private maintainIndex(state: CollectionState): void {
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
  private async moveDelta(state: CollectionState, delta: CollectionState): Promise<void> {
    const snap = await this.fresh(delta);
    if (snap.ids.length === 0) return;
    const moved = snap.ids.map((id, row) => ({
      id, vector: snap.matrix.row(row), text: snap.texts[row]!, payload: parsePayload(snap.payloads[row]!), quarantined: false, flagged: snap.quarantined[row]!, rawPayload: snap.payloads[row]!,
    }));
    const side = await this.sideFlags(state);
    await this.writeSide(state, moved.filter((r) => r.flagged && !side.has(r.id)).map((r) => r.id), true);
    for (const part of chunks(moved, UPSERT_CHUNK)) {
      await state.table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(this.toArrow(part, state.dim, true));
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
  private runIndexing(state: CollectionState, job: () => Promise<void>): Promise<void> {
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
  private async buildIndexNow(state: CollectionState): Promise<void> {
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
  private async annMode(state: CollectionState): Promise<boolean> {
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
  private deltaMoveRows(state: CollectionState): number {
    return this.deltaMoveRowsOption ?? (state.kind === 'hnsw_sq' ? DELTA_MOVE_ROWS_HNSW : DELTA_MOVE_ROWS);
  }

  private refineFor(state: CollectionState): number {
    return this.refineOption ?? DEFAULT_REFINE[state.kind];
  }

  /** ANN path: the collection's delta table (created on first use; any process may have, see DELTA_TABLE_SUFFIX). */
  private deltaOf(state: CollectionState): Promise<CollectionState> {
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
  private async sideTable(state: CollectionState): Promise<lancedb.Table> {
    if (!state.sideTable) {
      const conn = await this.conn();
      state.sideTable = await conn.createEmptyTable(state.name + QUARANTINE_TABLE_SUFFIX, new Schema([new Field('id', new Utf8(), false)]), { existOk: true });
    }
    return state.sideTable;
  }

  /** ANN path: the ids quarantined through the side table, re-read when its version changed. */
  private async sideFlags(state: CollectionState): Promise<ReadonlySet<string>> {
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
  private async writeSide(state: CollectionState, ids: readonly string[], quarantined: boolean): Promise<void> {
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
  private async annSearch(state: CollectionState, req: SearchRequest, shadowed: ReadonlyMap<string, number> = new Map()): Promise<ScoredHit[]> {
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

  private annHits(state: CollectionState, result: ArrowTable, excluded: { has(id: string): boolean }): ScoredHit[] {
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

  /** Stored records by id straight from the table (ANN path: there is no snapshot). */
  private async fetchRows(state: CollectionState, ids: readonly string[]): Promise<StoredRecord[]> {
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
  private async existingIds(state: CollectionState, ids: readonly string[], extra?: string): Promise<string[]> {
    const out: string[] = [];
    for (const part of chunks(ids, ID_CHUNK)) {
      const where = `id IN (${idList(part)})${extra ? ` AND ${extra}` : ''}`;
      const rows = await state.table.query().where(where).select(['id']).toArray();
      for (const r of rows) out.push(String((r as { id: unknown }).id));
    }
    return out;
  }

  private async optimizeNow(state: CollectionState, olderThanMs: number): Promise<void> {
    state.writesSinceOptimize = 0;
    try {
      await state.table.optimize({ cleanupOlderThan: new Date(Date.now() - olderThanMs) });
    } catch {
      // Maintenance only: a conflict with another process's commit is retried at the next round.
    }
  }

  // ---- reads --------------------------------------------------------------------------------------

  /** The snapshot for the latest committed version (reloaded when another process wrote). */
  private async fresh(state: CollectionState): Promise<Snapshot> {
    for (;;) {
      const latest = await state.table.version();
      const snap = state.snapshot;
      if (snap && snap.version >= latest) return snap;
      if (!state.loading) {
        const loading = this.load(state);
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

  /**
   * Reads the whole table. The version is read BEFORE the scan, so the label is a lower bound of the
   * content: a concurrent commit can only cause one extra reload, never a stale snapshot.
   */
  private async load(state: CollectionState): Promise<Snapshot> {
    const version = await state.table.version();
    const table = await state.table.query().select(COLUMNS).toArrow();
    const n = table.numRows;
    const matrix = new ExactMatrix(state.dim, n);
    const snap: Snapshot = {
      version,
      matrix,
      ids: new Array<string>(n),
      texts: new Array<string>(n),
      payloads: new Array<string>(n),
      quarantined: new Array<boolean>(n),
      invNorm: new Float64Array(n),
      index: new Map(),
    };
    let row = 0;
    for (const batch of table.batches) {
      const ids = batch.getChild('id');
      const vectorCol = batch.getChild('vector');
      const texts = batch.getChild('text');
      const payloads = batch.getChild('payload');
      const flags = batch.getChild('quarantined');
      if (!ids || !vectorCol || !texts || !payloads || !flags) throw new VectorStoreError(`Table "${state.name}" lost a column`);
      const vectorOf = flatVectors(vectorCol, true); // setRow copies it into the matrix
      for (let i = 0; i < batch.numRows; i++, row++) {
        const id = ids.get(i) as string;
        const vector = vectorOf(i);
        snap.ids[row] = id;
        snap.index.set(id, row);
        matrix.setRow(row, vector);
        snap.invNorm[row] = inverseNorm(vector);
        snap.texts[row] = texts.get(i) as string;
        snap.payloads[row] = payloads.get(i) as string;
        snap.quarantined[row] = flags.get(i) === true;
      }
    }
    return snap;
  }

  /**
   * Top-k of query j. Excluded rows are not tested in the hot loop: the scan keeps the best
   * k + |excluded| candidates and the excluded ones are dropped afterwards (same result).
   */
  private topK(
    snap: Snapshot,
    scores: Float32Array,
    j: number,
    k: number,
    excluded: ReadonlySet<number>,
    includeQuarantined: boolean,
  ): ScoredHit[] {
    let rows: number[] = [];
    let vals: number[] = [];
    const keep = k > 0 ? k + excluded.size : 0;
    if (keep > 0) {
      const { ids, invNorm, quarantined } = snap;
      const n = ids.length;
      const base = j * n;
      let worst = -Infinity; // score of the last kept candidate once `keep` are held
      for (let r = 0; r < n; r++) {
        // (clamp inlined: no cross-module call in the hot loop — bundlers compile exports to getters)
        const raw = scores[base + r] * invNorm[r];
        const s = raw > 1 ? 1 : raw < -1 ? -1 : raw;
        if (s < worst) continue;
        if (!includeQuarantined && quarantined[r]) continue;
        let p = rows.length;
        if (p === keep) {
          if (s === worst && ids[r] > ids[rows[keep - 1]]) continue;
          p = keep - 1; // evict the worst
        }
        while (p > 0 && (vals[p - 1] < s || (vals[p - 1] === s && ids[rows[p - 1]] > ids[r]))) {
          rows[p] = rows[p - 1];
          vals[p] = vals[p - 1];
          p--;
        }
        rows[p] = r;
        vals[p] = s;
        if (rows.length === keep) worst = vals[keep - 1];
      }
      if (excluded.size > 0) {
        const kept = rows.map((r, i) => i).filter((i) => !excluded.has(rows[i])).slice(0, k);
        vals = kept.map((i) => vals[i]);
        rows = kept.map((i) => rows[i]);
      }
    }
    const hits = rows.map((r, i) => ({
      id: snap.ids[r],
      score: vals[i],
      text: snap.texts[r],
      payload: parsePayload(snap.payloads[r]),
    }));
    // Already in order; the sort documents (and guards) the contract: score desc, then id asc.
    return hits.sort(compareHits);
  }
}
