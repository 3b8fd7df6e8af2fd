/**
 * Embedder port: text → L2-normalised vector. The same embedder must be used for ingestion and
 * queries of one collection (its `id` is stored with the collection).
 */
export interface Embedder {
  /** Stable identifier, e.g. 'use-lite', 'onnx:/models/all-MiniLM-L6-v2', 'openai:text-embedding-3-small'. */
  readonly id: string;
  /** Output dimension; known after `init()`. */
  readonly dimension: number;
  /** Loads the model; idempotent. */
  init(): Promise<void>;
  /** One unit-norm vector per text, same order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}
