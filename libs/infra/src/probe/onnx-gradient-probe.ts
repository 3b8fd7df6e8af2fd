import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { affineEmbedding, cosine, mulberry32, pooledNormalizedInput, similarityGradient, tokenDropoutMask, type AffineEmbedding } from '@forensics/algorithms';
import type { GradientProbe, GradientProbeOptions, GradientProbeResult } from '@forensics/core';
import { OnnxEmbedder } from '../embedders/onnx-embedder.adapter';
import type { EncodedBatch } from '../embedders/hf-tokenizer';
import { findLayerNormByInput, readOnnxGraph } from './onnx-graph-reader';

/** The extra graph output carrying the last LayerNorm's input (see writeRandomBertOnnx in test/support/random-bert-onnx.ts). */
export const PROBE_LN_INPUT = 'last_ln_input';

export interface ExplicitLayerNorm {
  gamma: Float32Array;
  beta: Float32Array;
  epsilon: number;
}

export interface OnnxGradientProbeOptions {
  /** model.onnx + tokenizer.json (+ config.json); the graph must output `last_ln_input`. */
  modelDir: string;
  /**
   * γ/β/ε of the LayerNorm that consumes `last_ln_input`. 'from-model' reads them from the ONNX
   * initializers (the fused LayerNormalization node whose input is `last_ln_input`).
   */
  layerNorm: ExplicitLayerNorm | 'from-model';
  /** onnxruntime intra-op threads. Default 2. */
  intraOpThreads?: number;
  /**
   * 'shared' (default): the query is embedded by the same encoder, so ϑ moves both sides and the
   * gradient holds both contributions. 'fixed': the query embedding is a constant.
   */
  querySide?: 'shared' | 'fixed';
  /** Max tokens per text incl. [CLS]/[SEP]. Default 256. */
  maxLength?: number;
  /** Budget of rows × padded sequence length per onnxruntime run. Default 16384. */
  maxTokensPerRun?: number;
  /**
   * Rows are sorted by length and a new run starts when the next row would be padded by more than
   * this fraction of the run's sequence length (padding costs as much as real tokens). Default 0.1.
   */
  maxPaddingFraction?: number;
  /**
   * Pooled rows (x̄ per (text, mask)) kept between calls, least recently used evicted: the gated
   * second pass of an event reuses the first pass's unperturbed rows, a re-probe with the same seed
   * costs nothing. H float64 each (3 KB at H = 384). Default 4096; 0 disables.
   */
  cacheSize?: number;
  /** Label for evidence; default derived from the LayerNorm's initializer name. */
  layerLabel?: string;
}

interface Row {
  text: number;
  /** Cache key: mask + text. */
  key: string;
  /** Mask over the text's own tokens (length = its token count). */
  mask: Uint8Array;
}

/**
 * ProGRank probe gradients on an ONNX sentence encoder, exact in closed form for the LAST
 * LayerNorm (derivation: libs/forensics/src/gradient/layernorm-gradient.ts). onnxruntime-node is
 * inference-only, so the graph exports the last LayerNorm's input (`last_ln_input`) and everything
 * after it — LayerNorm, attention-masked mean pooling, L2 normalisation, dot product — is
 * recomputed here in float64 together with its gradient.
 *
 * Perturbation: token dropout on the passage side only (ProGRank, arXiv 2603.22934, Supplementary
 * Material, "Perturbation Types and Hyperparameter Settings": the attention mask of each dropped
 * token is set to 0; [CLS] is kept — [SEP] too, here; at least one other token stays). The query is
 * unperturbed. Encoder (internal) dropout is NOT available: an inference graph has no dropout
 * nodes. The dropout stream of a passage is seeded by (seed, passage text), so a passage gets the
 * same perturbations whatever its position in the pool.
 *
 * Cost: all R runs of all passages (+ the unperturbed passages and the query) go through the
 * encoder as a handful of large `run` calls (rows sorted by length and packed into batches of at most
 * `maxTokensPerRun` padded tokens and `maxPaddingFraction` padding); identical (text, mask) rows are computed once, so with
 * `tokenDropout: 0` there is one row per passage.
 */
