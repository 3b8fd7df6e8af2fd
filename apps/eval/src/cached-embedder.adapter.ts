import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Embedder } from '@forensics/core';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createEmbedder } from '@forensics/infra/embedders/embedder.factory';

/**
 * An Embedder that remembers vectors on disk across runs, keyed by sha256 of the text, for the
 * evaluation harness (thousands of passages take minutes with USE-lite on 2 cores; a rerun takes
 * seconds). File: append-only records of [32-byte sha256 | dimension × float32 LE]; a torn last
 * record (a crash mid-append) is ignored. Same `id` and `dimension` as the wrapped embedder, so
 * collections stay consistent; the wrapped model is loaded only when a text is missing.
 */
export class CachedEmbedder implements Embedder {
  private readonly cache = new Map<string, Float32Array>();
  private loaded = false;
  hits = 0;
  misses = 0;

  constructor(private readonly inner: Embedder, readonly file: string) {}

  /** The cache of `inner` in `dir`: one file per embedder id (`<dir>/<id>.bin`). */
  static inDir(inner: Embedder, dir: string): CachedEmbedder {
    return new CachedEmbedder(inner, join(resolve(dir), `${inner.id.replace(/[^A-Za-z0-9._-]+/g, '_')}.bin`));
  }

  /** The configured local encoder (EMBEDDER, default USE-lite) behind its cache in `dir`, loaded. */
  static async openDefault(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<CachedEmbedder> {
    const config = loadConfig(env);
    const cached = CachedEmbedder.inDir(createEmbedder({ kind: config.embedder.kind, onnxModelDir: config.embedder.onnxModelDir }), dir);
    await cached.init();
    return cached;
  }

  get id(): string {
    return this.inner.id;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async init(): Promise<void> {
    if (this.loaded) return;
    // An embedder that reads its dimension from the model (ONNX) throws before init; USE-lite knows it up front.
    const known = (() => { try { return this.inner.dimension; } catch { return 0; } })();
    if (!(known > 0)) await this.inner.init();
    const dim = this.inner.dimension;
    const size = 32 + 4 * dim;
    if (existsSync(this.file)) {
      const buf = readFileSync(this.file);
      for (let off = 0; off + size <= buf.length; off += size) {
        const key = buf.subarray(off, off + 32).toString('hex');
        const v = new Float32Array(dim);
        for (let d = 0; d < dim; d++) v[d] = buf.readFloatLE(off + 32 + 4 * d);
        this.cache.set(key, v);
      }
    }
    this.loaded = true;
  }

  /** Vectors in the cache (after `init`). */
  get size(): number {
    return this.cache.size;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    await this.init();
    const keys = texts.map((t) => createHash('sha256').update(t, 'utf8').digest('hex'));
    const missing = [...new Set(keys.map((k, i) => (this.cache.has(k) ? -1 : i)).filter((i) => i >= 0).map((i) => keys[i]))];
    this.hits += texts.length - keys.filter((k) => !this.cache.has(k)).length;
    if (missing.length) {
      const textOf = new Map(keys.map((k, i) => [k, texts[i]]));
      await this.inner.init();
      const dim = this.inner.dimension;
      const batch = 64;
      for (let i = 0; i < missing.length; i += batch) {
        const part = missing.slice(i, i + batch);
        const vecs = await this.inner.embed(part.map((k) => textOf.get(k)!));
        const out = Buffer.alloc(part.length * (32 + 4 * dim));
        part.forEach((k, j) => {
          const off = j * (32 + 4 * dim);
          Buffer.from(k, 'hex').copy(out, off);
          for (let d = 0; d < dim; d++) out.writeFloatLE(vecs[j][d], off + 32 + 4 * d);
          this.cache.set(k, Float32Array.from(vecs[j]));
        });
        mkdirSync(dirname(this.file), { recursive: true });
        appendFileSync(this.file, out);
        this.misses += part.length;
      }
    }
    return keys.map((k) => this.cache.get(k)!.slice());
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}
