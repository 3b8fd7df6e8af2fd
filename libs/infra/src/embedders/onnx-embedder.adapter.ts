import { access, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Embedder } from '@forensics/core';
import { l2Normalize, meanPool } from './pooling';
import { HfTokenizer, type EncodedBatch } from './hf-tokenizer';

export interface OnnxEmbedderOptions {
  /** Directory of a HuggingFace sentence-transformers ONNX export: model.onnx + tokenizer.json (+ config.json). */
  modelDir: string;
  /** onnxruntime intra-op threads. Default 2. */
  intraOpThreads?: number;
  /** Texts per `forward` in `embed()` (sorted by length, so each is padded to about its own length). Default 32. */
  batchSize?: number;
  /**
   * Rows per session run, however many texts a call holds. Default: all of them. 1 for a graph whose int8 MatMuls
   * quantise their input per run (onnxruntime's dynamic quantisation: one scale for the whole tensor, padding
   * included), where a text's vector would otherwise depend on what it is batched with.
   */
  rowsPerRun?: number;
  /** Max tokens per text including [CLS]/[SEP]. Default 256. */
  maxLength?: number;
  /** Output to pool; default `last_hidden_state`, else the graph's first output. */
  outputName?: string;
  /** The id collections record (default `onnx:<modelDir>`); a known model gets a stable name so a moved folder still matches. */
  id?: string;
}

export interface OnnxTensorOutput {
  data: Float32Array;
  dims: readonly number[];
}

/** Everything one session run produced for a batch, for callers that need more than the pooled vector. */
export interface OnnxForwardResult {
  batchSize: number;
  seqLength: number;
  /** Row-major [batch, seq] (int64 as in the graph). */
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  /** The pooled output, [batch, seq, hidden] (or [batch, hidden] if the graph pools itself). */
  hidden: OnnxTensorOutput;
  /** Mean-pooled (masked), L2-normalised embeddings, one per text. */
  embeddings: Float32Array[];
  /** The requested extra outputs by name, e.g. `last_ln_input`. */
  extras: Record<string, OnnxTensorOutput>;
}

const KNOWN_INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

/**
 * Sentence embeddings from a BERT-family ONNX export (all-MiniLM-L6-v2, contriever, …) on
 * onnxruntime-node CPU: the model's tokenizer (`@huggingface/tokenizers`) → encoder → attention-masked mean pooling →
 * L2 normalisation.
 * The only file that imports onnxruntime-node. Runs are serialised (one session, fixed thread pool).
 */