export class OnnxGradientProbe implements GradientProbe {
  readonly encoder: string;
  readonly exact = true;
  readonly querySide: 'shared' | 'fixed';
  private layerLabel: string;
  private readonly modelDir: string;
  private readonly explicitLn: ExplicitLayerNorm | null;
  private readonly maxTokensPerRun: number;
  private readonly maxPaddingFraction: number;
  private readonly cacheSize: number;
  private readonly cache = new Map<string, Float64Array>();
  private readonly embedder: OnnxEmbedder;
  private ln: ExplicitLayerNorm | null = null;
  private initPromise: Promise<void> | null = null;
  /** The last `probe` call: onnxruntime runs, rows run through the encoder, rows served from the cache, padded tokens. */
  lastStats = { runs: 0, rows: 0, cachedRows: 0, paddedTokens: 0 };

  constructor(options: OnnxGradientProbeOptions) {
    if (!options?.modelDir) throw new Error('OnnxGradientProbe: modelDir is required');
    this.modelDir = resolve(options.modelDir);
    this.encoder = `onnx:${this.modelDir}`;
    this.querySide = options.querySide ?? 'shared';
    if (this.querySide !== 'shared' && this.querySide !== 'fixed') throw new Error(`OnnxGradientProbe: querySide must be 'shared' or 'fixed'`);
    this.maxTokensPerRun = options.maxTokensPerRun ?? 16384;
    if (!Number.isInteger(this.maxTokensPerRun) || this.maxTokensPerRun < 1) throw new Error('OnnxGradientProbe: maxTokensPerRun must be a positive integer');
    this.maxPaddingFraction = options.maxPaddingFraction ?? 0.1;
    this.cacheSize = options.cacheSize ?? 4096;
    if (!Number.isInteger(this.cacheSize) || this.cacheSize < 0) throw new Error('OnnxGradientProbe: cacheSize must be an integer ≥ 0');
    if (!(this.maxPaddingFraction >= 0 && this.maxPaddingFraction <= 1)) throw new Error('OnnxGradientProbe: maxPaddingFraction must be in [0, 1]');
    if (options.layerNorm === 'from-model') this.explicitLn = null;
    else {
      const { gamma, beta, epsilon } = options.layerNorm ?? ({} as Partial<ExplicitLayerNorm>);
      if (!(gamma instanceof Float32Array) || !(beta instanceof Float32Array) || gamma.length !== beta.length || gamma.length === 0) {
        throw new Error("OnnxGradientProbe: layerNorm must be 'from-model' or { gamma, beta } Float32Arrays of the hidden size");
      }
      if (!(typeof epsilon === 'number' && epsilon > 0)) throw new Error('OnnxGradientProbe: layerNorm.epsilon must be > 0');
      this.explicitLn = { gamma, beta, epsilon };
    }
    this.layerLabel = options.layerLabel ?? (this.explicitLn ? `LayerNorm consuming ${PROBE_LN_INPUT} (last)` : '');
    // Pool the LayerNorm's input directly: the runtime then never computes the last LayerNorm.
    this.embedder = new OnnxEmbedder({ modelDir: this.modelDir, intraOpThreads: options.intraOpThreads, maxLength: options.maxLength, outputName: PROBE_LN_INPUT });
  }

  /** The probed parameter subset; known after init() for 'from-model'. */
  get layer(): string {
    if (!this.layerLabel) throw new Error(`${this.encoder}: layer is known after init()`);
    return this.layerLabel;
  }

  /** γ/β/ε in use (after init). */
  get layerNorm(): ExplicitLayerNorm {
    if (!this.ln) throw new Error(`${this.encoder}: call init() first`);
    return this.ln;
  }

  init(): Promise<void> {
    this.initPromise ??= this.load().catch((err: unknown) => {
      this.initPromise = null;
      throw err;
    });
    return this.initPromise;
  }

  async close(): Promise<void> {
    const pending = this.initPromise;
    if (pending) await pending.catch(() => undefined);
    this.initPromise = null;
    this.ln = null;
    this.cache.clear();
    await this.embedder.close();
  }

