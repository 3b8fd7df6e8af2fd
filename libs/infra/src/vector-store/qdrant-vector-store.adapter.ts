/**
 * Production VectorStore over a Qdrant server (`@qdrant/js-client-rest`; the only file importing it).
 *
 * Collection layout (created by `ensureCollection`, name = collectionPrefix + collection):
 * - named vector `dense`: Cosine distance, HNSW — used for every search;
 * - named vector `raw`: the vector exactly as written (Dot distance, on disk, no HNSW graph) — used
 *   only by `fetch`. Qdrant normalises Cosine vectors on upload, so `dense` alone cannot give back the
 *   stored vector bit-exactly; `raw` does (float32), which the contract requires;
 * - payload `{ text, payload, quarantined }` with a bool payload index on `quarantined`.
 * Quarantine is the payload flag, excluded with a `must_not` filter; `excludeIds` are a `has_id`
 * `must_not`. `searchBatch` is one request to the batch query endpoint (/points/query/batch).
 * Writes use `wait: true`, so a write is visible to every reader when it resolves.
 *
 * Ids must be UUIDs (Qdrant accepts only UUIDs or integers); they are used lower-case, as Qdrant
 * returns them. Ties: Qdrant does not order equal scores, so each search asks for a few extra points
 * (`tieSlack`) and orders by score then id.
 */
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import {
  assertCollectionName,
  assertDimension,
  clampCosine,
  CollectionNotFoundError,
  compareHits,
  DimensionMismatchError,
  InvalidCollectionNameError,
  KeyedSerializer,
  normaliseRecords,
  uniqueIds,
  validateSearchRequests,
  VectorStoreError,
  type VectorRecordInput,
} from './vector-store.common';
import { chunks, QDRANT_ID_CHUNK as ID_CHUNK, qdrantClient, queryBatchHits, searchFilter, statusOf } from './qdrant.common';

export interface QdrantVectorStoreOptions {
  url: string;
  apiKey?: string;
  /** Prepended to every collection name (e.g. 'forensics_'); same character set as collection names. */
  collectionPrefix?: string;
  /** Force exact (brute-force) search instead of HNSW. Default false. */
  exactSearch?: boolean;
  /** Extra points requested per search so that ties at the k-th place are ordered by id. Default 8. */
  tieSlack?: number;
  /** Request timeout in ms. Default 30 s. */
  timeoutMs?: number;
}

const DENSE = 'dense';
const RAW = 'raw';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WRITE_CHUNK = 256;

interface QdrantPayload {
  text?: unknown;
  payload?: unknown;
  quarantined?: unknown;
}

const isUuid = (id: string): boolean => UUID.test(id);
const normaliseId = (id: string): string => id.toLowerCase();

function asPayloadObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
}

export class QdrantVectorStore implements VectorStore {
  readonly kind = 'qdrant';
  private readonly client: QdrantClient;
  private readonly prefix: string;
  private readonly exactSearch: boolean;
  private readonly tieSlack: number;
  private readonly dims = new Map<string, number>();
  private readonly writes = new KeyedSerializer();
  private closed = false;

  constructor(options: QdrantVectorStoreOptions) {
    if (!options || typeof options.url !== 'string' || options.url.length === 0) {
      throw new VectorStoreError('QdrantVectorStore: `url` is required');
    }
    this.prefix = options.collectionPrefix ?? '';
    if (!/^[A-Za-z0-9_-]{0,64}$/.test(this.prefix)) {
      throw new InvalidCollectionNameError(`Invalid Qdrant collection prefix ${JSON.stringify(this.prefix)}`);
    }
    this.exactSearch = options.exactSearch ?? false;
    this.tieSlack = Math.max(0, Math.floor(options.tieSlack ?? 8));
    this.client = qdrantClient(options);
  }

