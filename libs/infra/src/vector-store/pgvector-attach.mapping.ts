/**
 * pgvector attach mode: which table of the RAG app the service works on, and the SQL shapes it uses.
 * Pure (no connection): configuration defaults and identifier quoting, unit-tested beside it.
 *
 * Two layouts:
 * - `langchain`: LangChain's PGVector tables — `langchain_pg_embedding(id, collection_id, embedding,
 *   document, cmetadata)` joined to `langchain_pg_collection(uuid, name)`; one LangChain collection
 *   (by name) is attached;
 * - `table`: any table with an id, a text and a pgvector column, names configurable
 *   (default `id`, `content`, `embedding`).
 * The app's ids map to our document ids as in Qdrant attach mode (qdrant-attach.mapping.ts):
 * `uuid` (as is, lower-case) or `integer` (a reversible UUID).
 * The quarantine flag is a row (app_table, app_id) in OUR side table `<schema>.attach_quarantine`; the
 * app's query excludes it with NOT EXISTS (docs/vector-stores.md gives the exact SQL).
 */
import { escapeIdentifier } from 'pg';
import type { AttachIdType } from './qdrant-attach.mapping';
import { VectorStoreError } from './vector-store.common';

export type PgAttachLayout = 'langchain' | 'table';

export interface PgVectorAttachConfig {
  layout: PgAttachLayout;
  /** The app's table, 'table' or 'schema.table'. Default for `langchain`: 'langchain_pg_embedding'; required for `table`. */
  table?: string;
  /** `langchain`: the LangChain collection name (langchain_pg_collection.name); required. */
  langchainCollection?: string;
  /** `langchain`: the collection table. Default 'langchain_pg_collection' (in the embedding table's schema). */
  langchainCollectionTable?: string;
  /** `table`: column names. Defaults id / content / embedding (`langchain`: id / document / embedding). */
  idColumn?: string;
  contentColumn?: string;
  embeddingColumn?: string;
  /** Type of the app's ids. Default 'uuid'. */
  idType?: AttachIdType;
  /** The service's name for the attached collection; default the LangChain collection name, or the table name without schema. */
  serviceCollection?: string;
}

export interface ResolvedPgAttach {
  layout: PgAttachLayout;
  /** As configured: also the `app_table` value of our quarantine rows. */
  tableKey: string;
  /** Quoted, possibly schema-qualified. */
  table: string;
  collectionTable: string | null;
  langchainCollection: string | null;
  /** Quoted column names, and the embedding column's plain name (catalogue look-ups). */
  id: string;
  content: string;
  embedding: string;
  embeddingName: string;
  idType: AttachIdType;
  serviceCollection: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/** 'schema.table' or 'table' → quoted identifier(s); refuses anything else (no SQL from configuration). */
export function quoteQualified(name: string, what: string): string {
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) {
    throw new VectorStoreError(`pgvector attach mode: ${what} ${JSON.stringify(name)} must be 'name' or 'schema.name' (letters, digits, '_')`);
  }
  return parts.map((p) => escapeIdentifier(p)).join('.');
}

export function resolvePgAttachConfig(config: PgVectorAttachConfig): ResolvedPgAttach {
  if (!config || (config.layout !== 'langchain' && config.layout !== 'table')) {
    throw new VectorStoreError(`pgvector attach mode: layout must be langchain or table, got ${JSON.stringify(config?.layout)}`);
  }
  const idType = config.idType ?? 'uuid';
  if (idType !== 'uuid' && idType !== 'integer') throw new VectorStoreError(`pgvector attach mode: id type must be uuid or integer, got ${String(idType)}`);
  const lc = config.layout === 'langchain';
  const tableKey = (config.table?.trim() || (lc ? 'langchain_pg_embedding' : '')).trim();
  if (!tableKey) throw new VectorStoreError('pgvector attach mode: the table is required for layout=table (PGVECTOR_ATTACH_TABLE)');
  const table = quoteQualified(tableKey, 'table');
  let collectionTable: string | null = null;
  let langchainCollection: string | null = null;
  if (lc) {
    langchainCollection = config.langchainCollection?.trim() || null;
    if (!langchainCollection) throw new VectorStoreError('pgvector attach mode: the LangChain collection name is required for layout=langchain (PGVECTOR_ATTACH_COLLECTION)');
    const schema = tableKey.includes('.') ? `${tableKey.split('.')[0]}.` : '';
    collectionTable = quoteQualified(config.langchainCollectionTable?.trim() || `${schema}langchain_pg_collection`, 'collection table');
  }
  const col = (v: string | undefined, dflt: string, what: string): string => {
    const name = v?.trim() || dflt;
    if (!IDENT.test(name)) throw new VectorStoreError(`pgvector attach mode: ${what} ${JSON.stringify(name)} must be a plain column name (letters, digits, '_')`);
    return escapeIdentifier(name);
  };
  const serviceCollection = config.serviceCollection?.trim() || langchainCollection || tableKey.split('.').pop()!;
  return {
    layout: config.layout, tableKey, table, collectionTable, langchainCollection,
    id: col(config.idColumn, 'id', 'id column'),
    content: col(config.contentColumn, lc ? 'document' : 'content', 'content column'),
    embedding: col(config.embeddingColumn, 'embedding', 'embedding column'),
    embeddingName: config.embeddingColumn?.trim() || 'embedding',
    idType, serviceCollection,
  };
}
