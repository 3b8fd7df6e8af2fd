/**
 * VectorStore over PostgreSQL with the pgvector extension (VECTOR_STORE=pgvector): a production
 * deployment then needs only Postgres and Redis. `pg` is the driver; vectors travel in pgvector's
 * text format ('[1,2,3]'; written here — the `pgvector` npm package's toSql drops the sign of -0).
 *
 * Layout, in one schema of ours (default `rf_vectors`, PGVECTOR_SCHEMA):
 * - `collections(name, table_name, dimension, revision)`: the catalogue; `revision` is bumped in the
 *   same transaction as every write of the collection, so `revision()` is exact across processes;
 * - one table per collection, `c_<md5 of the name, 16 hex>` (collection names may be 64 characters,
 *   more than a Postgres identifier holds once prefixed): id text (COLLATE "C", so ties order as
 *   compareHits does), embedding vector(dim), text, payload jsonb, quarantined boolean;
 *   an HNSW index on `embedding vector_cosine_ops` (m / ef_construction configurable), built when
 *   the collection is created (or later by `buildIndex`, for bulk loads).
 * Search: `ORDER BY embedding <=> q LIMIT k + tieSlack` with the quarantine and exclusion filters in
 * the WHERE clause — pgvector's iterative index scan (`hnsw.iterative_scan = relaxed_order`, set per
 * session) keeps scanning the graph until k rows pass the filters, so a filter never shortens the
 * answer; results are re-ordered here by score then id. Score = 1 − cosine distance.
 * Quarantine is the `quarantined` column; a write is visible to every process when it resolves.
 */
import { createHash } from 'node:crypto';
import { Pool, type PoolClient, escapeIdentifier } from 'pg';
import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorStore } from '@forensics/core';
import {
  assertCollectionName,
  assertDimension,
  clampCosine,
  CollectionNotFoundError,
  compareHits,
  DimensionMismatchError,
  normaliseRecords,
  uniqueIds,
  validateSearchRequests,
  VectorStoreError,
  type VectorRecordInput,
} from './vector-store.common';

export interface PgVectorStoreOptions {
  /** postgres:// connection string (PGVECTOR_URL; the service's DATABASE_URL when unset). */
  url?: string;
  /** Or a pool owned by the caller (not ended by `close`). */
  pool?: Pool;
  /** Schema of our tables (created if missing). Default 'rf_vectors'. */
  schema?: string;
  /** HNSW graph degree (pgvector `m`). Default 16. */
  hnswM?: number;
  /** HNSW build candidate list (pgvector `ef_construction`). Default 64. */
  hnswEfConstruction?: number;
  /** HNSW search candidate list (`hnsw.ef_search`, per session). Default DEFAULT_PGVECTOR_EF_SEARCH (200). */
  efSearch?: number;
  /** Build the HNSW index when a collection is created (default true); false = call `buildIndex` after a bulk load. */
  indexOnCreate?: boolean;
  /** Extra rows per search so that ties at the k-th place are ordered by id. Default 8. */
  tieSlack?: number;
  /** Pool size. Default 4. */
  maxConnections?: number;
}

export const DEFAULT_PGVECTOR_SCHEMA = 'rf_vectors';
/**
 * hnsw.ef_search when none is configured. 200, not pgvector's 40 or our earlier 100: on 1M clustered
 * 384-d vectors (bench:scale) recall@10 is 0.947 at 100 and 0.98 at 200, for p50 4.2 → 8.4 ms
 * (docs/results.md). Small collections pay little: HNSW stops early when the graph is small.
 */
export const DEFAULT_PGVECTOR_EF_SEARCH = 200;
const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
const WRITE_CHUNK = 500;

/** float32-exact text of a vector: each number goes through Math.fround, so '[..]' parses back to the same float32s. */
export function vectorLiteral(vector: ArrayLike<number>): string {
  const f = Float32Array.from(Array.from(vector, Number));
  let out = '[';
  for (let i = 0; i < f.length; i++) out += `${i > 0 ? ',' : ''}${Object.is(f[i], -0) ? '-0' : String(f[i])}`;
  return `${out}]`;
}
/** pgvector's text output ('[1,-0.5,3e-07]', shortest float4 digits) → float32s. */
export function vectorOfSql(text: string | null): Float32Array {
  if (!text || text.length < 2) return new Float32Array(0);
  const body = text.slice(1, -1);
  return body.length === 0 ? new Float32Array(0) : Float32Array.from(body.split(','), Number);
}

