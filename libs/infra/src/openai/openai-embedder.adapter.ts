import type { Embedder } from '@forensics/core';
import { classifyOpenAiError, createOpenAiClient, type OpenAiClient } from './openai-client';

export interface OpenAiEmbedderConfig {
  /** Base URL including `/v1`. */
  baseURL: string;
  apiKey: string;
  /** e.g. 'text-embedding-3-small'. */
  model: string;
  /**
   * Expected output dimension. Checked against every response, not sent as the API's
   * `dimensions` parameter (many OpenAI-compatible servers reject it). Inferred in `init()` when absent.
   */
  dimension?: number;
  /** Texts per `embeddings.create` request. Default 128 (the API accepts up to 2048). */
  batchSize?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

export const OPENAI_EMBEDDER_DEFAULT_BATCH_SIZE = 128;
// Embedded once by init() to learn the dimension when it is not configured.
const DIMENSION_PROBE_TEXT = 'dimension probe';

/** Raised when the embeddings endpoint fails or answers with unusable vectors. */
export class OpenAiEmbedderError extends Error {
  constructor(message: string, readonly transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenAiEmbedderError';
  }
}

/**
 * Embedder over an OpenAI-compatible `/v1/embeddings` endpoint: batched requests, results put back
 * in input order by `index`, every vector L2-normalised (v / ‖v‖₂) so cosine = dot product.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  private readonly client: OpenAiClient;
  private readonly model: string;
  private readonly batchSize: number;
  private dim: number | undefined;

  constructor(config: OpenAiEmbedderConfig) {
    if (!config.model) throw new Error('OpenAiEmbedder: model is required');
    const batchSize = config.batchSize ?? OPENAI_EMBEDDER_DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`OpenAiEmbedder: batchSize must be a positive integer, got ${batchSize}`);
    if (config.dimension !== undefined && (!Number.isInteger(config.dimension) || config.dimension < 1)) {
      throw new RangeError(`OpenAiEmbedder: dimension must be a positive integer, got ${config.dimension}`);
    }
    this.id = `openai:${config.model}`;
    this.model = config.model;
    this.batchSize = batchSize;
    this.dim = config.dimension;
    this.client = createOpenAiClient({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
    });
  }

  /** Output dimension; throws before `init()` when it was not configured. */
  get dimension(): number {
    if (this.dim === undefined) throw new Error(`${this.id}: dimension unknown until init()`);
    return this.dim;
  }

  async init(): Promise<void> {
    if (this.dim !== undefined) return;
    await this.embedBatch([DIMENSION_PROBE_TEXT]);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(start, start + this.batchSize))));
    }
    return out;
  }

  async close(): Promise<void> {
    // Stateless HTTP client: nothing to release.
  }

  private async embedBatch(batch: readonly string[]): Promise<Float32Array[]> {
    let response;
    try {
      // 'float' explicitly: the package otherwise asks for base64, which some compatible servers lack.
      response = await this.client.embeddings.create({ model: this.model, input: [...batch], encoding_format: 'float' });
    } catch (error) {
      const failure = classifyOpenAiError(error);
      throw new OpenAiEmbedderError(`${this.id}: embeddings request failed: ${failure.message}`, failure.transient, { cause: error });
    }
    const data = response.data ?? [];
    if (data.length !== batch.length) {
      throw new OpenAiEmbedderError(`${this.id}: asked for ${batch.length} embeddings, got ${data.length}`, false);
    }
    const ordered = new Array<Float32Array>(batch.length);
    for (const item of data) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= batch.length || ordered[item.index]) {
        throw new OpenAiEmbedderError(`${this.id}: bad or duplicate embedding index ${item.index}`, false);
      }
      if (this.dim === undefined) this.dim = item.embedding.length;
      if (item.embedding.length !== this.dim) {
        throw new OpenAiEmbedderError(`${this.id}: expected dimension ${this.dim}, got ${item.embedding.length}`, false);
      }
      ordered[item.index] = l2Normalise(item.embedding, this.id);
    }
    return ordered;
  }
}

/** v / ‖v‖₂ as Float32Array; a zero or non-finite vector cannot be normalised and is an error. */
function l2Normalise(values: readonly number[], id: string): Float32Array {
  let sumSq = 0;
  for (const v of values) sumSq += v * v;
  const norm = Math.sqrt(sumSq);
  if (!Number.isFinite(norm) || norm === 0) throw new OpenAiEmbedderError(`${id}: embedding has zero or non-finite norm`, false);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] / norm;
  return out;
}