  async probe(query: string, passages: readonly string[], opts: GradientProbeOptions): Promise<GradientProbeResult> {
    await this.init();
    const { runs, seed, tokenDropout } = opts;
    if (!Number.isInteger(runs) || runs < 1) throw new Error(`OnnxGradientProbe: runs must be a positive integer, got ${runs}`);
    if (!Number.isFinite(seed)) throw new Error(`OnnxGradientProbe: seed must be a finite number, got ${seed}`);
    if (!(tokenDropout >= 0 && tokenDropout < 1)) throw new Error(`OnnxGradientProbe: tokenDropout must be in [0, 1), got ${tokenDropout}`);
    if (passages.length === 0) return { scores: [], gradients: [] };
    const ln = this.layerNorm;

    // Tokenise once; rows reuse the ids with different masks.
    const texts = [query, ...passages];
    const enc = await this.embedder.encode(texts);
    const ids: BigInt64Array[] = texts.map((_, i) => enc.inputIds.slice(i * enc.seqLength, i * enc.seqLength + enc.lengths[i]));

    // Rows: 0 = query, then per passage the unperturbed row and its R runs (deduplicated).
    const rows: Row[] = [];
    const rowIndex = new Map<string, number>();
    const addRow = (text: number, mask: Uint8Array): number => {
      const key = `${maskKey(mask)}:${texts[text]}`;
      const known = rowIndex.get(key);
      if (known !== undefined) return known;
      rows.push({ text, mask, key });
      rowIndex.set(key, rows.length - 1);
      return rows.length - 1;
    };
    const full = (n: number): Uint8Array => new Uint8Array(n).fill(1);
    const queryRow = addRow(0, full(ids[0].length));
    const baseRows: number[] = [];
    const runRows: number[][] = [];
    for (let p = 0; p < passages.length; p++) {
      const n = ids[p + 1].length;
      baseRows.push(addRow(p + 1, full(n)));
      runRows.push(tokenDropout > 0 ? passageRunMasks(seed, passages[p], ids[p + 1], runs, tokenDropout).map((m) => addRow(p + 1, m)) : new Array<number>(runs).fill(baseRows[p]));
    }

    const pooled = await this.poolRows(rows, ids, enc, ln.epsilon);
    const emb: AffineEmbedding[] = pooled.map((xbar) => affineEmbedding(xbar, ln.gamma, ln.beta));
    const q = emb[queryRow];
    const shared = this.querySide === 'shared';
    return {
      scores: baseRows.map((r) => cosine(q, emb[r])),
      gradients: runRows.map((mine) => mine.map((r) => similarityGradient(q, emb[r], shared))),
    };
  }

  /** x̄ per row, running the rows through onnxruntime in as few, length-sorted batches as the token budget allows. */
  private async poolRows(rows: Row[], ids: BigInt64Array[], enc: EncodedBatch, epsilon: number): Promise<Float64Array[]> {
    const out: Float64Array[] = new Array(rows.length);
    const todo: number[] = [];
    rows.forEach((row, i) => {
      const hit = this.cache.get(row.key);
      if (hit) {
        this.cache.delete(row.key); // refresh its LRU position
        this.cache.set(row.key, hit);
        out[i] = hit;
      } else todo.push(i);
    });
    const order = todo.sort((a, b) => rows[b].mask.length - rows[a].mask.length || a - b);
    const stats = { runs: 0, rows: order.length, cachedRows: rows.length - order.length, paddedTokens: 0 };
    let i = 0;
    while (i < order.length) {
      const seq = rows[order[i]].mask.length; // longest in the chunk (sorted)
      const maxRows = Math.max(1, Math.floor(this.maxTokensPerRun / seq));
      const minLen = seq * (1 - this.maxPaddingFraction);
      let end = i + 1;
      while (end < order.length && end - i < maxRows && rows[order[end]].mask.length >= minLen) end++;
      const chunk = order.slice(i, end);
      i = end;
      const b = chunk.length;
      const inputIds = new BigInt64Array(b * seq);
      const attentionMask = new BigInt64Array(b * seq);
      const tokenTypeIds = new BigInt64Array(b * seq);
      const masks: Uint8Array[] = [];
      chunk.forEach((r, k) => {
        const row = rows[r];
        const tid = ids[row.text];
        inputIds.set(tid, k * seq);
        tokenTypeIds.set(enc.tokenTypeIds.subarray(row.text * enc.seqLength, row.text * enc.seqLength + tid.length), k * seq);
        const m = new Uint8Array(seq);
        m.set(row.mask);
        masks.push(m);
        for (let t = 0; t < row.mask.length; t++) attentionMask[k * seq + t] = row.mask[t] ? 1n : 0n;
      });
      const batch: EncodedBatch = { batchSize: b, seqLength: seq, inputIds, attentionMask, tokenTypeIds, lengths: chunk.map((r) => rows[r].mask.length) };
      const res = await this.embedder.forwardEncoded(batch);
      const { data, dims } = res.hidden;
      if (dims.length !== 3 || dims[0] !== b || dims[1] !== seq) throw new Error(`${this.encoder}: ${PROBE_LN_INPUT} has dims [${dims.join(', ')}]; expected [${b}, ${seq}, hidden]`);
      const hidden = dims[2];
      if (hidden !== this.layerNorm.gamma.length) throw new Error(`${this.encoder}: ${PROBE_LN_INPUT} has width ${hidden} but γ has ${this.layerNorm.gamma.length} entries`);
      chunk.forEach((r, k) => {
        out[r] = pooledNormalizedInput(data, k, seq, hidden, masks[k], epsilon).xbar;
        this.remember(rows[r].key, out[r]);
      });
      stats.runs++;
      stats.paddedTokens += b * seq;
    }
    this.lastStats = stats;
    return out;
  }

