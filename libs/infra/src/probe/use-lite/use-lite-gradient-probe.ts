import { mulberry32, type LayerNormInput, type UseLiteTailParams } from '@forensics/algorithms';
import type { GradientProbe, GradientProbeOptions, GradientProbeResult } from '@forensics/core';
import { graphWeight, loadUseLite, USE_LITE_NODES as N, USE_LITE_PROBE_LAYER, type TfLike, type TfTensor, type UseLiteModel } from './use-lite-graph';

export interface UseLiteGradientProbeOptions {
  /** Token sequences (rows) per model call. Default 32. */
  batchSize?: number;
  /**
   * 'shared' (default): USE-lite embeds the query with the same encoder, so ϑ moves both
   * embeddings and the gradient holds both sides' contributions. 'fixed': query embedding constant.
   */
  querySide?: 'shared' | 'fixed';
}

export interface UseLiteProbeStats {
  /** executeAsync calls (incl. the query's). */
  modelCalls: number;
  /** Distinct token sequences run through the model (after de-duplication), incl. the query. */
  rows: number;
  /** Σ rows × padded length over calls. */
  paddedTokens: number;
  /** Wall time of the model forward passes and of the closed-form backward (ms). */
  forwardMs: number;
  backwardMs: number;
}

interface QueryState {
  /** tanh output e_q and embedding f_q: [1, H]. */
  e: TfTensor;
  f: TfTensor;
  fHost: Float32Array;
  tokens: number;
  /** M_qᵀ, N_qᵀ: [I, H] with M_q = W1 ⊙ (X̂_qᵀ·mask_q), N_q = W1 ⊙ (1ᵀ·mask_q); query VJP = g·M_qᵀ ‖ g·N_qᵀ. */
  mT: TfTensor;
  nT: TfTensor;
}

interface Weights {
  /** Pre-transposed copies: the WASM backend's matMul with transposeB is ~15× slower. */
  w1T: TfTensor;
  w2T: TfTensor;
  whT: TfTensor;
  epsilon: number;
  l2Floor: number;
  maxLength: number;
  hidden: number;
  inner: number;
}

/**
 * Exact ProGRank probe gradients ∂s(q,p)/∂(γ,β) on Universal Sentence Encoder Lite (the
 * project's embedded default encoder, TF.js WASM), for the LAST LayerNorm of the graph: the
 * pre-norm (`layer_prepostprocess/layer_norm`) of the FFN of `TransformerStack/Layer_1`.
 *
 * Route: closed form (no autodiff — the bundled TF.js registers no gradient functions). One batched
 * forward pass of the real graph returns, per token sequence, the LayerNorm's input
 * (`Layer_1/TransformerLayer/layer_postprocess/add`), the FFN conv1 pre-activations (ReLU pattern),
 * the tanh-head output and the embedding; the backward pass through the tail (FFN → residual →
 * masked mean pooling → tanh → l2_normalize; derivation in
 * libs/forensics/src/gradient/use-lite-tail.ts) is then a few
 * batched matmuls on the same backend. Query side 'shared' by default: s = <f(q), f(p)> with the
 * same f, so ∂s/∂ϑ = J_qᵀ f(p) + J_pᵀ f(q); the query's part is linear in f(p) and is precomputed
 * once per call as two [512, 1536] matrices.
 *
 * Perturbation = token dropout on the passage: USE-lite has no attention-mask input and no special
 * tokens, so a dropped SentencePiece id is removed from the passage's (sparse) input — the model
 * sees the passage without that token (positions of later tokens shift). Each id is dropped with
 * probability `tokenDropout`, at least one id is kept. Sequences are first cut to the graph's 128-id
 * limit (`ClipToMaxLength`), so dropout only ever removes tokens the model would have seen. The
 * stream of a passage is mulberry32 seeded by (seed, passage text): a passage gets the same
 * perturbations wherever it sits in the pool. No encoder (internal) dropout: the graph has none.
 *
 * Cost: all distinct sequences (query, passages, R runs each; identical ones computed once, so
 * `tokenDropout: 0` costs one row per passage) go through the model sorted by length in batches of
 * `batchSize`; the forward pass dominates.
 */
