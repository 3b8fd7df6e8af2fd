/**
 * pgvector attach mode: the service works on a table the RAG app ALREADY has (LangChain's PGVector
 * tables, or a plain (id, content, embedding) table) instead of re-ingesting it — the same promises as
 * the Qdrant attach mode (qdrant-attached-vector-store.adapter.ts). Configuration: pgvector-attach.mapping.ts.
 *
 * What it does to the app's table — and nothing else: SELECTs (searches by cosine distance, fetch by
 * id, count, listing). It never inserts, updates or deletes the app's rows; a role with only SELECT on
 * them is enough (the attach test runs as such a role).
 * Quarantine/restore: a row (app_table, app_id) inserted into / deleted from OUR side table
 * `<schema>.attach_quarantine`; the app's own query excludes those ids with
 *   NOT EXISTS (SELECT 1 FROM rf_vectors.attach_quarantine q WHERE q.app_table = '<table>' AND q.app_id = d.id::text)
 * (docs/vector-stores.md: the exact SQL for both layouts); the service's searches add the same clause.
 * The service's own records for the attached collection (enhancement proxies, texts ingested through the
 * service) go to our own pgvector collection `rf_own_<name>` (PgVectorStore, same schema) and are merged
 * into searches by score (ties by id). `delete` removes our records and withdraws app rows from serving
 * with the quarantine row (deleting the app's data is the app's decision).
 * Other collection names than the attached one are served by the normal PgVectorStore.
 */
import { Pool } from 'pg';
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import { resolvePgAttachConfig, type PgVectorAttachConfig, type ResolvedPgAttach } from './pgvector-attach.mapping';
import { DEFAULT_PGVECTOR_EF_SEARCH, PgVectorStore, vectorLiteral, vectorOfSql, type PgVectorStoreOptions } from './pgvector-vector-store.adapter';
import { documentIdOf, pointIdOf } from './qdrant-attach.mapping';
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

export interface PgVectorAttachedVectorStoreOptions extends Omit<PgVectorStoreOptions, 'pool' | 'indexOnCreate'> {
  url: string;
  attach: PgVectorAttachConfig;
}

const OWN_PREFIX = 'rf_own_';

export class PgVectorAttachedVectorStore implements VectorStore {
  readonly kind = 'pgvector';
  readonly attachedAs: string;
  private readonly cfg: ResolvedPgAttach;
  private readonly pool: Pool;
  private readonly own: PgVectorStore;
  private readonly side: string;
  private readonly tieSlack: number;
  private dim: number | null = null;
  private sideReady: Promise<void> | null = null;
  private closed = false;

  constructor(options: PgVectorAttachedVectorStoreOptions) {
    if (!options || typeof options.url !== 'string' || options.url.length === 0) {
      throw new VectorStoreError('PgVectorAttachedVectorStore: `url` is required (PGVECTOR_URL)');
    }
    this.cfg = resolvePgAttachConfig(options.attach);
    this.attachedAs = this.cfg.serviceCollection;
    assertCollectionName(this.attachedAs);
    assertCollectionName(this.ownName());
    this.tieSlack = Math.max(0, Math.floor(options.tieSlack ?? 8));
    const efSearch = Math.min(1000, Math.max(1, Math.floor(options.efSearch ?? DEFAULT_PGVECTOR_EF_SEARCH)));
    this.pool = new Pool({
      connectionString: options.url, max: options.maxConnections ?? 4,
      options: `-c hnsw.ef_search=${efSearch} -c hnsw.iterative_scan=relaxed_order`,
    });
    this.pool.on('error', () => undefined);
    this.own = new PgVectorStore({ ...options, pool: this.pool });
    this.side = `"${this.own.schema}"."attach_quarantine"`;
  }

