import type { VectorStore } from '@forensics/core';
import { LanceDbVectorStore, type AnnIndexKind } from './lancedb-vector-store.adapter';
import { VectorStoreError } from './vector-store.common';
import { QdrantAttachedVectorStore } from './qdrant-attached-vector-store.adapter';
import type { AttachIdType } from './qdrant-attach.mapping';
import { QdrantVectorStore } from './qdrant-vector-store.adapter';
import { PgVectorAttachedVectorStore } from './pgvector-attached-vector-store.adapter';
import type { PgVectorAttachConfig } from './pgvector-attach.mapping';
import { PgVectorStore } from './pgvector-vector-store.adapter';

export { LanceDbVectorStore, type AnnIndexKind, type LanceDbVectorStoreOptions } from './lancedb-vector-store.adapter';
export { QdrantVectorStore, type QdrantVectorStoreOptions } from './qdrant-vector-store.adapter';
export { PgVectorAttachedVectorStore, type PgVectorAttachedVectorStoreOptions } from './pgvector-attached-vector-store.adapter';
export { resolvePgAttachConfig, type PgAttachLayout, type PgVectorAttachConfig } from './pgvector-attach.mapping';
export { PgVectorStore, DEFAULT_PGVECTOR_SCHEMA, type PgVectorStoreOptions } from './pgvector-vector-store.adapter';
export { QdrantAttachedVectorStore, type QdrantAttachedVectorStoreOptions } from './qdrant-attached-vector-store.adapter';
export { documentIdOf, pointIdOf, type AttachIdType, type QdrantAttachConfig } from './qdrant-attach.mapping';
export {
  COLLECTION_NAME_PATTERN,
  CollectionNotFoundError,
  DimensionMismatchError,
  InvalidCollectionNameError,
  InvalidRecordError,
  VectorStoreError,
  type VectorRecordInput,
} from './vector-store.common';

export interface VectorStoreConfig {
  /** 'auto' (default) = Qdrant when qdrantUrl is set, else LanceDB; or a store named outright. */
  kind?: 'auto' | 'lancedb' | 'qdrant' | 'pgvector';
  /** kind 'pgvector': connection and options; `attach` = the app's existing table (docs/vector-stores.md). */
  pgvector?: {
    url?: string;
    schema?: string;
    efSearch?: number;
    hnswM?: number;
    hnswEfConstruction?: number;
    attach?: PgVectorAttachConfig;
  };
  /** Qdrant REST URL (e.g. from QDRANT_URL); when set, Qdrant is used. */
  qdrantUrl?: string;
  qdrantApiKey?: string;
  /** Directory of the embedded LanceDB store (used when no Qdrant URL is given). */
  dir: string;
  /** Embedded store: ANN index threshold and search knobs (VECTOR_INDEX_MIN_ROWS, VECTOR_ANN_*). */
  indexMinRows?: number;
  annNprobes?: number;
  /** 0 or unset = the index kind's default. */
  annRefine?: number;
  annIndex?: AnnIndexKind;
  annEf?: number;
  /** Qdrant attach mode: the RAG app's existing collection (needs qdrantUrl). */
  attach?: {
    collection: string;
    serviceCollection?: string;
    textKey?: string;
    vectorName?: string;
    idType?: AttachIdType;
    quarantineKey?: string;
  };
}

/**
 * Qdrant when a URL is configured (attached to the app's existing collection when `attach` is set),
 * otherwise the embedded on-disk LanceDB store under `dir`.
 */
export function createVectorStore(config: VectorStoreConfig): VectorStore {
  if (config.kind === 'pgvector') {
    const pg = config.pgvector ?? {};
    if (!pg.url) throw new VectorStoreError('VECTOR_STORE=pgvector needs a connection string (PGVECTOR_URL or DATABASE_URL)');
    const options = { url: pg.url, schema: pg.schema, efSearch: pg.efSearch, hnswM: pg.hnswM, hnswEfConstruction: pg.hnswEfConstruction };
    return pg.attach ? new PgVectorAttachedVectorStore({ ...options, attach: pg.attach }) : new PgVectorStore(options);
  }
  const url = config.kind === 'lancedb' ? undefined : config.qdrantUrl?.trim();
  if (url && config.attach) return new QdrantAttachedVectorStore({ url, apiKey: config.qdrantApiKey || undefined, attach: config.attach });
  if (config.attach) throw new VectorStoreError('Qdrant attach mode needs a Qdrant URL (QDRANT_URL)');
  if (url) return new QdrantVectorStore({ url, apiKey: config.qdrantApiKey || undefined });
  return new LanceDbVectorStore({
    dir: config.dir, indexMinRows: config.indexMinRows, nprobes: config.annNprobes, refineFactor: config.annRefine || undefined, annIndex: config.annIndex, ef: config.annEf,
  });
}
