/**
 * Attach mode: the service works on the RAG app's EXISTING Qdrant collection instead of re-ingesting
 * it into a collection of its own (issue 15, item 4). Configuration (qdrant-attach.mapping.ts):
 * the app's collection, the payload key of the text, the vector name (or the default vector), the id
 * type (uuid | integer) and the quarantine flag key (default `rf_quarantined`).
 *
 * What it does to the app's collection — and nothing else:
 * - reads: `query/batch` searches on the configured vector, `retrieve`, `count`, collection info;
 * - quarantine/restore: `set_payload` of the flag key ONLY (`{ "rf_quarantined": true|false }`) on the
 *   points named; the app excludes flagged points from its own searches with
 *   `must_not: [{ key: "rf_quarantined", match: { value: true } }]` (README, "Attach to an existing
 *   Qdrant collection"); the service's searches add the same condition.
 * It never upserts, deletes or rewrites the app's points.
 *
 * The service's own records for that collection (benign-text-enhancement proxies, anything ingested
 * through the service) go to a separate collection of ours, `rf_own_<name>`, managed by the normal
 * QdrantVectorStore (named vectors, its own `quarantined` flag). Searches query both and merge by
 * score (ties by id), so the traceback sees one collection; the app itself never sees our proxies.
 * `delete` removes our own records; an app point asked to be deleted (a purge, or a duplicate text
 * folded into its registered twin by RunTraceback's registerUnknown) is withdrawn from serving with the
 * same flag instead — it stays in the app's collection (deleting the app's data is the app's decision),
 * but neither the app's searches nor ours return it again.
 *
 * Ids: the app's point ids map to our document ids deterministically (`documentIdOf`/`pointIdOf`):
 * UUIDs as is, integers to a reversible UUID. Texts are registered in Postgres lazily when a search
 * returns them (RunTraceback's registerUnknown; `payload.externalId` = the app's point id).
 * Other collection names than the attached one are served by the normal QdrantVectorStore.
 */
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import {
  documentIdOf,
  pointIdOf,
  resolveAttachConfig,
  servicePayloadOf,
  textOf,
  type QdrantAttachConfig,
} from './qdrant-attach.mapping';
import { QdrantVectorStore } from './qdrant-vector-store.adapter';
import { chunks, QDRANT_ID_CHUNK as ID_CHUNK, qdrantClient, type QdrantPointId as PointId, queryBatchHits, searchFilter, statusOf } from './qdrant.common';
import {
  assertCollectionName,
  assertDimension,
  clampCosine,
  CollectionNotFoundError,
  compareHits,
  DimensionMismatchError,
  uniqueIds,
  validateSearchRequests,
  VectorStoreError,
  type VectorRecordInput,
} from './vector-store.common';

export interface QdrantAttachedVectorStoreOptions {
  url: string;
  apiKey?: string;
  attach: QdrantAttachConfig & {
    /** The service's name for the attached collection (feedback's `collection`); default = the Qdrant name. */
    serviceCollection?: string;
  };
  /** Extra points per search so that ties at the k-th place are ordered by id. Default 8. */
  tieSlack?: number;
  timeoutMs?: number;
}

const OWN_PREFIX = 'rf_own_';

export class QdrantAttachedVectorStore implements VectorStore {
  readonly kind = 'qdrant';
  private readonly client: QdrantClient;
  /** Our own collections: `rf_own_<service name>` for the attached one, and any other collection. */
  private readonly own: QdrantVectorStore;
  private readonly cfg: ReturnType<typeof resolveAttachConfig>;
  /** The service's name of the attached collection. */
  readonly attachedAs: string;
  private readonly tieSlack: number;
  private dim: number | null = null;
  private closed = false;

  constructor(options: QdrantAttachedVectorStoreOptions) {
    if (!options || typeof options.url !== 'string' || options.url.length === 0) {
      throw new VectorStoreError('QdrantAttachedVectorStore: `url` is required');
    }
    this.cfg = resolveAttachConfig(options.attach);
    this.attachedAs = options.attach.serviceCollection?.trim() || this.cfg.collection;
    assertCollectionName(this.attachedAs);
    assertCollectionName(this.ownName());
    this.tieSlack = Math.max(0, Math.floor(options.tieSlack ?? 8));
    this.client = qdrantClient(options);
    this.own = new QdrantVectorStore({ url: options.url, apiKey: options.apiKey, timeoutMs: options.timeoutMs, tieSlack: options.tieSlack });
  }

