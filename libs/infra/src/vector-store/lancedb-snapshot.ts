/**
 * The in-process snapshot of a LanceDB table (exact serving path) and the Arrow / SQL helpers the
 * LanceDB vector store is built from: the per-collection state, loading a snapshot, patching it with
 * this process's own writes, the exact top-k over it. Split out of lancedb-vector-store.adapter.ts
 * (issue 34) unchanged.
 */
import type * as lancedb from '@lancedb/lancedb';
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
import type { ScoredHit } from '@forensics/core';
import { ExactMatrix } from './exact-kernel';
import { COLUMNS } from './lancedb.params';
import { type AnnIndexKind, compareHits, parsePayload, VectorStoreError, type VectorRecordInput } from './vector-store.common';

/** The kind of an index as LanceDB's `listIndices` names it ("IvfPq", "IvfHnswSq", "IvfRq", …). */
export function annKindOf(indexType: string): AnnIndexKind {
  if (/HNSW/i.test(indexType)) return 'hnsw_sq';
  if (/RQ/i.test(indexType)) return 'ivf_rq';
  return 'ivf_pq';
}

export interface Snapshot {
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

export interface CollectionState {
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

/** SQL condition on the rows whose flag a quarantine (true) or a restore (false) would change. */
export const flagGuard = (quarantined: boolean): string => (quarantined ? '(quarantined IS NULL OR quarantined = false)' : 'quarantined = true');
export const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
export const idList = (ids: readonly string[]): string => ids.map(sqlString).join(', ');
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
export const vectorType = (dim: number) => new FixedSizeList(dim, new Field('item', new Float32(), true));

export function tableSchema(dim: number): Schema {
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

export function inverseNorm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) {
    const x = Math.fround(v[i]);
    s += x * x;
  }
  return s > 0 ? 1 / Math.sqrt(s) : 0;
}

export function toArrow(records: readonly VectorRecordInput[], dim: number, withFlag: boolean): ArrowTable {
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
export function patch(state: CollectionState, committed: number, apply: (snap: Snapshot) => void): void {
  const snap = state.snapshot;
  if (snap && snap.version === committed - 1) {
    apply(snap);
    snap.version = committed;
  }
}

export function applyUpsert(snap: Snapshot, records: readonly VectorRecordInput[]): void {
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
export function applyDelete(snap: Snapshot, ids: readonly string[]): void {
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

/**
 * Reads the whole table. The version is read BEFORE the scan, so the label is a lower bound of the
 * content: a concurrent commit can only cause one extra reload, never a stale snapshot.
 */
export async function load(state: CollectionState): Promise<Snapshot> {
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
export function topK(
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
