/**
 * Validation, errors and ordering shared by the VectorStore adapters, so that both behave the same
 * way under the contract suite (test/vector-store.contract.test.ts).
 */
import type { SearchRequest, VectorRecord } from '@forensics/core';

export const COLLECTION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The embedded store's ANN index kinds (VECTOR_ANN_INDEX); here, not in the LanceDB adapter, so that the
 * configuration reads the same list without loading LanceDB. See `LanceDbVectorStoreOptions.annIndex`.
 */
export const ANN_INDEX_KINDS = ['ivf_pq', 'hnsw_sq', 'ivf_rq'] as const;
export type AnnIndexKind = (typeof ANN_INDEX_KINDS)[number];
export const DEFAULT_ANN_INDEX: AnnIndexKind = 'ivf_rq';

/** Base class: every error raised on purpose by a VectorStore adapter. */
export class VectorStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
export class InvalidCollectionNameError extends VectorStoreError {}
export class CollectionNotFoundError extends VectorStoreError {}
export class DimensionMismatchError extends VectorStoreError {}
export class InvalidRecordError extends VectorStoreError {}

/**
 * A record may optionally say whether it is quarantined (the port: "a replaced record keeps its
 * quarantine flag unless `quarantined` is given").
 */
export type VectorRecordInput = VectorRecord & { quarantined?: boolean };

export function assertCollectionName(collection: unknown): asserts collection is string {
  if (typeof collection !== 'string' || !COLLECTION_NAME_PATTERN.test(collection)) {
    throw new InvalidCollectionNameError(
      `Invalid collection name ${JSON.stringify(collection)}: use 1-64 characters from A-Z, a-z, 0-9, '_' and '-'`,
    );
  }
}

export function assertDimension(dimension: unknown): asserts dimension is number {
  if (typeof dimension !== 'number' || !Number.isInteger(dimension) || dimension < 1 || dimension > 65536) {
    throw new InvalidRecordError(`Invalid vector dimension ${String(dimension)}: expected an integer in 1..65536`);
  }
}

export function assertVector(collection: string, vector: ArrayLike<number>, dimension: number, what: string): void {
  if (vector == null || typeof vector.length !== 'number') {
    throw new InvalidRecordError(`${what}: vector is missing`);
  }
  if (vector.length !== dimension) {
    throw new DimensionMismatchError(
      `${what}: vector has dimension ${vector.length} but collection "${collection}" has dimension ${dimension}`,
    );
  }
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i])) throw new InvalidRecordError(`${what}: vector[${i}] is not a finite number`);
  }
}

export function assertK(k: unknown, what: string): asserts k is number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) {
    throw new InvalidRecordError(`${what}: k must be a non-negative integer, got ${String(k)}`);
  }
}

/**
 * Validates records and de-duplicates them by id (the last occurrence wins, as if applied in order).
 */
export function normaliseRecords(
  collection: string,
  records: readonly VectorRecordInput[],
  dimension: number,
  checkId: (id: string) => boolean = (id) => id.length > 0,
): VectorRecordInput[] {
  if (!Array.isArray(records)) throw new InvalidRecordError('upsert: records must be an array');
  const byId = new Map<string, VectorRecordInput>();
  records.forEach((r, i) => {
    const what = `upsert: record ${i}`;
    if (r == null || typeof r !== 'object') throw new InvalidRecordError(`${what} is not an object`);
    if (typeof r.id !== 'string' || !checkId(r.id)) {
      throw new InvalidRecordError(`${what}: invalid id ${JSON.stringify(r.id)}`);
    }
    assertVector(collection, r.vector, dimension, `${what} (${r.id})`);
    if (typeof r.text !== 'string') throw new InvalidRecordError(`${what} (${r.id}): text must be a string`);
    if (r.payload !== undefined && (r.payload === null || typeof r.payload !== 'object' || Array.isArray(r.payload))) {
      throw new InvalidRecordError(`${what} (${r.id}): payload must be a plain object`);
    }
    if (r.quarantined !== undefined && typeof r.quarantined !== 'boolean') {
      throw new InvalidRecordError(`${what} (${r.id}): quarantined must be a boolean when given`);
    }
    byId.delete(r.id); // keep the order of the last occurrence
    byId.set(r.id, r);
  });
  return [...byId.values()];
}

/** Unique, string-only ids, order of first occurrence. */
export function uniqueIds(ids: readonly string[]): string[] {
  if (!Array.isArray(ids)) throw new InvalidRecordError('ids must be an array');
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0))];
}

/** Best first: higher score, then smaller id (plain UTF-16 code unit order, like Array#sort). */
export function compareHits(a: { score: number; id: string }, b: { score: number; id: string }): number {
  if (a.score !== b.score) return b.score > a.score ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function clampCosine(score: number): number {
  return score > 1 ? 1 : score < -1 ? -1 : score;
}

export function validateSearchRequests(
  collection: string,
  requests: readonly SearchRequest[],
  dimension: number,
): void {
  if (!Array.isArray(requests)) throw new InvalidRecordError('searchBatch: requests must be an array');
  requests.forEach((req, i) => {
    const what = `search request ${i}`;
    if (req == null || typeof req !== 'object') throw new InvalidRecordError(`${what} is not an object`);
    assertK(req.k, what);
    assertVector(collection, req.vector, dimension, what);
    if (req.excludeIds !== undefined && !Array.isArray(req.excludeIds)) {
      throw new InvalidRecordError(`${what}: excludeIds must be an array`);
    }
  });
}

/** JSON payload column → object (a fresh object per call, callers may mutate it). */
export function parsePayload(raw: string | null | undefined): Record<string, unknown> {
  if (!raw) return {};
  const value: unknown = JSON.parse(raw);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Runs tasks one after the other per key (in-process write serialisation per collection). */
export class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves when every task queued so far has settled. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.tails.values()]);
  }
}