  // ---- VectorStore --------------------------------------------------------------------------------

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    assertCollectionName(collection);
    assertDimension(dimension);
    this.assertOpen();
    const name = this.qname(collection);
    await this.writes.run(collection, async () => {
      let existing = await this.dimensionOf(collection);
      if (existing === null) {
        try {
          await this.client.createCollection(name, {
            vectors: {
              [DENSE]: { size: dimension, distance: 'Cosine' },
              [RAW]: { size: dimension, distance: 'Dot', on_disk: true, hnsw_config: { m: 0 } },
            },
          });
        } catch (error) {
          // 409: another process created it meanwhile — fall through to the dimension check.
          if (statusOf(error) !== 409) throw error;
        }
        await this.client.createPayloadIndex(name, { field_name: 'quarantined', field_schema: 'bool', wait: true });
        this.dims.delete(collection);
        existing = await this.dimensionOf(collection);
        if (existing === null) throw new VectorStoreError(`Qdrant collection "${name}" could not be created`);
      }
      if (existing !== dimension) {
        throw new DimensionMismatchError(
          `Collection "${collection}" exists with dimension ${existing}, requested ${dimension}`,
        );
      }
    });
  }

  /**
   * Replaces whole points; to keep the quarantine flag of replaced points it is read first and written
   * back (in-process writes are serialised per collection; across processes the window between the
   * read and the write is the only race, and Postgres stays the source of truth for quarantine).
   */
  async upsert(collection: string, records: readonly VectorRecordInput[]): Promise<void> {
    assertCollectionName(collection);
    const dim = await this.requireDimension(collection);
    const clean = normaliseRecords(collection, records, dim, isUuid);
    if (clean.length === 0) return;
    const name = this.qname(collection);
    await this.writes.run(collection, async () => {
      for (const part of chunks(clean, WRITE_CHUNK)) {
        const unknownFlag = part.filter((r) => r.quarantined === undefined).map((r) => normaliseId(r.id));
        const flags = new Map<string, boolean>();
        if (unknownFlag.length > 0) {
          const existing = await this.client.retrieve(name, {
            ids: unknownFlag,
            with_payload: { include: ['quarantined'] },
            with_vector: false,
          });
          for (const p of existing) flags.set(String(p.id), (p.payload as QdrantPayload | null)?.quarantined === true);
        }
        await this.client.upsert(name, {
          wait: true,
          points: part.map((r) => {
            const id = normaliseId(r.id);
            const vector = Array.from(r.vector, Number);
            return {
              id,
              vector: { [DENSE]: vector, [RAW]: vector },
              payload: {
                text: r.text,
                payload: r.payload ?? {},
                quarantined: r.quarantined ?? flags.get(id) ?? false,
              },
            };
          }),
        });
      }
    });
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const [hits] = await this.searchBatch(collection, [request]);
    return hits;
  }

  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    assertCollectionName(collection);
    const dim = await this.requireDimension(collection);
    validateSearchRequests(collection, requests, dim);
    if (requests.length === 0) return [];
    return this.call(collection, () => queryBatchHits(
      requests,
      (searches) => this.client.queryBatch(this.qname(collection), { searches }),
      (r) => ({
        query: Array.from(r.vector, Number),
        using: DENSE,
        limit: r.k + this.tieSlack,
        filter: searchFilter(r, 'quarantined', uniqueIds(r.excludeIds ?? []).filter(isUuid).map(normaliseId)),
        with_payload: true,
        with_vector: false,
        params: this.exactSearch ? { exact: true } : undefined,
      }),
      (points, r) => points
        .map((p) => {
          const payload = (p.payload ?? {}) as QdrantPayload;
          return {
            id: String(p.id),
            score: clampCosine(p.score),
            text: typeof payload.text === 'string' ? payload.text : '',
            payload: asPayloadObject(payload.payload),
          };
        })
        .sort(compareHits)
        .slice(0, r.k),
    ));
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    assertCollectionName(collection);
    this.assertOpen();
    const wanted = uniqueIds(ids).filter(isUuid).map(normaliseId);
    if (wanted.length === 0) return [];
    const found = new Map<string, StoredRecord>();
    for (const part of chunks(wanted, ID_CHUNK)) {
      let points;
      try {
        points = await this.client.retrieve(this.qname(collection), {
          ids: part,
          with_payload: true,
          with_vector: [RAW],
        });
      } catch (error) {
        if (statusOf(error) === 404) return [];
        throw error;
      }
      for (const p of points) {
        const payload = (p.payload ?? {}) as QdrantPayload;
        const vectors = p.vector as Record<string, unknown> | null | undefined;
        const raw = vectors && !Array.isArray(vectors) ? vectors[RAW] : undefined;
        found.set(String(p.id), {
          id: String(p.id),
          vector: Float32Array.from(Array.isArray(raw) ? (raw as number[]) : []),
          text: typeof payload.text === 'string' ? payload.text : '',
          payload: asPayloadObject(payload.payload),
          quarantined: payload.quarantined === true,
        });
      }
    }
    return wanted.map((id) => found.get(id)).filter((r): r is StoredRecord => r !== undefined);
  }

  /** Pages ordered by id: Qdrant's scroll (ordered by point id; `offset` is inclusive, so the page starts after `after`). */
  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    assertCollectionName(collection);
    this.assertOpen();
    const limit = Math.max(1, Math.floor(opts.limit));
    const after = opts.after ? normaliseId(opts.after) : null;
    let res;
    try {
      res = await this.client.scroll(this.qname(collection), {
        limit: limit + 2, ...(after ? { offset: after } : {}), with_payload: true, with_vector: opts.withVectors ? [RAW] : false,
      });
    } catch (error) {
      if (statusOf(error) === 404) return { records: [], next: null };
      throw error;
    }
    const points = res.points.filter((p) => after === null || String(p.id) > after);
    const page = points.slice(0, limit);
    const records = page.map((p) => {
      const payload = (p.payload ?? {}) as QdrantPayload;
      const vectors = p.vector as Record<string, unknown> | null | undefined;
      const raw = vectors && !Array.isArray(vectors) ? vectors[RAW] : undefined;
      return {
        id: String(p.id), quarantined: payload.quarantined === true, payload: asPayloadObject(payload.payload),
        ...(opts.withText ? { text: typeof payload.text === 'string' ? payload.text : '' } : {}),
        ...(opts.withVectors ? { vector: Float32Array.from(Array.isArray(raw) ? (raw as number[]) : []) } : {}),
      };
    });
    const more = points.length > page.length || (res.next_page_offset !== null && res.next_page_offset !== undefined);
    return { records, next: more && page.length > 0 ? String(page[page.length - 1]!.id) : null };
  }

  /** Qdrant's distance matrix (`searchMatrixPairs`, server ≥ 1.12): `sample` random served points, each with its `k` nearest among them; all points when `sample` ≥ the collection. */
  async similarityPairs(collection: string, opts: { k: number; sample: number }): Promise<{ a: string; b: string; score: number }[]> {
    assertCollectionName(collection);
    this.assertOpen();
    let res;
    try {
      res = await this.client.searchMatrixPairs(this.qname(collection), {
        sample: Math.max(1, Math.floor(opts.sample)), limit: Math.max(1, Math.floor(opts.k)), using: DENSE,
        filter: { must_not: [{ key: 'quarantined', match: { value: true } }] },
      });
    } catch (error) {
      if (statusOf(error) === 404) return [];
      throw error;
    }
    return res.pairs.map((p) => ({ a: String(p.a), b: String(p.b), score: clampCosine(p.score) }));
  }

  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    assertCollectionName(collection);
    if (typeof quarantined !== 'boolean') throw new VectorStoreError('setQuarantined: `quarantined` must be a boolean');
    this.assertOpen();
    const wanted = uniqueIds(ids).filter(isUuid).map(normaliseId);
    if (wanted.length === 0 || !(await this.exists(collection))) return;
    const name = this.qname(collection);
    await this.writes.run(collection, async () => {
      for (const part of chunks(wanted, ID_CHUNK)) {
        // A filter (not a point list): unknown ids are ignored instead of failing the request.
        await this.client.setPayload(name, {
          payload: { quarantined },
          filter: { must: [{ has_id: part }] },
          wait: true,
        });
      }
    });
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    this.assertOpen();
    const wanted = uniqueIds(ids).filter(isUuid).map(normaliseId);
    if (wanted.length === 0 || !(await this.exists(collection))) return;
    const name = this.qname(collection);
    await this.writes.run(collection, async () => {
      for (const part of chunks(wanted, ID_CHUNK)) {
        await this.client.delete(name, { filter: { must: [{ has_id: part }] }, wait: true });
      }
    });
  }

  async count(collection: string): Promise<number> {
    assertCollectionName(collection);
    this.assertOpen();
    try {
      const { count } = await this.client.count(this.qname(collection), { exact: true });
      return count;
    } catch (error) {
      if (statusOf(error) === 404) return 0;
      throw error;
    }
  }

  /** Removes the collection and its data (not part of the port: tests and operations). */
  async dropCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    this.assertOpen();
    await this.writes.run(collection, async () => {
      this.dims.delete(collection);
      if (await this.exists(collection)) await this.client.deleteCollection(this.qname(collection));
    });
  }

  async health(): Promise<void> {
    this.assertOpen();
    await this.client.getCollections();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.writes.drain();
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private qname(collection: string): string {
    return `${this.prefix}${collection}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new VectorStoreError('QdrantVectorStore is closed');
  }

  private async exists(collection: string): Promise<boolean> {
    if (this.dims.has(collection)) return true;
    const { exists } = await this.client.collectionExists(this.qname(collection));
    return exists;
  }

  /** The `dense` vector size, or null when the collection does not exist. Cached once known. */
  private async dimensionOf(collection: string): Promise<number | null> {
    const cached = this.dims.get(collection);
    if (cached !== undefined) return cached;
    const name = this.qname(collection);
    if (!(await this.client.collectionExists(name)).exists) return null;
    const info = await this.client.getCollection(name);
    const vectors = info.config.params.vectors as Record<string, { size?: unknown } | undefined> | undefined;
    const size = vectors?.[DENSE]?.size;
    if (typeof size !== 'number') {
      throw new VectorStoreError(
        `Qdrant collection "${name}" was not created by this adapter (no "${DENSE}" named vector)`,
      );
    }
    this.dims.set(collection, size);
    return size;
  }

  private async requireDimension(collection: string): Promise<number> {
    this.assertOpen();
    const dim = await this.dimensionOf(collection);
    if (dim === null) {
      throw new CollectionNotFoundError(`Collection "${collection}" does not exist (call ensureCollection first)`);
    }
    return dim;
  }

  /** Runs a read; a 404 (collection dropped meanwhile) becomes CollectionNotFoundError. */
  private async call<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (statusOf(error) === 404) {
        this.dims.delete(collection);
        throw new CollectionNotFoundError(`Collection "${collection}" does not exist`);
      }
      throw error;
    }
  }
}