export class UseLiteGradientProbe implements GradientProbe {
  readonly encoder = 'use-lite';
  readonly layer = USE_LITE_PROBE_LAYER;
  readonly exact = true;
  readonly querySide: 'shared' | 'fixed';
  /** Counters of the last `probe` call (for benchmarks). */
  lastStats: UseLiteProbeStats = { modelCalls: 0, rows: 0, paddedTokens: 0, forwardMs: 0, backwardMs: 0 };
  private readonly batchSize: number;
  private tf: TfLike | null = null;
  private model: UseLiteModel | null = null;
  private weights: Weights | null = null;
  private initPromise: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: UseLiteGradientProbeOptions = {}) {
    const bs = options.batchSize ?? 32;
    if (!Number.isInteger(bs) || bs < 1) throw new Error(`UseLiteGradientProbe: batchSize must be a positive integer, got ${bs}`);
    this.batchSize = bs;
    this.querySide = options.querySide ?? 'shared';
    if (this.querySide !== 'shared' && this.querySide !== 'fixed') throw new Error(`UseLiteGradientProbe: querySide must be 'shared' or 'fixed'`);
  }

  init(): Promise<void> {
    this.initPromise ??= this.load().catch((err: unknown) => {
      this.initPromise = null;
      throw err;
    });
    return this.initPromise;
  }

  async close(): Promise<void> {
    await this.initPromise?.catch(() => undefined);
    await this.queue.catch(() => undefined);
    this.model?.model.dispose();
    if (this.weights) for (const t of [this.weights.w1T, this.weights.w2T, this.weights.whT]) t.dispose();
    this.model = null;
    this.weights = null;
    this.tf = null;
    this.initPromise = null;
  }

  /** SentencePiece ids of a text as the model sees them (cut to 128; '' is embedded as ' '). */
  async tokenize(text: string): Promise<number[]> {
    await this.init();
    return this.tokenizeSync(text);
  }

  /** The R token-dropout id sequences `probe` uses for a passage (same seed → same sequences). */
  async passageRuns(text: string, opts: GradientProbeOptions): Promise<number[][]> {
    const ids = await this.tokenize(text);
    return dropoutRuns(ids, opts.seed, text, opts.runs, opts.tokenDropout);
  }

  async probe(query: string, passages: readonly string[], opts: GradientProbeOptions): Promise<GradientProbeResult> {
    const { runs, seed, tokenDropout } = opts;
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`UseLiteGradientProbe: runs must be a positive integer, got ${runs}`);
    if (!Number.isFinite(seed)) throw new Error(`UseLiteGradientProbe: seed must be a finite number, got ${seed}`);
    if (!(tokenDropout >= 0 && tokenDropout < 1)) throw new Error(`UseLiteGradientProbe: tokenDropout must be in [0, 1), got ${tokenDropout}`);
    await this.init();
    if (passages.length === 0) return { scores: [], gradients: [] };
    return this.serialised(() => this.probeNow(query, passages, runs, seed, tokenDropout));
  }

  /**
   * Test hook: the probed LayerNorm's input (tokens × 512, float32) and the model's own output f per
   * id sequence, from one batched forward pass of the real graph.
   */
  async layerNormInputs(rows: readonly (readonly number[])[]): Promise<{ inputs: LayerNormInput[]; outputs: Float32Array[] }> {
    await this.init();
    return this.serialised(async () => {
      const H = this.weights!.hidden;
      const [x, f] = await this.forward(rows, [N.lnInput, N.output]);
      try {
        const T = x.shape[1];
        const xd = x.dataSync();
        const fd = f.dataSync();
        return {
          inputs: rows.map((r, b) => ({ tokens: r.length, data: Float32Array.from(xd.subarray(b * T * H, b * T * H + r.length * H)) })),
          outputs: rows.map((_, b) => Float32Array.from(fd.subarray(b * H, (b + 1) * H))),
        };
      } finally {
        x.dispose();
        f.dispose();
      }
    });
  }

  /** Test hook: the tail's parameters, read from the loaded graph's weights. */
  async tailParams(): Promise<UseLiteTailParams> {
    await this.init();
    const m = this.model!.model;
    const w = this.weights!;
    const read = (name: string): Float32Array => Float32Array.from(graphWeight(m, name).dataSync());
    return {
      hidden: w.hidden,
      inner: w.inner,
      gamma: read(N.gamma),
      beta: read(N.beta),
      epsilon: w.epsilon,
      w1: read(N.w1),
      b1: read(N.b1),
      w2: read(N.w2),
      b2: read(N.b2),
      wh: read(N.wh),
      bh: read(N.bh),
      l2Floor: w.l2Floor,
    };
  }

  /**
   * Test hook: replaces γ/β in the live graph (the executor reads its weight map at every run) and
   * returns a function restoring the originals. For finite differences through the real graph.
   */
  async replaceLayerNorm(gamma: Float32Array, beta: Float32Array): Promise<() => void> {
    await this.init();
    const tf = this.tf!;
    const weights = this.model!.model.weights;
    const old = { gamma: weights[N.gamma], beta: weights[N.beta] };
    if (gamma.length !== this.weights!.hidden || beta.length !== this.weights!.hidden) throw new Error('replaceLayerNorm: γ/β must have the hidden size');
    const g = tf.tensor1d(gamma, 'float32');
    const b = tf.tensor1d(beta, 'float32');
    weights[N.gamma] = [g];
    weights[N.beta] = [b];
    return () => {
      weights[N.gamma] = old.gamma;
      weights[N.beta] = old.beta;
      g.dispose();
      b.dispose();
    };
  }

  // ---------------------------------------------------------------------------------------------

  private async probeNow(query: string, passages: readonly string[], runs: number, seed: number, rate: number): Promise<GradientProbeResult> {
    const w = this.weights!;
    const H = w.hidden;
    const shared = this.querySide === 'shared';
    const stats: UseLiteProbeStats = { modelCalls: 0, rows: 0, paddedTokens: 0, forwardMs: 0, backwardMs: 0 };

    // Distinct id sequences; rows referenced by passage (base) and by run.
    const rows: number[][] = [];
    const index = new Map<string, number>();
    const addRow = (ids: number[]): number => {
      const key = ids.join(',');
      const known = index.get(key);
      if (known !== undefined) return known;
      rows.push(ids);
      index.set(key, rows.length - 1);
      return rows.length - 1;
    };
    const baseRows: number[] = [];
    const runRows: number[][] = [];
    for (const text of passages) {
      const ids = this.tokenizeSync(text);
      baseRows.push(addRow(ids));
      runRows.push(rate > 0 ? dropoutRuns(ids, seed, text, runs, rate).map(addRow) : new Array<number>(runs).fill(baseRows[baseRows.length - 1]));
    }

    const q = await this.queryState(this.tokenizeSync(query), stats);
    const embeddings: Float32Array[] = new Array(rows.length);
    const grads: Float32Array[] = new Array(rows.length);
    try {
      const order = rows.map((_, i) => i).sort((a, b) => rows[b].length - rows[a].length || a - b);
      for (let i = 0; i < order.length; i += this.batchSize) {
        const chunk = order.slice(i, i + this.batchSize);
        const batch = chunk.map((r) => rows[r]);
        let t0 = performance.now();
        const [x, z, e, f] = await this.forward(batch, [N.lnInput, N.conv1Preact, N.tanh, N.output]);
        stats.forwardMs += performance.now() - t0;
        stats.modelCalls++;
        stats.paddedTokens += batch.length * x.shape[1];
        t0 = performance.now();
        let g: TfTensor;
        try {
          g = this.batchGradient(batch, x, z, e, f, q, shared);
        } finally {
          x.dispose();
          z.dispose();
          e.dispose();
        }
        try {
          const [gd, fd] = await Promise.all([g.data(), f.data()]);
          chunk.forEach((r, b) => {
            grads[r] = Float32Array.from(gd.subarray(b * 2 * H, (b + 1) * 2 * H));
            embeddings[r] = Float32Array.from(fd.subarray(b * H, (b + 1) * H));
          });
        } finally {
          g.dispose();
          f.dispose();
        }
        stats.backwardMs += performance.now() - t0;
      }
    } finally {
      for (const t of [q.e, q.f, q.mT, q.nT]) t.dispose();
    }
    stats.rows = rows.length + 1;
    this.lastStats = stats;

    const fq = q.fHost;
    const dot = (a: Float32Array): number => {
      let s = 0;
      for (let j = 0; j < H; j++) s += fq[j] * a[j];
      return s;
    };
    return {
      scores: baseRows.map((r) => dot(embeddings[r])),
      // A fresh array per run (runs may share a row), so callers can mutate them independently.
      gradients: runRows.map((mine) => mine.map((r) => Float32Array.from(grads[r]))),
    };
  }

  /** The query's forward pass and the matrices of its (linear) VJP. */
  private async queryState(ids: number[], stats: UseLiteProbeStats): Promise<QueryState> {
    const tf = this.tf!;
    const w = this.weights!;
    const t0 = performance.now();
    const [x, z, e, f] = await this.forward([ids], [N.lnInput, N.conv1Preact, N.tanh, N.output]);
    stats.forwardMs += performance.now() - t0;
    stats.modelCalls++;
    stats.paddedTokens += ids.length;
    try {
      const n = ids.length;
      const { mT, nT } = tf.tidy(() => {
        const xhat = this.normalise(tf.reshape(x, [n, w.hidden]));
        const mask = tf.cast(tf.greater(tf.reshape(z, [n, w.inner]), 0), 'float32');
        return {
          mT: tf.mul(w.w1T, tf.matMul(tf.transpose(mask), xhat)),
          nT: tf.mul(w.w1T, tf.reshape(tf.sum(mask, 0), [w.inner, 1])),
        };
      });
      return { e, f, fHost: Float32Array.from(f.dataSync()), tokens: n, mT, nT };
    } finally {
      x.dispose();
      z.dispose();
    }
  }

  /**
   * c = Wh·[(v − f<f,v>)/‖e‖ ⊙ (1 − e²)] / max(n, 1) per row: the cotangent reaching every pooled
   * token (see libs/forensics/src/gradient/use-lite-tail.ts). e, f: [B|1, H]; v: [B|1, H]; denom: [B|1, 1].
   */
  private pooledCotangent(e: TfTensor, f: TfTensor, v: TfTensor, denom: TfTensor): TfTensor {
    const tf = this.tf!;
    const w = this.weights!;
    const ss = tf.sum(tf.square(e), 1, true);
    const norm = tf.sqrt(tf.maximum(ss, w.l2Floor));
    const projected = tf.cast(tf.greater(ss, w.l2Floor), 'float32');
    const fv = tf.sum(tf.mul(f, v), 1, true);
    const de = tf.div(tf.sub(v, tf.mul(f, tf.mul(fv, projected))), norm);
    const delta = tf.mul(de, tf.sub(1, tf.square(e)));
    return tf.div(tf.matMul(delta, w.whT), denom);
  }

  /** x̂ = (x − mean) / sqrt(var + ε) over the last axis. */
  private normalise(x: TfTensor): TfTensor {
    const tf = this.tf!;
    const c = tf.sub(x, tf.mean(x, -1, true));
    return tf.mul(c, tf.rsqrt(tf.add(tf.mean(tf.square(c), -1, true), this.weights!.epsilon)));
  }

  /** [B, 2H] gradients of s(q, row) for one batch, from the model's intermediate tensors. */
  private batchGradient(batch: number[][], x: TfTensor, z: TfTensor, e: TfTensor, f: TfTensor, q: QueryState, shared: boolean): TfTensor {
    const tf = this.tf!;
    const w = this.weights!;
    const H = w.hidden;
    const B = batch.length;
    const T = x.shape[1];
    const total = batch.reduce((s, r) => s + r.length, 0);
    if (z.shape[1] !== total) throw new Error(`USE-lite: conv1 saw ${z.shape[1]} tokens, expected ${total}`);
    // Valid (non-padding) positions in row-major order = the order of the graph's Where/GatherNd:
    // row b's tokens are the contiguous block [b·T, b·T + n_b) of the padded input. Token → row
    // assignment as one-hot matrices (matmuls beat gather/segment ops on the WASM backend).
    const owner = new Float32Array(total * B);
    const seg = new Float32Array(B * total);
    let k = 0;
    batch.forEach((r, b) => {
      for (let t = 0; t < r.length; t++, k++) {
        owner[k * B + b] = 1;
        seg[b * total + k] = 1;
      }
    });
    return tf.tidy(() => {
      const x2 = tf.reshape(x, [B * T, H]);
      const blocks = batch.map((r, b) => tf.slice(x2, [b * T, 0], [r.length, H]));
      const xhat = this.normalise(blocks.length === 1 ? blocks[0] : tf.concat(blocks, 0));
      const mask = tf.cast(tf.greater(tf.reshape(z, [total, w.inner]), 0), 'float32');
      const denom = tf.tensor2d(batch.map((r) => Math.max(r.length, 1)), [B, 1]);
      // Passage side: cotangent f_q through this row's tail.
      const c = this.pooledCotangent(e, f, q.f, denom);
      const g = tf.matMul(c, w.w2T); // [B, I]
      const dz = tf.mul(tf.matMul(tf.tensor2d(owner, [total, B]), g), mask); // [N, I]
      const dy = tf.matMul(dz, w.w1T); // [N, H]
      const segment = tf.tensor2d(seg, [B, total]);
      let dGamma = tf.matMul(segment, tf.mul(dy, xhat));
      let dBeta = tf.matMul(segment, dy);
      if (shared) {
        // Query side: cotangent f_p through the query's tail (linear in f_p via M_q, N_q).
        const cq = this.pooledCotangent(q.e, q.f, f, tf.scalar(Math.max(q.tokens, 1)));
        const gq = tf.matMul(cq, w.w2T);
        dGamma = tf.add(dGamma, tf.matMul(gq, q.mT));
        dBeta = tf.add(dBeta, tf.matMul(gq, q.nT));
      }
      return tf.concat([dGamma, dBeta], 1);
    });
  }

  /** One executeAsync over id sequences (padded to the longest); returns the requested nodes. */
  private async forward(rows: readonly (readonly number[])[], outputs: string[]): Promise<TfTensor[]> {
    const tf = this.tf!;
    const model = this.model!.model;
    const total = rows.reduce((s, r) => s + r.length, 0);
    const ind = new Int32Array(total * 2);
    const val = new Int32Array(total);
    let k = 0;
    rows.forEach((r, b) => {
      if (r.length === 0) throw new Error('USE-lite: empty token sequence');
      r.forEach((id, t) => {
        ind[2 * k] = b;
        ind[2 * k + 1] = t;
        val[k++] = id;
      });
    });
    const indices = tf.tensor2d(ind, [total, 2], 'int32');
    const values = tf.tensor1d(val, 'int32');
    try {
      const out = await model.executeAsync({ [N.inputIndices]: indices, [N.inputValues]: values }, outputs);
      return Array.isArray(out) ? out : [out];
    } finally {
      indices.dispose();
      values.dispose();
    }
  }

  private tokenizeSync(text: string): number[] {
    const m = this.model!;
    let ids = m.tokenizer.encode(text);
    if (ids.length === 0) ids = m.tokenizer.encode(' '); // '' encodes to nothing; the embedder uses ' '
    return ids.slice(0, this.weights!.maxLength);
  }

  private async load(): Promise<void> {
    const { tf, model } = await loadUseLite();
    const g = model.model;
    const scalar = (name: string): number => graphWeight(g, name).dataSync()[0];
    const w1 = graphWeight(g, N.w1);
    const w2 = graphWeight(g, N.w2);
    const wh = graphWeight(g, N.wh);
    const [hidden, inner] = w1.shape;
    const gamma = graphWeight(g, N.gamma);
    const beta = graphWeight(g, N.beta);
    const ok =
      gamma.shape[0] === hidden && beta.shape[0] === hidden && w2.shape[0] === inner && w2.shape[1] === hidden && wh.shape[0] === hidden && wh.shape[1] === hidden;
    if (!ok) {
      model.model.dispose();
      throw new Error(`UseLiteGradientProbe: unexpected USE-lite tail shapes (W1 ${w1.shape}, W2 ${w2.shape}, Wh ${wh.shape}, γ ${gamma.shape})`);
    }
    this.weights = { w1T: tf.transpose(w1), w2T: tf.transpose(w2), whT: tf.transpose(wh), hidden, inner, epsilon: scalar(N.lnEpsilon), l2Floor: scalar(N.l2Floor), maxLength: scalar(N.maxLength) };
    this.tf = tf;
    this.model = model;
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * Token dropout over a passage's ids: each id dropped with probability `rate` (removed from the
 * sequence), at least one kept. `runs` sequences from one mulberry32 stream seeded by (seed, text).
 */
export function dropoutRuns(ids: readonly number[], seed: number, text: string, runs: number, rate: number): number[][] {
  const rng = mulberry32(passageSeed(seed, text));
  const out: number[][] = [];
  for (let r = 0; r < runs; r++) {
    const kept: number[] = [];
    for (const id of ids) if (!(rate > 0 && rng() < rate)) kept.push(id);
    if (kept.length === 0 && ids.length > 0) kept.push(ids[Math.floor(rng() * ids.length)]);
    out.push(kept);
  }
  return out;
}

/** 32-bit seed of a passage's dropout stream: FNV-1a over the text's UTF-16 units, keyed by the caller's seed. */
export function passageSeed(seed: number, text: string): number {
  const s = Math.trunc(seed);
  let h = (0x811c9dc5 ^ (s >>> 0)) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  h = Math.imul(h ^ (Math.floor(s / 0x100000000) >>> 0), 0x01000193) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  return (h ^ (h >>> 12)) >>> 0;
}