export const tableNameOf = (collection: string): string => `c_${createHash('md5').update(collection).digest('hex').slice(0, 16)}`;

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface CollectionInfo {
  table: string;
  dimension: number;
}

export class PgVectorStore implements VectorStore {
  readonly kind = 'pgvector';
  readonly schema: string;
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly m: number;
  private readonly efConstruction: number;
  private readonly efSearch: number;
  private readonly indexOnCreate: boolean;
  private readonly tieSlack: number;
  private readonly infos = new Map<string, CollectionInfo>();
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(options: PgVectorStoreOptions) {
    if (!options || (!options.pool && (typeof options.url !== 'string' || options.url.length === 0))) {
      throw new VectorStoreError('PgVectorStore: a connection string (`url`, PGVECTOR_URL) or a pool is required');
    }
    this.schema = options.schema ?? DEFAULT_PGVECTOR_SCHEMA;
    if (!SCHEMA_PATTERN.test(this.schema)) throw new VectorStoreError(`PgVectorStore: invalid schema name ${JSON.stringify(this.schema)} (lower-case letters, digits, '_')`);
    this.m = Math.max(2, Math.floor(options.hnswM ?? 16));
    this.efConstruction = Math.max(4, Math.floor(options.hnswEfConstruction ?? 64));
    this.efSearch = Math.min(1000, Math.max(1, Math.floor(options.efSearch ?? DEFAULT_PGVECTOR_EF_SEARCH)));
    this.indexOnCreate = options.indexOnCreate ?? true;
    this.tieSlack = Math.max(0, Math.floor(options.tieSlack ?? 8));
    this.ownsPool = !options.pool;
    // Session settings of every connection (startup options): the HNSW search width, and iterative
    // scans so that filtered searches (quarantine, excluded ids) still return k rows. A caller's pool
    // should set the same.
    this.pool = options.pool ?? new Pool({
      connectionString: options.url, max: options.maxConnections ?? 4,
      options: `-c hnsw.ef_search=${this.efSearch} -c hnsw.iterative_scan=relaxed_order`,
    });
    if (this.ownsPool) this.pool.on('error', () => undefined); // an idle client's error surfaces on the next query
  }