  // ---- VectorStore --------------------------------------------------------------------------------

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    assertCollectionName(collection);
    assertDimension(dimension);
    if (!this.isAttached(collection)) return this.own.ensureCollection(collection, dimension);
    const dim = await this.attachedDimension();
    if (dim !== dimension) {
      throw new DimensionMismatchError(
        `Attached Qdrant collection "${this.cfg.collection}" has dimension ${dim}${this.cfg.vectorName ? ` (vector "${this.cfg.vectorName}")` : ''}, requested ${dimension}`,
      );
    }
    await this.own.ensureCollection(this.ownName(), dimension);
  }

  /**
   * Never into the app's collection: records for the attached collection go to our own `rf_own_<name>`
   * — also a record whose id names an app point (RunTraceback re-homing a registered text whose app
   * point disappeared): our copy, searched with the app's points, never written into them.
   */
  async upsert(collection: string, records: readonly VectorRecordInput[]): Promise<void> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.upsert(collection, records);
    await this.own.upsert(this.ownName(), records);
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const [hits] = await this.searchBatch(collection, [request]);
    return hits;
  }

  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.searchBatch(collection, requests);
    const dim = await this.attachedDimension();
    validateSearchRequests(collection, requests, dim);
    if (requests.length === 0) return [];
    const [app, mine] = await Promise.all([this.searchApp(requests), this.searchOwn(requests)]);
    // An id in both (our copy of a text whose app point exists) is returned once, at its best score.
    return requests.map((r, i) => {
      const seen = new Set<string>();
      return [...app[i], ...mine[i]].sort(compareHits).filter((h) => !seen.has(h.id) && seen.add(h.id)).slice(0, r.k);
    });
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.fetch(collection, ids);
    this.assertOpen();
    const wanted = uniqueIds(ids);
    const found = new Map<string, StoredRecord>();
    const points = wanted.map((id) => pointIdOf(id, this.cfg.idType)).filter((p): p is PointId => p !== null);
    for (const part of chunks(points, ID_CHUNK)) {
      const got = await this.client.retrieve(this.cfg.collection, {
        ids: part,
        with_payload: this.payloadSelector(),
        with_vector: this.cfg.vectorName ? [this.cfg.vectorName] : true,
      });
      for (const p of got) {
        const id = documentIdOf(p.id, this.cfg.idType);
        const payload = (p.payload ?? {}) as Record<string, unknown>;
        found.set(id, {
          id,
          vector: Float32Array.from(this.vectorOf(p.vector)),
          text: textOf(payload, this.cfg.textKey),
          payload: servicePayloadOf(p.id),
          quarantined: payload[this.cfg.quarantineKey] === true,
        });
      }
    }
    const rest = wanted.filter((id) => !found.has(id));
    if (rest.length > 0) for (const r of await this.own.fetch(this.ownName(), rest)) found.set(r.id, r);
    return wanted.map((id) => found.get(id.toLowerCase()) ?? found.get(id)).filter((r): r is StoredRecord => r !== undefined);
  }

  /**
   * Attached: the app's points first (Qdrant scroll, cursor `app:<next_page_offset>`), then our own
   * collection's records (enhancement proxies; cursor `own:<id>`). The app's points are read, never written.
   */
  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.listPage(collection, opts);
    this.assertOpen();
    const after = opts.after ?? null;
    if (after === null || after.startsWith('app:')) {
      const offset = after ? (JSON.parse(after.slice(4)) as PointId) : undefined;
      const res = await this.client.scroll(this.cfg.collection, {
        limit: Math.max(1, Math.floor(opts.limit)), ...(offset !== undefined ? { offset } : {}), with_payload: this.payloadSelector(),
        with_vector: opts.withVectors ? (this.cfg.vectorName ? [this.cfg.vectorName] : true) : false,
      });
      const records = res.points.map((p) => {
        const payload = (p.payload ?? {}) as Record<string, unknown>;
        return {
          id: documentIdOf(p.id, this.cfg.idType), quarantined: payload[this.cfg.quarantineKey] === true, payload: servicePayloadOf(p.id),
          ...(opts.withText ? { text: textOf(payload, this.cfg.textKey) } : {}), ...(opts.withVectors ? { vector: Float32Array.from(this.vectorOf(p.vector)) } : {}),
        };
      });
      const nextOffset = res.next_page_offset;
      return { records, next: nextOffset !== null && nextOffset !== undefined ? `app:${JSON.stringify(nextOffset)}` : 'own:' };
    }
    const ownAfter = after.slice(4) || null;
    const page = await this.own.listPage(this.ownName(), { ...opts, after: ownAfter });
    return { records: page.records, next: page.next === null ? null : `own:${page.next}` };
  }

  /** `set_payload` of the flag key on the app's points (filter by id: unknown ids are ignored), and our own records. */
  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.setQuarantined(collection, ids, quarantined);
    if (typeof quarantined !== 'boolean') throw new VectorStoreError('setQuarantined: `quarantined` must be a boolean');
    this.assertOpen();
    const wanted = uniqueIds(ids);
    await this.flagAppPoints(wanted, quarantined);
    await this.own.setQuarantined(this.ownName(), wanted, quarantined);
  }

  /** `set_payload` of the flag key alone on the app points named (by id filter: unknown ids are ignored). */
  private async flagAppPoints(ids: readonly string[], flag: boolean): Promise<void> {
    const points = ids.map((id) => pointIdOf(id, this.cfg.idType)).filter((p): p is PointId => p !== null);
    for (const part of chunks(points, ID_CHUNK)) {
      await this.client.setPayload(this.cfg.collection, {
        payload: { [this.cfg.quarantineKey]: flag },
        filter: { must: [{ has_id: part }] },
        wait: true,
      });
    }
  }

  /**
   * Deletes our own records; the app's points are never deleted — they are withdrawn from serving
   * with the quarantine flag (`set_payload` of that key only), for the app's searches and ours.
   */
  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.delete(collection, ids);
    this.assertOpen();
    const wanted = uniqueIds(ids);
    await this.flagAppPoints(wanted, true);
    await this.own.delete(this.ownName(), wanted);
  }

  async count(collection: string): Promise<number> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.count(collection);
    this.assertOpen();
    let app = 0;
    try {
      app = (await this.client.count(this.cfg.collection, { exact: true })).count;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    return app + (await this.own.count(this.ownName()));
  }

  /** Drops OUR collections only (tests and operations); the attached app collection is never dropped. */
  async dropCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.own.dropCollection(this.isAttached(collection) ? this.ownName() : collection);
  }

  async health(): Promise<void> {
    this.assertOpen();
    await this.client.getCollections();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.own.close();
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private isAttached(collection: string): boolean {
    return collection === this.attachedAs;
  }

  private ownName(): string {
    return `${OWN_PREFIX}${this.attachedAs}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new VectorStoreError('QdrantAttachedVectorStore is closed');
  }

  /** Only the payload keys we need (the text's top-level key and the flag). */
  private payloadSelector(): { include: string[] } {
    return { include: [...new Set([this.cfg.textKey.split('.')[0], this.cfg.quarantineKey])] };
  }

  private vectorOf(vector: unknown): number[] {
    if (Array.isArray(vector)) return vector as number[];
    if (vector && typeof vector === 'object' && this.cfg.vectorName) {
      const named = (vector as Record<string, unknown>)[this.cfg.vectorName];
      if (Array.isArray(named)) return named as number[];
    }
    return [];
  }

  /** Size of the configured vector of the app's collection; checks the distance is a similarity we can use. */
  private async attachedDimension(): Promise<number> {
    this.assertOpen();
    if (this.dim !== null) return this.dim;
    let info;
    try {
      info = await this.client.getCollection(this.cfg.collection);
    } catch (error) {
      if (statusOf(error) === 404) throw new CollectionNotFoundError(`Attached Qdrant collection "${this.cfg.collection}" does not exist`);
      throw error;
    }
    const vectors = info.config.params.vectors as Record<string, unknown> | undefined;
    const params = (this.cfg.vectorName ? vectors?.[this.cfg.vectorName] : vectors) as { size?: unknown; distance?: unknown } | undefined;
    if (!params || typeof params.size !== 'number') {
      const names = vectors && typeof vectors.size !== 'number' ? Object.keys(vectors) : [];
      throw new VectorStoreError(
        this.cfg.vectorName
          ? `Attached Qdrant collection "${this.cfg.collection}" has no vector named "${this.cfg.vectorName}" (it has: ${names.join(', ') || 'only the default vector'})`
          : `Attached Qdrant collection "${this.cfg.collection}" uses named vectors (${names.join(', ')}): set QDRANT_ATTACH_VECTOR`,
      );
    }
    if (params.distance !== 'Cosine' && params.distance !== 'Dot') {
      throw new VectorStoreError(`Attached Qdrant collection "${this.cfg.collection}" uses ${String(params.distance)} distance; attach mode needs Cosine (or Dot on normalised vectors)`);
    }
    this.dim = params.size;
    return params.size;
  }

  private async searchApp(requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    return queryBatchHits(
      requests,
      (searches) => this.client.queryBatch(this.cfg.collection, { searches }),
      (r) => ({
        query: Array.from(r.vector, Number),
        ...(this.cfg.vectorName ? { using: this.cfg.vectorName } : {}),
        limit: r.k + this.tieSlack,
        filter: searchFilter(r, this.cfg.quarantineKey, uniqueIds(r.excludeIds ?? []).map((id) => pointIdOf(id, this.cfg.idType)).filter((p): p is PointId => p !== null)),
        with_payload: this.payloadSelector(),
        with_vector: false,
      }),
      (points) => points.map((p) => ({
        id: documentIdOf(p.id, this.cfg.idType),
        score: clampCosine(p.score),
        text: textOf(p.payload as Record<string, unknown> | null, this.cfg.textKey),
        payload: servicePayloadOf(p.id),
      })),
    );
  }

  /** Our own records of the attached collection; none while `rf_own_<name>` does not exist yet. */
  private async searchOwn(requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    try {
      return await this.own.searchBatch(this.ownName(), requests);
    } catch (error) {
      if (error instanceof CollectionNotFoundError) return requests.map(() => []);
      throw error;
    }
  }
}
