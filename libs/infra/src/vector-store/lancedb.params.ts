/**
 * Tuning parameters of the embedded LanceDB vector store (lancedb-vector-store.adapter.ts): its options and
 * the constants behind their defaults, with the measurements that chose them. Split out of the adapter
 * (issue 34) unchanged.
 */
import type { AnnIndexKind } from './vector-store.common';

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

/** Refine factor per index kind when VECTOR_ANN_REFINE is not set (see the measurements at DELTA_MOVE_ROWS_HNSW and RQ_BITS). */
export const DEFAULT_REFINE: Readonly<Record<AnnIndexKind, number>> = { ivf_pq: 10, hnsw_sq: 4, ivf_rq: 2 };

/** Name of the ANN index on `vector` (one per table; rebuilt with `replace`). */
export const VECTOR_INDEX = 'vector_idx';
/** Extra ANN candidates per search so that ties at the k-th place are ordered by id. */
export const ANN_TIE_SLACK = 4;
/** Above this many excluded ids a search excludes them in the `where` filter instead of over-fetching. */
export const EXCLUDE_IN_WHERE = 64;
/**
 * Extra ANN candidates per search for the side table's quarantined ids (dropped after the search).
 * Few: the refine step reads refineFactor × limit full vectors, so the limit costs (100k × 512-d,
 * refine 10, k = 5: limit 9 → 12.9 ms, 17 → 13.7, 41 → 18.0, 73 → 22.6 ms); a query with more
 * quarantined texts among its candidates (an attacked question) takes the 4× retry.
 */
export const SIDE_OVERFETCH = 8;
/**
 * Rows outside the ANN index (written since it was trained or last merged, by any process) from which
 * `optimize` folds them in. LanceDB scans those rows flat on every search, ~2 µs per row here
 * (512-d, 2 cores): 5,000 rows add ~10 ms to a search. Measured with bench:worker at 100k, where the
 * old per-process row counter had lost track (it was reset when a build finished, though rows kept
 * arriving during training, and never saw other processes' writes): 49,649 unindexed rows made
 * every search 113 ms; after the merge, 15 ms.
 */
export const INDEX_MERGE_ROWS = 5_000;
/**
 * Small fragments (LanceDB's count) from which the table is compacted. Every small write (an upsert;
 * before the side table, every quarantine) adds a fragment, and each search pays for every fragment:
 * in bench:worker at 100k, 233 fragments (mostly one row each, from quarantines) made a search 46 ms;
 * compacted (1.2 s), 12 ms.
 */
export const COMPACT_SMALL_FRAGMENTS = 32;
/** A process that only searches (a worker) checks the unindexed tail at most this often. */
export const INDEX_CHECK_INTERVAL_MS = 30_000;
/** A collection this many times larger than when its index was trained gets a retrained index. */
export const RETRAIN_GROWTH = 4;

export const COLUMNS = ['id', 'vector', 'text', 'payload', 'quarantined'];
/** Ids per SQL `IN (…)` predicate. */
export const ID_CHUNK = 1000;
/** Records per merge-insert. */
export const UPSERT_CHUNK = 10_000;

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
export const QUARANTINE_TABLE_SUFFIX = '.quarantined';

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
export const DELTA_TABLE_SUFFIX = '.delta';
/** Rows in the delta table from which the upkeep moves them into the indexed table. */
export const DELTA_MOVE_ROWS = 2_000;
/** Delta indices (one per index merge) beyond which the index is retrained (~1.2 ms per search each). */
export const MAX_INDEX_DELTAS = 8;
/**
 * The two ANN indices, measured on the same 1M × 384-d clustered table (2 cores, 40 queries, k = 10):
 * - IVF_PQ (~rows/4096 partitions, 48 sub-vectors, nprobes 128, refine 10): built in 71 s; p50 30–38 ms,
 *   recall@10 0.994; new rows merged as a delta index in seconds.
 * - IVF_HNSW_SQ (rows/250k partitions, all probed, m 20, ef_construction 150; ef 100, refine 4): built
 *   in 619 s; p50 9.0 ms, p99 14.0 ms, recall@10 0.997 (refine 1: 7.5 ms, 0.980); but `optimize` after
 *   2,000 new rows rebuilt the whole index (638 s) instead of adding a delta. Hence opt-in, with a
 *   larger delta table (DELTA_MOVE_ROWS_HNSW) so that moves are rare.
 */
export const DELTA_MOVE_ROWS_HNSW = 20_000;
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
export const RQ_BITS = 4;