  // ---- VectorStore --------------------------------------------------------------------------------

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    assertCollectionName(collection);
    assertDimension(dimension);
    if (dimension > 16000) throw new VectorStoreError(`pgvector stores at most 16000 dimensions, requested ${dimension}`);
    await this.init();
    const existing = await this.info(collection);
    if (existing) return this.checkDimension(collection, existing.dimension, dimension);
    await this.tx(async (c) => {
      // One creator at a time across processes; the loser sees the winner's row.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.${collection}`]);
      const row = await c.query<{ dimension: number }>(`SELECT dimension FROM ${this.q('collections')} WHERE name = $1`, [collection]);
      if (row.rows[0]) return this.checkDimension(collection, row.rows[0].dimension, dimension);
      const table = tableNameOf(collection);
      await c.query(`CREATE TABLE ${this.q(table)} (
        id text COLLATE "C" PRIMARY KEY,
        embedding vector(${dimension}) NOT NULL,
        text text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        quarantined boolean NOT NULL DEFAULT false)`);
      if (this.indexOnCreate) await c.query(this.indexSql(table));
      await c.query(`INSERT INTO ${this.q('collections')} (name, table_name, dimension) VALUES ($1, $2, $3)`, [collection, table, dimension]);
    });
    this.infos.delete(collection);
  }

  /** Builds the HNSW index if missing (after a bulk load into a collection created with `indexOnCreate: false`). */
  async buildIndex(collection: string, opts: { maintenanceWorkMem?: string; parallelWorkers?: number } = {}): Promise<void> {
    assertCollectionName(collection);
    const info = await this.requireInfo(collection);
    const c = await this.pool.connect();
    try {
      if (opts.maintenanceWorkMem) await c.query(`SET maintenance_work_mem = ${escapeLiteral(opts.maintenanceWorkMem)}`);
      if (opts.parallelWorkers !== undefined) await c.query(`SET max_parallel_maintenance_workers = ${Math.max(0, Math.floor(opts.parallelWorkers))}`);
      await c.query(this.indexSql(info.table));
    } finally {
      c.release();
    }
  }

  /**
   * Inserts or replaces by id. A row given without `quarantined` keeps its stored flag (false when new);
   * with it, the flag is written — two statements, one per kind of row, in one transaction.
   */
  async upsert(collection: string, records: readonly VectorRecordInput[]): Promise<void> {
    assertCollectionName(collection);
    const info = await this.requireInfo(collection);
    const clean = normaliseRecords(collection, records, info.dimension);
    if (clean.length === 0) return;
    const t = this.q(info.table);
    await this.tx(async (c) => {
      for (const part of chunks(clean, WRITE_CHUNK)) {
        const params = [
          part.map((r) => r.id),
          part.map((r) => vectorLiteral(r.vector)),
          part.map((r) => r.text),
          part.map((r) => JSON.stringify(r.payload ?? {})),
          part.map((r) => (r.quarantined === undefined ? null : r.quarantined)),
        ];
        await c.query(
          `INSERT INTO ${t} AS t (id, embedding, text, payload, quarantined)
           SELECT u.id, u.e::vector, u.text, u.p::jsonb, coalesce(u.q, false)
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[]) AS u(id, e, text, p, q)
           ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding, text = EXCLUDED.text, payload = EXCLUDED.payload,
             quarantined = coalesce((SELECT u2.q FROM unnest($1::text[], $5::boolean[]) AS u2(id, q) WHERE u2.id = EXCLUDED.id), t.quarantined)`,
          params,
        );
      }
      await this.bump(c, collection);
    });
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const [hits] = await this.searchBatch(collection, [request]);
    return hits;
  }

  /** One query per request, run concurrently over the pool. */
  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    assertCollectionName(collection);
    const info = await this.requireInfo(collection);
    validateSearchRequests(collection, requests, info.dimension);
    return Promise.all(requests.map((r) => this.searchOne(collection, info, r)));
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    assertCollectionName(collection);
    const wanted = uniqueIds(ids);
    const info = await this.infoOrNull(collection);
    if (!info || wanted.length === 0) return [];
    const res = await this.read(collection, () =>
      this.pool.query<{ id: string; e: string; text: string; payload: unknown; quarantined: boolean }>(
        `SELECT id, embedding::text AS e, text, payload, quarantined FROM ${this.q(info.table)} WHERE id = ANY($1::text[])`,
        [wanted],
      ),
    );
    const byId = new Map(res.rows.map((r) => [r.id, r]));
    return wanted
      .map((id) => byId.get(id))
      .filter((r): r is NonNullable<typeof r> => r !== undefined)
      .map((r) => ({ id: r.id, vector: vectorOfSql(r.e), text: r.text, payload: asObject(r.payload), quarantined: r.quarantined }));
  }

  /** Pages in id order (byte order); `next` = the page's last id. */
  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    assertCollectionName(collection);
    const info = await this.infoOrNull(collection);
    if (!info) return { records: [], next: null };
    const limit = Math.max(1, Math.floor(opts.limit));
    const res = await this.read(collection, () =>
      this.pool.query<{ id: string; e?: string; text?: string; payload: unknown; quarantined: boolean }>(
        `SELECT id, quarantined, payload${opts.withText ? ', text' : ''}${opts.withVectors ? ', embedding::text AS e' : ''}
         FROM ${this.q(info.table)} WHERE ($1::text IS NULL OR id > $1::text) ORDER BY id LIMIT $2`,
        [opts.after ?? null, limit + 1],
      ),
    );
    const page = res.rows.slice(0, limit);
    return {
      records: page.map((r) => ({
        id: r.id, quarantined: r.quarantined, payload: asObject(r.payload),
        ...(opts.withText ? { text: r.text ?? '' } : {}), ...(opts.withVectors ? { vector: vectorOfSql(r.e ?? null) } : {}),
      })),
      next: res.rows.length > limit ? page[page.length - 1]!.id : null,
    };
  }

  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    assertCollectionName(collection);
    if (typeof quarantined !== 'boolean') throw new VectorStoreError('setQuarantined: `quarantined` must be a boolean');
    const wanted = uniqueIds(ids);
    const info = await this.infoOrNull(collection);
    if (!info || wanted.length === 0) return;
    await this.tx(async (c) => {
      const res = await c.query(`UPDATE ${this.q(info.table)} SET quarantined = $2 WHERE id = ANY($1::text[]) AND quarantined <> $2`, [wanted, quarantined]);
      if (res.rowCount) await this.bump(c, collection);
    });
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    assertCollectionName(collection);
    const wanted = uniqueIds(ids);
    const info = await this.infoOrNull(collection);
    if (!info || wanted.length === 0) return;
    await this.tx(async (c) => {
      const res = await c.query(`DELETE FROM ${this.q(info.table)} WHERE id = ANY($1::text[])`, [wanted]);
      if (res.rowCount) await this.bump(c, collection);
    });
  }

  async count(collection: string): Promise<number> {
    assertCollectionName(collection);
    const info = await this.infoOrNull(collection);
    if (!info) return 0;
    const res = await this.read(collection, () => this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.q(info.table)}`));
    return Number(res.rows[0]!.n);
  }

  /**
   * What this server's settings will cost searches, as lines for the operator's log (none when all is
   * well; docs/vector-stores.md, "Serving pgvector at scale"). Today one check: our HNSW indexes together
   * larger than `shared_buffers`, so a search reads index pages from outside Postgres' cache (measured at
   * 1M texts: p50 33 ms with a 2 GB index in 1 GB, against ~10 ms when it fits).
   */
  async servingAdvice(): Promise<string[]> {
    await this.init();
    const res = await this.pool.query<{ name: string; bytes: string; sb: string }>(
      `SELECT c.name, coalesce(pg_relation_size(to_regclass(format('%I.%I', $1::text, c.table_name || '_hnsw'))), 0)::text AS bytes,
              (SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers')::text AS sb
       FROM ${this.q('collections')} c`,
      [this.schema],
    );
    return hnswFitAdvice(res.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) })), Number(res.rows[0]?.sb ?? 0));
  }

  /** Changes with every write of the collection, in any process (the catalogue's counter). */
  async revision(collection: string): Promise<string | null> {
    assertCollectionName(collection);
    this.assertOpen();
    await this.init();
    const res = await this.pool.query<{ revision: string }>(`SELECT revision::text AS revision FROM ${this.q('collections')} WHERE name = $1`, [collection]);
    return res.rows[0] ? `${collection}@${res.rows[0].revision}` : null;
  }

  /** Removes the collection and its data (not part of the port: tests and operations). */
  async dropCollection(collection: string): Promise<void> {
    assertCollectionName(collection);
    await this.init();
    await this.tx(async (c) => {
      const row = await c.query<{ table_name: string }>(`DELETE FROM ${this.q('collections')} WHERE name = $1 RETURNING table_name`, [collection]);
      if (row.rows[0]) await c.query(`DROP TABLE IF EXISTS ${this.q(row.rows[0].table_name)}`);
    });
    this.infos.delete(collection);
  }

  async health(): Promise<void> {
    this.assertOpen();
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  /** Table (schema-qualified, quoted) holding a collection, for operators and the bench; null when missing. */
  async tableOf(collection: string): Promise<string | null> {
    const info = await this.infoOrNull(collection);
    return info ? this.q(info.table) : null;
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private async searchOne(collection: string, info: CollectionInfo, r: SearchRequest): Promise<ScoredHit[]> {
    if (r.k === 0) return [];
    const exclude = uniqueIds(r.excludeIds ?? []);
    const where = [r.includeQuarantined ? null : 'NOT quarantined', exclude.length > 0 ? 'id <> ALL($2::text[])' : null].filter(Boolean);
    const res = await this.read(collection, () =>
      this.pool.query<{ id: string; text: string; payload: unknown; d: number }>(
        `SELECT id, text, payload, embedding <=> $1::vector AS d FROM ${this.q(info.table)}
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY embedding <=> $1::vector LIMIT ${r.k + this.tieSlack}`,
        exclude.length > 0 ? [vectorLiteral(r.vector), exclude] : [vectorLiteral(r.vector)],
      ),
    );
    return res.rows
      .map((row) => ({ id: row.id, score: clampCosine(1 - Number(row.d)), text: row.text, payload: asObject(row.payload) }))
      .filter((h) => Number.isFinite(h.score))
      .sort(compareHits)
      .slice(0, r.k);
  }

  private indexSql(table: string): string {
    return `CREATE INDEX IF NOT EXISTS ${escapeIdentifier(`${table}_hnsw`)} ON ${this.q(table)} USING hnsw (embedding vector_cosine_ops) WITH (m = ${this.m}, ef_construction = ${this.efConstruction})`;
  }

  private q(name: string): string {
    return `${escapeIdentifier(this.schema)}.${escapeIdentifier(name)}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new VectorStoreError('PgVectorStore is closed');
  }

  private checkDimension(collection: string, existing: number, requested: number): void {
    if (existing !== requested) {
      throw new DimensionMismatchError(`Collection "${collection}" exists with dimension ${existing}, requested ${requested}`);
    }
  }

  /** The extension, our schema and the catalogue (once per instance; idempotent across processes). */
  private init(): Promise<void> {
    this.assertOpen();
    this.ready ??= (async () => {
      const c = await this.pool.connect();
      try {
        await c.query('SELECT pg_advisory_lock(hashtext($1))', [`rf-pgvector-init:${this.schema}`]);
        try {
          const ext = await c.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
          if (ext.rowCount === 0) {
            try {
              await c.query('CREATE EXTENSION IF NOT EXISTS vector');
            } catch (error) {
              throw new VectorStoreError(`pgvector: the "vector" extension is not installed in this database and could not be created (${(error as Error).message}); a superuser must run CREATE EXTENSION vector`);
            }
          }
          // Only when missing: CREATE SCHEMA (even IF NOT EXISTS) needs CREATE on the database, which a
          // role given a ready schema (docs/vector-stores.md, "Rights") does not have.
          const schema = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
          if (schema.rowCount === 0) await c.query(`CREATE SCHEMA IF NOT EXISTS ${escapeIdentifier(this.schema)}`);
          await c.query(`CREATE TABLE IF NOT EXISTS ${this.q('collections')} (
            name text PRIMARY KEY, table_name text NOT NULL UNIQUE, dimension integer NOT NULL, revision bigint NOT NULL DEFAULT 0)`);
        } finally {
          await c.query('SELECT pg_advisory_unlock(hashtext($1))', [`rf-pgvector-init:${this.schema}`]);
        }
      } finally {
        c.release();
      }
    })().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private async info(collection: string): Promise<CollectionInfo | null> {
    const cached = this.infos.get(collection);
    if (cached) return cached;
    const res = await this.pool.query<{ table_name: string; dimension: number }>(
      `SELECT table_name, dimension FROM ${this.q('collections')} WHERE name = $1`, [collection],
    );
    if (!res.rows[0]) return null;
    const info = { table: res.rows[0].table_name, dimension: res.rows[0].dimension };
    this.infos.set(collection, info);
    return info;
  }

  private async infoOrNull(collection: string): Promise<CollectionInfo | null> {
    await this.init();
    return this.info(collection);
  }

  private async requireInfo(collection: string): Promise<CollectionInfo> {
    const info = await this.infoOrNull(collection);
    if (!info) throw new CollectionNotFoundError(`Collection "${collection}" does not exist (call ensureCollection first)`);
    return info;
  }

  private async bump(c: PoolClient, collection: string): Promise<void> {
    await c.query(`UPDATE ${this.q('collections')} SET revision = revision + 1 WHERE name = $1`, [collection]);
  }

  /** A read; a table dropped meanwhile (42P01) becomes CollectionNotFoundError. */
  private async read<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: string }).code === '42P01') {
        this.infos.delete(collection);
        throw new CollectionNotFoundError(`Collection "${collection}" does not exist`);
      }
      throw error;
    }
  }

  private async tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    this.assertOpen();
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }
}

function escapeLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** `servingAdvice`'s rule, pure: the indexes (bytes each) against shared_buffers (bytes). */
export function hnswFitAdvice(indexes: ReadonlyArray<{ name: string; bytes: number }>, sharedBuffersBytes: number): string[] {
  const total = indexes.reduce((sum, i) => sum + i.bytes, 0);
  if (total === 0 || sharedBuffersBytes <= 0 || total <= sharedBuffersBytes) return [];
  const mb = (b: number) => `${Math.ceil(b / 2 ** 20)} MB`;
  const largest = [...indexes].sort((a, b) => b.bytes - a.bytes)[0]!;
  return [
    `pgvector: the HNSW indexes of ${indexes.length} collection(s) take ${mb(total)} (largest: '${largest.name}', ${mb(largest.bytes)}) ` +
    `but shared_buffers is ${mb(sharedBuffersBytes)}: searches will read index pages from outside Postgres' cache and slow down ` +
    `several times; raise shared_buffers above ${mb(total * 1.25)}, with huge pages (docs/vector-stores.md, "Serving pgvector at scale")`,
  ];
}