export class OnnxEmbedder implements Embedder {
  readonly id: string;
  private readonly modelDir: string;
  private readonly intraOpThreads: number;
  private readonly batchSize: number;
  private readonly rowsPerRun: number;
  private readonly maxLength: number;
  private readonly requestedOutput: string | undefined;
  private session: ort.InferenceSession | null = null;
  private tokenizer: HfTokenizer | null = null;
  private outputName = '';
  private dim = 0;
  private initPromise: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: OnnxEmbedderOptions) {
    if (!options.modelDir) throw new Error('OnnxEmbedder: modelDir is required');
    this.modelDir = resolve(options.modelDir);
    this.id = options.id ?? `onnx:${this.modelDir}`;
    this.intraOpThreads = positiveInt(options.intraOpThreads ?? 2, 'intraOpThreads');
    this.batchSize = positiveInt(options.batchSize ?? 32, 'batchSize');
    this.rowsPerRun = options.rowsPerRun === undefined ? Infinity : positiveInt(options.rowsPerRun, 'rowsPerRun');
    this.maxLength = positiveInt(options.maxLength ?? 256, 'maxLength');
    this.requestedOutput = options.outputName;
  }

  /** Output dimension; throws before `init()` since it is read from the model. */
  get dimension(): number {
    if (!this.dim) throw new Error(`${this.id}: dimension is known after init()`);
    return this.dim;
  }

  /** Names of the graph's outputs (after init). */
  get outputNames(): readonly string[] {
    return this.requireSession().outputNames;
  }

  init(): Promise<void> {
    this.initPromise ??= this.load().catch((err: unknown) => {
      this.initPromise = null; // allow a retry after e.g. the files appear
      throw err;
    });
    return this.initPromise;
  }

  /**
   * Embeddings in the order of `texts`. Batches are formed from texts of similar length (sorted by character count,
   * as sentence-transformers does), so a batch is padded to about its own length instead of its longest stranger's:
   * attention costs grow with the padded length, and RAG passages vary from a dozen tokens to the 256 cap.
   */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    await this.init();
    const order = texts.map((t, i) => ({ i, n: t.length })).sort((a, b) => a.n - b.n || a.i - b.i).map((x) => x.i);
    const out: Float32Array[] = new Array(texts.length);
    for (let s = 0; s < order.length; s += this.batchSize) {
      const idx = order.slice(s, s + this.batchSize);
      const r = await this.forward(idx.map((i) => texts[i]));
      idx.forEach((i, j) => { out[i] = r.embeddings[j]; });
    }
    return out;
  }

  /**
   * One session run over `texts` (no internal batching) that also returns the named extra graph
   * outputs, e.g. `forward(texts, ['last_ln_input'])` for gradients w.r.t. the last LayerNorm.
   */
  async forward(texts: readonly string[], extraOutputs: readonly string[] = []): Promise<OnnxForwardResult> {
    await this.init();
    return this.run(texts, extraOutputs);
  }

  /** Tokenises a batch the way `forward` does (e.g. to drop tokens for perturbation runs). */
  async encode(texts: readonly string[]): Promise<EncodedBatch> {
    await this.init();
    return this.tokenizer!.encodeBatch(texts);
  }

  /** `forward` on an already tokenised batch (ids must come from this model's vocabulary). */
  async forwardEncoded(batch: EncodedBatch, extraOutputs: readonly string[] = []): Promise<OnnxForwardResult> {
    await this.init();
    return this.runEncoded(batch, extraOutputs);
  }

  async close(): Promise<void> {
    const pending = this.initPromise;
    if (pending) await pending.catch(() => undefined);
    await this.queue.catch(() => undefined);
    const s = this.session;
    this.session = null;
    this.tokenizer = null;
    this.initPromise = null;
    if (s) await s.release();
  }

  private async run(texts: readonly string[], extraOutputs: readonly string[]): Promise<OnnxForwardResult> {
    return this.runEncoded(this.tokenizer!.encodeBatch(texts), extraOutputs);
  }

  private async runEncoded(enc: EncodedBatch, extraOutputs: readonly string[]): Promise<OnnxForwardResult> {
    const session = this.requireSession();
    const unknown = extraOutputs.filter((n) => !session.outputNames.includes(n));
    if (unknown.length) throw new Error(`${this.id}: model has no output(s) ${unknown.join(', ')}; outputs are ${session.outputNames.join(', ')}`);
    if (enc.batchSize === 0) {
      return { batchSize: 0, seqLength: 0, inputIds: new BigInt64Array(0), attentionMask: new BigInt64Array(0), hidden: { data: new Float32Array(0), dims: [0, 0, this.dim] }, embeddings: [], extras: {} };
    }
    const n = enc.batchSize * enc.seqLength;
    if (enc.inputIds.length !== n || enc.attentionMask.length !== n || enc.tokenTypeIds.length !== n) {
      throw new Error(`${this.id}: encoded batch arrays do not match [${enc.batchSize}, ${enc.seqLength}]`);
    }
    const fetches = [this.outputName, ...extraOutputs.filter((n) => n !== this.outputName)];
    const outputs = enc.batchSize <= this.rowsPerRun ? await this.runSession(session, enc, fetches) : await this.runInGroups(session, enc, fetches);
    const hidden = outputs[this.outputName];
    const extras: Record<string, OnnxTensorOutput> = {};
    for (const n of extraOutputs) extras[n] = outputs[n];

    let embeddings: Float32Array[];
    if (hidden.dims.length === 3) {
      embeddings = meanPool(hidden.data, enc.attentionMask, enc.batchSize, enc.seqLength, hidden.dims[2]);
    } else if (hidden.dims.length === 2) {
      // A graph that already pools (e.g. a `sentence_embedding` output).
      embeddings = Array.from({ length: enc.batchSize }, (_, b) => hidden.data.slice(b * hidden.dims[1], (b + 1) * hidden.dims[1]));
    } else {
      throw new Error(`${this.id}: output ${this.outputName} has rank ${hidden.dims.length}; expected [batch, seq, hidden] or [batch, hidden]`);
    }
    embeddings.forEach(l2Normalize);
    return { batchSize: enc.batchSize, seqLength: enc.seqLength, inputIds: enc.inputIds, attentionMask: enc.attentionMask, hidden, embeddings, extras };
  }

  /** One session run over the whole encoded batch. */
  private async runSession(session: ort.InferenceSession, enc: EncodedBatch, fetches: readonly string[]): Promise<Record<string, OnnxTensorOutput>> {
    const dims = [enc.batchSize, enc.seqLength];
    const all: Record<string, BigInt64Array> = { input_ids: enc.inputIds, attention_mask: enc.attentionMask, token_type_ids: enc.tokenTypeIds };
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of session.inputNames) feeds[name] = new ort.Tensor('int64', all[name], dims);
    const results = await this.serialised(() => session.run(feeds, fetches));
    const out: Record<string, OnnxTensorOutput> = {};
    for (const n of fetches) out[n] = toOutput(results[n], n);
    for (const t of Object.values(results)) t.dispose();
    return out;
  }

  /**
   * `rowsPerRun` rows at a time, each group cut to its own longest row, laid back into the batch's [batch, seq, …]
   * shape (padded positions zero, as the mask ignores them): the result reads like one run's.
   */
  private async runInGroups(session: ort.InferenceSession, enc: EncodedBatch, fetches: readonly string[]): Promise<Record<string, OnnxTensorOutput>> {
    const L = enc.seqLength;
    const merged: Record<string, { data: Float32Array; dims: number[] }> = {};
    for (let b0 = 0; b0 < enc.batchSize; b0 += this.rowsPerRun) {
      const rows = Math.min(this.rowsPerRun, enc.batchSize - b0);
      const len = Math.max(1, ...enc.lengths.slice(b0, b0 + rows));
      const cut = (a: BigInt64Array) => {
        const o = new BigInt64Array(rows * len);
        for (let r = 0; r < rows; r++) o.set(a.subarray((b0 + r) * L, (b0 + r) * L + len), r * len);
        return o;
      };
      const part = await this.runSession(session, {
        batchSize: rows, seqLength: len, inputIds: cut(enc.inputIds), attentionMask: cut(enc.attentionMask), tokenTypeIds: cut(enc.tokenTypeIds),
        lengths: enc.lengths.slice(b0, b0 + rows),
      }, fetches);
      for (const [name, t] of Object.entries(part)) {
        if (t.dims.length < 2 || t.dims[0] !== rows) throw new Error(`${this.id}: output ${name} [${t.dims.join(', ')}] is not per row; it cannot be run ${this.rowsPerRun} row(s) at a time`);
        const seqAxis = t.dims.length >= 3 && t.dims[1] === len;
        const inner = t.dims.slice(seqAxis ? 2 : 1).reduce((x, y) => x * y, 1);
        const dims = [enc.batchSize, ...(seqAxis ? [L] : []), ...t.dims.slice(seqAxis ? 2 : 1)];
        const m = (merged[name] ??= { data: new Float32Array(dims.reduce((x, y) => x * y, 1)), dims });
        const rowSize = seqAxis ? L * inner : inner;
        const partRow = seqAxis ? len * inner : inner;
        for (let r = 0; r < rows; r++) m.data.set(t.data.subarray(r * partRow, (r + 1) * partRow), (b0 + r) * rowSize);
      }
    }
    return merged;
  }

  private async load(): Promise<void> {
    const dirStat = await stat(this.modelDir).catch(() => null);
    if (!dirStat?.isDirectory()) throw new Error(`OnnxEmbedder: model directory ${this.modelDir} does not exist`);
    const modelPath = join(this.modelDir, 'model.onnx');
    const tokenizerPath = join(this.modelDir, 'tokenizer.json');
    const missing: string[] = [];
    for (const p of [modelPath, tokenizerPath]) await access(p).catch(() => missing.push(p));
    if (missing.length) {
      throw new Error(`OnnxEmbedder: ${missing.join(' and ')} not found (expected a HuggingFace sentence-transformers ONNX export: model.onnx + tokenizer.json)`);
    }

    // config.json is optional; when present it caps the sequence length at the position table size.
    const maxPositions = await readMaxPositions(join(this.modelDir, 'config.json'));
    const tokenizer = await HfTokenizer.fromDir(this.modelDir, { maxLength: Math.min(this.maxLength, maxPositions ?? Infinity) });
    const session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: this.intraOpThreads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    const unsupported = session.inputNames.filter((n) => !KNOWN_INPUTS.has(n));
    if (unsupported.length || !session.inputNames.includes('input_ids')) {
      await session.release();
      throw new Error(`OnnxEmbedder: unsupported model inputs [${session.inputNames.join(', ')}]; expected input_ids (+ attention_mask, token_type_ids)`);
    }
    const outputName = this.requestedOutput ?? (session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0]);
    if (!session.outputNames.includes(outputName)) {
      await session.release();
      throw new Error(`OnnxEmbedder: model has no output ${outputName}; outputs are ${session.outputNames.join(', ')}`);
    }
    this.session = session;
    this.tokenizer = tokenizer;
    this.outputName = outputName;
    // The output width is read from one short run: output metadata often has symbolic dims.
    this.dim = (await this.run(['dimension probe'], [])).embeddings[0].length;
  }

  private requireSession(): ort.InferenceSession {
    if (!this.session) throw new Error(`${this.id}: call init() first`);
    return this.session;
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

async function readMaxPositions(configPath: string): Promise<number | undefined> {
  const raw = await readFile(configPath, 'utf8').catch(() => null);
  if (raw === null) return undefined;
  let parsed: { max_position_embeddings?: unknown };
  try {
    parsed = JSON.parse(raw) as typeof parsed;
  } catch {
    throw new Error(`OnnxEmbedder: ${configPath} is not valid JSON`);
  }
  const n = parsed.max_position_embeddings;
  return typeof n === 'number' && n >= 2 ? n : undefined;
}

function toOutput(t: ort.Tensor | undefined, name: string): OnnxTensorOutput {
  if (!t) throw new Error(`onnx output ${name} missing from the run result`);
  if (t.type !== 'float32') throw new Error(`onnx output ${name} is ${t.type}; expected float32`);
  // Copy: the tensor's buffer belongs to the runtime and is released by dispose().
  return { data: new Float32Array(t.data as Float32Array), dims: [...t.dims] };
}

function positiveInt(v: number, name: string): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`OnnxEmbedder: ${name} must be a positive integer, got ${v}`);
  return v;
}