  // ---- VectorStore --------------------------------------------------------------------------------

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    assertCollectionName(collection);
    assertDimension(dimension);
    if (!this.isAttached(collection)) return this.own.ensureCollection(collection, dimension);
    const dim = await this.attachedDimension();
    if (dim !== dimension) {
      throw new DimensionMismatchError(`Attached table ${this.cfg.tableKey} has ${this.cfg.embeddingName} of dimension ${dim}, requested ${dimension}`);
    }
    await this.own.ensureCollection(this.ownName(), dimension);
  }

  /** Never into the app's table: our records go to `rf_own_<name>`. */
  async upsert(collection: string, records: readonly VectorRecordInput[]): Promise<void> {
    assertCollectionName(collection);
    await this.own.upsert(this.isAttached(collection) ? this.ownName() : collection, records);
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
    const [app, mine] = await Promise.all([Promise.all(requests.map((r) => this.searchApp(r))), this.searchOwn(requests)]);
    return requests.map((r, i) => {
      const seen = new Set<string>();
      return [...app[i]!, ...mine[i]!].sort(compareHits).filter((h) => !seen.has(h.id) && seen.add(h.id)).slice(0, r.k);
    });
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.fetch(collection, ids);
    await this.ready();
    const wanted = uniqueIds(ids);
    const found = new Map<string, StoredRecord>();
    const appIds = this.appIdsOf(wanted);
    if (appIds.length > 0) {
      const p = new Params(this.cfg.tableKey);
      const res = await this.pool.query<{ id: string; text: string | null; e: string | null; q: boolean }>(
        `SELECT d.${this.cfg.id}::text AS id, d.${this.cfg.content} AS text, d.${this.cfg.embedding}::text AS e, ${this.quarantinedSql(p)} AS q
         FROM ${this.cfg.table} d WHERE d.${this.cfg.id}::text = ANY(${p.add(appIds)}::text[])${this.scopeSql(p)}`,
        p.values,
      );
      for (const r of res.rows) {
        const id = documentIdOf(r.id, this.cfg.idType);
        found.set(id, { id, vector: vectorOfSql(r.e), text: r.text ?? '', payload: this.payloadOf(r.id), quarantined: r.q });
      }
    }
    const rest = wanted.filter((id) => !found.has(id.toLowerCase()));
    if (rest.length > 0) for (const r of await this.own.fetch(this.ownName(), rest)) found.set(r.id, r);
    return wanted.map((id) => found.get(id.toLowerCase()) ?? found.get(id)).filter((r): r is StoredRecord => r !== undefined);
  }

  /** The app's rows first (cursor `app:<app id>`, ordered by the id's text), then our own records (`own:<id>`). */
  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.listPage(collection, opts);
    await this.ready();
    const limit = Math.max(1, Math.floor(opts.limit));
    const after = opts.after ?? null;
    if (after === null || after.startsWith('app:')) {
      const p = new Params(this.cfg.tableKey);
      const cursor = after ? after.slice(4) : null;
      const res = await this.pool.query<{ id: string; text?: string | null; e?: string | null; q: boolean }>(
        `SELECT d.${this.cfg.id}::text AS id, ${this.quarantinedSql(p)} AS q${opts.withText ? `, d.${this.cfg.content} AS text` : ''}${opts.withVectors ? `, d.${this.cfg.embedding}::text AS e` : ''}
         FROM ${this.cfg.table} d WHERE (${p.add(cursor)}::text IS NULL OR d.${this.cfg.id}::text COLLATE "C" > ${p.add(cursor)}::text)${this.scopeSql(p)}
         ORDER BY d.${this.cfg.id}::text COLLATE "C" LIMIT ${limit + 1}`,
        p.values,
      );
      const page = res.rows.slice(0, limit);
      return {
        records: page.map((r) => ({
          id: documentIdOf(r.id, this.cfg.idType), quarantined: r.q, payload: this.payloadOf(r.id),
          ...(opts.withText ? { text: r.text ?? '' } : {}), ...(opts.withVectors ? { vector: vectorOfSql(r.e ?? null) } : {}),
        })),
        next: res.rows.length > limit ? `app:${page[page.length - 1]!.id}` : 'own:',
      };
    }
    const page = await this.own.listPage(this.ownName(), { ...opts, after: after.slice(4) || null });
    return { records: page.records, next: page.next === null ? null : `own:${page.next}` };
  }

  /** Inserts/deletes rows of our side table for the app rows named (unknown ids are ignored), and flags our own records. */
  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.setQuarantined(collection, ids, quarantined);
    if (typeof quarantined !== 'boolean') throw new VectorStoreError('setQuarantined: `quarantined` must be a boolean');
    const wanted = uniqueIds(ids);
    await this.flagAppRows(wanted, quarantined);
    await this.own.setQuarantined(this.ownName(), wanted, quarantined);
  }

  /** Our records are deleted; app rows are withdrawn from serving with the quarantine row, never deleted. */
  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.delete(collection, ids);
    const wanted = uniqueIds(ids);
    await this.flagAppRows(wanted, true);
    await this.own.delete(this.ownName(), wanted);
  }

  async count(collection: string): Promise<number> {
    assertCollectionName(collection);
    if (!this.isAttached(collection)) return this.own.count(collection);
    await this.ready();
    const p = new Params(this.cfg.tableKey);
    let app = 0;
    try {
      const res = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.cfg.table} d WHERE true${this.scopeSql(p)}`, p.values);
      app = Number(res.rows[0]!.n);
    } catch (error) {
      if ((error as { code?: string }).code !== '42P01') throw error;
    }
    return app + (await this.own.count(this.ownName()));
  }

  /** Drops OUR collections only; the app's table is never dropped. */
  async dropCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.own.dropCollection(this.isAttached(collection) ? this.ownName() : collection);
  }

  async health(): Promise<void> {
    this.assertOpen();
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.own.close();
    await this.pool.end();
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private isAttached(collection: string): boolean {
    return collection === this.attachedAs;
  }

  private ownName(): string {
    return `${OWN_PREFIX}${this.attachedAs}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new VectorStoreError('PgVectorAttachedVectorStore is closed');
  }

  private payloadOf(appId: string): Record<string, unknown> {
    return { externalId: appId, source: 'pgvector-attached' };
  }

  /** The app ids (as text) our document ids name; ids that cannot name an app row are dropped. */
  private appIdsOf(ids: readonly string[]): string[] {
    return ids.map((id) => pointIdOf(id, this.cfg.idType)).filter((p): p is string | number => p !== null).map(String);
  }

  private quarantinedSql(p: Params): string {
    return `EXISTS (SELECT 1 FROM ${this.side} q WHERE q.app_table = ${p.table()} AND q.app_id = d.${this.cfg.id}::text)`;
  }

  /** The LangChain collection restriction (empty for a plain table). */
  private scopeSql(p: Params): string {
    if (this.cfg.layout !== 'langchain') return '';
    return ` AND d."collection_id" = (SELECT c."uuid" FROM ${this.cfg.collectionTable} c WHERE c."name" = ${p.add(this.cfg.langchainCollection)})`;
  }

  /** Our schema and side table (once), and the own store's catalogue. */
  private ready(): Promise<void> {
    this.assertOpen();
    this.sideReady ??= (async () => {
      await this.own.count(this.ownName()); // creates the extension check, schema and catalogue
      await this.pool.query(`CREATE TABLE IF NOT EXISTS ${this.side} (
        app_table text NOT NULL, app_id text NOT NULL, quarantined_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app_table, app_id))`);
    })().catch((error: unknown) => {
      this.sideReady = null;
      throw error;
    });
    return this.sideReady;
  }

  private async flagAppRows(ids: readonly string[], flag: boolean): Promise<void> {
    await this.ready();
    const appIds = this.appIdsOf(ids);
    if (appIds.length === 0) return;
    const p = new Params(this.cfg.tableKey);
    if (flag) {
      // Only ids of rows that exist in the attached table (and LangChain collection): unknown ids are ignored.
      await this.pool.query(
        `INSERT INTO ${this.side} (app_table, app_id)
         SELECT ${p.table()}, d.${this.cfg.id}::text FROM ${this.cfg.table} d WHERE d.${this.cfg.id}::text = ANY(${p.add(appIds)}::text[])${this.scopeSql(p)}
         ON CONFLICT DO NOTHING`,
        p.values,
      );
    } else {
      await this.pool.query(`DELETE FROM ${this.side} WHERE app_table = ${p.table()} AND app_id = ANY(${p.add(appIds)}::text[])`, p.values);
    }
  }

  /** Size of the app's vector column: its declared vector(n), else the first row's. */
  private async attachedDimension(): Promise<number> {
    await this.ready();
    if (this.dim !== null) return this.dim;
    const col = await this.pool
      .query<{ typmod: number; typ: string }>(
        `SELECT a.atttypmod AS typmod, format_type(a.atttypid, NULL) AS typ FROM pg_attribute a
         WHERE a.attrelid = to_regclass($1) AND a.attname = $2 AND NOT a.attisdropped`,
        [this.cfg.table, this.cfg.embeddingName],
      );
    const row = col.rows[0];
    if (!row) throw new CollectionNotFoundError(`Attached table ${this.cfg.tableKey} (column ${this.cfg.embeddingName}) does not exist`);
    if (row.typ !== 'vector') throw new VectorStoreError(`Attached column ${this.cfg.tableKey}.${this.cfg.embeddingName} is ${row.typ}, not a pgvector vector`);
    let dim = row.typmod > 0 ? row.typmod : null;
    if (dim === null) {
      const p = new Params(this.cfg.tableKey);
      const first = await this.pool.query<{ n: number }>(
        `SELECT vector_dims(d.${this.cfg.embedding}) AS n FROM ${this.cfg.table} d WHERE d.${this.cfg.embedding} IS NOT NULL${this.scopeSql(p)} LIMIT 1`,
        p.values,
      );
      dim = first.rows[0]?.n ?? null;
      if (dim === null) throw new VectorStoreError(`Attached table ${this.cfg.tableKey} declares no vector dimension and has no rows yet: cannot tell the dimension`);
    }
    this.dim = dim;
    return dim;
  }

  private async searchApp(r: SearchRequest): Promise<ScoredHit[]> {
    if (r.k === 0) return [];
    const p = new Params(this.cfg.tableKey);
    const q = p.add(vectorLiteral(r.vector));
    const exclude = this.appIdsOf(uniqueIds(r.excludeIds ?? []));
    const where = [
      r.includeQuarantined ? null : `NOT ${this.quarantinedSql(p)}`,
      exclude.length > 0 ? `d.${this.cfg.id}::text <> ALL(${p.add(exclude)}::text[])` : null,
      `d.${this.cfg.embedding} IS NOT NULL`,
    ].filter(Boolean);
    const res = await this.pool.query<{ id: string; text: string | null; d: number }>(
      `SELECT d.${this.cfg.id}::text AS id, d.${this.cfg.content} AS text, d.${this.cfg.embedding} <=> ${q}::vector AS d
       FROM ${this.cfg.table} d WHERE ${where.join(' AND ')}${this.scopeSql(p)}
       ORDER BY d.${this.cfg.embedding} <=> ${q}::vector LIMIT ${r.k + this.tieSlack}`,
      p.values,
    );
    return res.rows
      .map((row) => ({ id: documentIdOf(row.id, this.cfg.idType), score: clampCosine(1 - Number(row.d)), text: row.text ?? '', payload: this.payloadOf(row.id) }))
      .filter((h) => Number.isFinite(h.score));
  }

  private async searchOwn(requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    try {
      return await this.own.searchBatch(this.ownName(), requests);
    } catch (error) {
      if (error instanceof CollectionNotFoundError) return requests.map(() => []);
      throw error;
    }
  }
}

/** Positional parameters of one statement; the app_table key of our quarantine rows is added once, when used. */
class Params {
  readonly values: unknown[] = [];
  private tablePlaceholder: string | null = null;
  constructor(private readonly tableKey: string) {}
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  table(): string {
    this.tablePlaceholder ??= this.add(this.tableKey);
    return this.tablePlaceholder;
  }
}
