import type { VectorStore } from '@forensics/core';
import { LanceDbVectorStore } from './lancedb-vector-store.adapter';
import { QdrantVectorStore } from './qdrant-vector-store.adapter';

export { LanceDbVectorStore, type LanceDbVectorStoreOptions } from './lancedb-vector-store.adapter';
export { QdrantVectorStore, type QdrantVectorStoreOptions } from './qdrant-vector-store.adapter';
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
  /** Qdrant REST URL (e.g. from QDRANT_URL); when set, Qdrant is used. */
  qdrantUrl?: string;
  qdrantApiKey?: string;
  /** Directory of the embedded LanceDB store (used when no Qdrant URL is given). */
  dir: string;
}

/** Qdrant when a URL is configured, otherwise the embedded on-disk LanceDB store under `dir`. */
export function createVectorStore(config: VectorStoreConfig): VectorStore {
  const url = config.qdrantUrl?.trim();
  if (url) return new QdrantVectorStore({ url, apiKey: config.qdrantApiKey || undefined });
  return new LanceDbVectorStore({ dir: config.dir });
}
