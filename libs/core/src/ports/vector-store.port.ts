/**
 * VectorStore port: where the knowledge base's texts and vectors live and are served from.
 * Implemented by the embedded on-disk store (LanceDB) and by Qdrant. Both adapters pass the same
 * contract suite (test/vector-store.contract.ts).
 *
 * Similarity is cosine (vectors are L2-normalised by the embedders), higher = closer.
 * Quarantine is a reversible flag: a quarantined record keeps its vector, text and payload but is
 * never returned by `search`/`searchBatch` unless `includeQuarantined` is set.
 */
export interface VectorRecord {
  /** UUID (Qdrant accepts only UUIDs or integers as point ids). */
  id: string;
  vector: ArrayLike<number>;
  text: string;
  /** Free-form JSON payload (external id, metadata, kind of record). */
  payload?: Record<string, unknown>;
  /** Written with the record (e.g. the admission check withholds a new text before it is ever served); unset = keep the existing flag (false when new). */
  quarantined?: boolean;
}

export interface StoredRecord {
  id: string;
  vector: Float32Array;
  text: string;
  payload: Record<string, unknown>;
  quarantined: boolean;
}

export interface ScoredHit {
  id: string;
  /** Cosine similarity in [-1, 1]. */
  score: number;
  text: string;
  payload: Record<string, unknown>;
}

export interface SearchRequest {
  vector: ArrayLike<number>;
  k: number;
  /** Ids never to return (e.g. texts already judged poisoned, or the query text itself for BiRD). */
  excludeIds?: readonly string[];
  /** Default false: quarantined records are out of serving. */
  includeQuarantined?: boolean;
}

/** One page of `listPage` (audits: reconcile, cluster-scan). */
export interface PointPage {
  records: { id: string; quarantined: boolean; payload: Record<string, unknown>; text?: string; vector?: Float32Array }[];
  /** Opaque cursor: pass as `after` for the next page; null = no more records. */
  next: string | null;
}

export interface VectorStore {
  /** 'lancedb' | 'qdrant' | … — recorded in evidence. */
  readonly kind: string;
  /** Creates the collection if missing; a dimension mismatch with an existing collection is an error. */
  ensureCollection(collection: string, dimension: number): Promise<void>;
  /** Insert or replace by id; a replaced record keeps its quarantine flag unless `quarantined` is given. */
  upsert(collection: string, records: readonly VectorRecord[]): Promise<void>;
  /** Top-k by cosine similarity, best first; ties broken by id for determinism. */
  search(collection: string, request: SearchRequest): Promise<ScoredHit[]>;
  /** Many searches in one call (BiRD's k+1 per event). Result i answers request i. */
  searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]>;
  /** Stored records by id, quarantined or not; unknown ids are simply absent. */
  fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]>;
  /** Reversible: set or clear the quarantine flag; unknown ids are ignored. Idempotent. */
  setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void>;
  /** Permanent removal. Idempotent. */
  delete(collection: string, ids: readonly string[]): Promise<void>;
  /** Records in the collection (quarantined included); 0 when the collection does not exist. */
  count(collection: string): Promise<number>;
  /**
   * Optional: an opaque token that changes whenever the collection changes (any write, including
   * quarantine flags). Lets callers cache per-collection results (BiRD's neighbour lists). Stores
   * that cannot tell return null and callers do not cache.
   */
  revision?(collection: string): Promise<string | null>;
  /**
   * Every record of the collection (quarantined included), in pages (ordered by id where the store
   * can; each record exactly once); `after` is the previous page's `next`. Vectors and texts only when asked (audits: reconcile, cluster-scan).
   */
  listPage?(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage>;
  /**
   * Optional (cluster-scan): up to `sample` served records, each with its `k` nearest served
   * neighbours among them, as pairs (a → b, cosine), in one call (Qdrant: /points/search/matrix/pairs).
   * Callers fall back to one `searchBatch` query per text where it is absent.
   */
  similarityPairs?(collection: string, opts: { k: number; sample: number }): Promise<{ a: string; b: string; score: number }[]>;
  /** Throws when the store cannot be reached. */
  health(): Promise<void>;
  close(): Promise<void>;
}