  private remember(key: string, xbar: Float64Array): void {
    if (this.cacheSize === 0) return;
    this.cache.set(key, xbar);
    while (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
  }

  private async load(): Promise<void> {
    const modelPath = join(this.modelDir, 'model.onnx');
    const bytes = await readFile(modelPath).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`OnnxGradientProbe: cannot read ${modelPath} (${err.code ?? err.message})`);
    });
    const graph = readOnnxGraph(bytes);
    if (!graph.outputs.includes(PROBE_LN_INPUT)) {
      throw new Error(
        `OnnxGradientProbe: ${modelPath} does not expose the last LayerNorm's input as the graph output '${PROBE_LN_INPUT}' ` +
          `(outputs: ${graph.outputs.join(', ') || 'none'}); onnxruntime cannot differentiate, so the probe needs it — ` +
          're-export the encoder with that tensor added as an output (writeRandomBertOnnx: exposeLastLayerNormInput: true)',
      );
    }
    if (this.explicitLn) {
      this.ln = this.explicitLn;
    } else {
      const info = findLayerNormByInput(bytes, PROBE_LN_INPUT, graph);
      this.ln = { gamma: info.gamma, beta: info.beta, epsilon: info.epsilon };
      if (!this.layerLabel) this.layerLabel = `${info.scaleName.replace(/\.(weight|gamma|scale)$/, '')} (last)`;
    }
    await this.embedder.init();
    if (this.embedder.dimension !== this.ln.gamma.length) {
      await this.embedder.close();
      throw new Error(`OnnxGradientProbe: ${PROBE_LN_INPUT} has width ${this.embedder.dimension} but γ/β have ${this.ln.gamma.length} entries`);
    }
  }
}

/**
 * The R token-dropout masks `probe` uses for a passage: `tokenDropoutMask` (@forensics/algorithms)
 * over its token ids ([CLS] … [SEP], as encoded), keeping [CLS] and [SEP] (the first and last id)
 * and at least one other token, on one mulberry32 stream seeded by (seed, passage text), run by run.
 */
export function passageRunMasks(seed: number, text: string, tokenIds: ArrayLike<number | bigint>, runs: number, rate: number): Uint8Array[] {
  const idList = Array.from(tokenIds, Number);
  const cls = idList[0];
  const sep = idList[idList.length - 1];
  const rng = mulberry32(mixSeed(seed, text));
  return Array.from({ length: runs }, () => Uint8Array.from(tokenDropoutMask(idList, rate, rng, (id) => id === cls || id === sep)));
}

function maskKey(mask: Uint8Array): string {
  let s = '';
  for (let i = 0; i < mask.length; i++) s += mask[i] ? '1' : '0';
  return s;
}

/** Seed of a passage's dropout stream: FNV-1a of the text mixed with the caller's seed. */
function mixSeed(seed: number, text: string): number {
  let h = 0x811c9dc5 ^ (Math.trunc(seed) >>> 0);
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= Math.trunc(seed / 4294967296) >>> 0;
  return Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
}
