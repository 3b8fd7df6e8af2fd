import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeOnnxModel, OnnxDataType, type OnnxInitializer, type OnnxNode } from './onnx-model-writer';

/**
 * Generates a random-weight BERT encoder as an ONNX file (opset 17), laid out like a HuggingFace
 * sentence-transformers export: inputs input_ids / attention_mask / token_type_ids (int64,
 * [batch, sequence]), output `last_hidden_state` [batch, sequence, hidden]. No trained weights can
 * be downloaded on the project's machines, so tests and benchmarks run the real loading and pooling
 * code on models of the real shape made here.
 *
 * Graph (post-LN BERT, Devlin et al. 2019):
 *   h₀ = LN(E_word[ids] + E_pos[0..S) + E_type[tt])
 *   per layer: a = LN(h + (softmax(QKᵀ/√d_h + (1−mask)·(−10⁴)) V) W_o)
 *              h = LN(a + GELU(a W₁) W₂),  GELU(x) = ½x(1 + erf(x/√2))
 * The last LayerNorm's input (the second residual sum of the last layer) can be exported as the
 * extra output `last_ln_input` so that gradients w.r.t. that LayerNorm's γ/β (ProGRank,
 * arXiv 2603.22934, §3.2, Eq. 3) can be computed outside the runtime.
 */
export interface RandomBertShape {
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  intermediateSize: number;
  maxPositions: number;
  typeVocabSize: number;
  layerNormEps: number;
}

/** all-MiniLM-L6-v2's architecture (/work/shared/models/all-MiniLM-L6-v2-tokenizer/config.json). */
export const MINILM_L6_SHAPE: RandomBertShape = {
  vocabSize: 30522,
  hiddenSize: 384,
  numLayers: 6,
  numHeads: 12,
  intermediateSize: 1536,
  maxPositions: 512,
  typeVocabSize: 2,
  layerNormEps: 1e-12,
};

/** A tiny shape with the real vocabulary (so the real tokenizer works) for fast tests. */
export const TINY_BERT_SHAPE: RandomBertShape = {
  ...MINILM_L6_SHAPE,
  hiddenSize: 32,
  numLayers: 2,
  numHeads: 4,
  intermediateSize: 64,
  maxPositions: 512,
};

export const DEFAULT_TOKENIZER_DIR = '/work/shared/models/all-MiniLM-L6-v2-tokenizer';
export const LAST_LN_INPUT_OUTPUT = 'last_ln_input';

export interface RandomBertOnnxOptions {
  shape?: Partial<RandomBertShape>;
  /** PRNG seed; the same seed and shape give byte-identical files. Default 42. */
  seed?: number;
  /** Std of the N(0, σ²) weights and biases (BERT's initializer_range). Default 0.02. */
  initStd?: number;
  /** LayerNorm γ ~ 1 + N(0, σ²), β ~ N(0, σ²), so that γ/β are not the identity. Default 0.1. */
  layerNormJitter?: number;
  /** Adds the last LayerNorm's pre-normalisation input as the graph output `last_ln_input`. */
  exposeLastLayerNormInput?: boolean;
  /** Where tokenizer.json / vocab.txt / tokenizer_config.json are copied from. */
  tokenizerDir?: string;
}

export interface RandomBertOnnxResult {
  modelPath: string;
  shape: RandomBertShape;
  /** γ and β of the last LayerNorm (the one producing last_hidden_state). */
  lastLayerNorm: { gamma: Float32Array; beta: Float32Array; epsilon: number };
  outputNames: string[];
}

/** Mulberry32 uniform PRNG + Box–Muller normals; deterministic for a seed. */
function normalSampler(seed: number): (std: number) => number {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let spare: number | null = null;
  return (std) => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s * std;
    }
    const u = 1 - uniform();
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v) * std;
  };
}

/** Builds the graph and writes `model.onnx`, `config.json` and the real tokenizer files into `dir`. */
export async function writeRandomBertOnnx(dir: string, opts: RandomBertOnnxOptions = {}): Promise<RandomBertOnnxResult> {
  const shape: RandomBertShape = { ...MINILM_L6_SHAPE, ...opts.shape };
  const { hiddenSize: H, numHeads, intermediateSize: F, layerNormEps: eps } = shape;
  for (const [k, v] of Object.entries(shape)) {
    if (k !== 'layerNormEps' && (!Number.isInteger(v) || v < 1)) throw new Error(`writeRandomBertOnnx: ${k} must be a positive integer, got ${v}`);
  }
  if (!(eps > 0)) throw new Error(`writeRandomBertOnnx: layerNormEps must be > 0, got ${eps}`);
  if (H % numHeads !== 0) throw new Error(`hiddenSize ${H} is not divisible by numHeads ${numHeads}`);
  const headDim = H / numHeads;
  const std = opts.initStd ?? 0.02;
  const lnJitter = opts.layerNormJitter ?? 0.1;
  const randn = normalSampler(opts.seed ?? 42);

  const nodes: OnnxNode[] = [];
  const inits: OnnxInitializer[] = [];
  const node = (opType: string, inputs: string[], output: string, attributes?: OnnxNode['attributes']): string => {
    nodes.push({ opType, inputs, outputs: [output], name: `${output}/${opType}`, attributes });
    return output;
  };
  const param = (name: string, dims: number[], sample: () => number): Float32Array => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = sample();
    inits.push({ name, dims, data });
    return data;
  };
  const weight = (name: string, dims: number[]): string => {
    param(name, dims, () => randn(std));
    return name;
  };
  const scalarF = (name: string, v: number): string => {
    inits.push({ name, dims: [], data: Float32Array.of(v) });
    return name;
  };
  const int64s = (name: string, values: number[]): string => {
    inits.push({ name, dims: [values.length], data: BigInt64Array.from(values.map(BigInt)) });
    return name;
  };
  // Reassigned by every LayerNorm, so after the graph is built it holds the last one's γ/β.
  let lastLn: { gamma: Float32Array; beta: Float32Array } = { gamma: new Float32Array(0), beta: new Float32Array(0) };
  const layerNorm = (x: string, prefix: string, output: string): string => {
    lastLn = { gamma: param(`${prefix}.weight`, [H], () => 1 + randn(lnJitter)), beta: param(`${prefix}.bias`, [H], () => randn(lnJitter)) };
    return node('LayerNormalization', [x, `${prefix}.weight`, `${prefix}.bias`], output, {
      axis: { kind: 'int', value: -1 },
      epsilon: { kind: 'float', value: eps },
    });
  };
  const dense = (x: string, prefix: string, inDim: number, outDim: number): string => {
    const w = weight(`${prefix}.weight`, [inDim, outDim]);
    const b = weight(`${prefix}.bias`, [outDim]);
    return node('Add', [node('MatMul', [x, w], `${prefix}/matmul`), b], `${prefix}/out`);
  };

  // Embeddings.
  const wordEmb = weight('embeddings.word_embeddings.weight', [shape.vocabSize, H]);
  const posEmb = weight('embeddings.position_embeddings.weight', [shape.maxPositions, H]);
  const typeEmb = weight('embeddings.token_type_embeddings.weight', [shape.typeVocabSize, H]);
  const seqLen = node('Shape', ['input_ids'], 'emb/seq_len', { start: { kind: 'int', value: 1 }, end: { kind: 'int', value: 2 } });
  const positions = node('Slice', [posEmb, int64s('const/zero_1d', [0]), seqLen, int64s('const/axes0', [0])], 'emb/positions');
  const words = node('Gather', [wordEmb, 'input_ids'], 'emb/words');
  const types = node('Gather', [typeEmb, 'token_type_ids'], 'emb/types');
  const embSum = node('Add', [node('Add', [words, positions], 'emb/words_pos'), types], 'emb/sum');
  let h = layerNorm(embSum, 'embeddings.LayerNorm', 'emb/out');

  // Additive attention mask [B, 1, 1, S]: 0 for tokens, −10⁴ for padding (exp underflows to 0).
  const maskF = node('Cast', ['attention_mask'], 'mask/float', { to: { kind: 'int', value: OnnxDataType.FLOAT } });
  const mask4 = node('Unsqueeze', [maskF, int64s('const/axes12', [1, 2])], 'mask/4d');
  const inverted = node('Sub', [scalarF('const/one', 1), mask4], 'mask/inverted');
  const additiveMask = node('Mul', [inverted, scalarF('const/neg_big', -10000)], 'mask/additive');

  const headsShape = int64s('const/heads_shape', [0, 0, numHeads, headDim]);
  const mergedShape = int64s('const/merged_shape', [0, 0, H]);
  const scale = scalarF('const/attn_scale', 1 / Math.sqrt(headDim));
  const sqrt2 = scalarF('const/sqrt2', Math.SQRT2);
  const half = scalarF('const/half', 0.5);
  const last = shape.numLayers - 1;

  for (let l = 0; l < shape.numLayers; l++) {
    const p = `encoder.layer.${l}`;
    const heads = (x: string, name: string, perm: number[]): string =>
      node('Transpose', [node('Reshape', [x, headsShape], `${p}/${name}_heads`)], `${p}/${name}_t`, { perm: { kind: 'ints', value: perm } });
    const q = heads(dense(h, `${p}.attention.self.query`, H, H), 'q', [0, 2, 1, 3]); // [B, nh, S, dh]
    const k = heads(dense(h, `${p}.attention.self.key`, H, H), 'k', [0, 2, 3, 1]); // [B, nh, dh, S]
    const v = heads(dense(h, `${p}.attention.self.value`, H, H), 'v', [0, 2, 1, 3]);
    const scores = node('Mul', [node('MatMul', [q, k], `${p}/qk`), scale], `${p}/scores_scaled`);
    const probs = node('Softmax', [node('Add', [scores, additiveMask], `${p}/scores_masked`)], `${p}/probs`, { axis: { kind: 'int', value: -1 } });
    const ctx = node('MatMul', [probs, v], `${p}/ctx`);
    const ctxMerged = node('Reshape', [node('Transpose', [ctx], `${p}/ctx_t`, { perm: { kind: 'ints', value: [0, 2, 1, 3] } }), mergedShape], `${p}/ctx_merged`);
    const attnOut = dense(ctxMerged, `${p}.attention.output.dense`, H, H);
    const a = layerNorm(node('Add', [attnOut, h], `${p}/attn_residual`), `${p}.attention.output.LayerNorm`, `${p}/attn_out`);

    const inter = dense(a, `${p}.intermediate.dense`, H, F);
    const erf = node('Erf', [node('Div', [inter, sqrt2], `${p}/gelu_div`)], `${p}/gelu_erf`);
    const gelu = node('Mul', [node('Mul', [inter, node('Add', [erf, 'const/one'], `${p}/gelu_1p`)], `${p}/gelu_x`), half], `${p}/gelu`);
    const ffnOut = dense(gelu, `${p}.output.dense`, F, H);
    const residual = node('Add', [ffnOut, a], l === last ? LAST_LN_INPUT_OUTPUT : `${p}/ffn_residual`);
    h = layerNorm(residual, `${p}.output.LayerNorm`, l === last ? 'last_hidden_state' : `${p}/out`);
  }

  const dyn = ['batch_size', 'sequence_length'];
  const outputs = [{ name: 'last_hidden_state', elemType: OnnxDataType.FLOAT, dims: [...dyn, H] }];
  if (opts.exposeLastLayerNormInput) outputs.push({ name: LAST_LN_INPUT_OUTPUT, elemType: OnnxDataType.FLOAT, dims: [...dyn, H] });
  const bytes = encodeOnnxModel({
    name: 'random_bert',
    nodes,
    initializers: inits,
    inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, elemType: OnnxDataType.INT64, dims: dyn })),
    outputs,
  });

  await mkdir(dir, { recursive: true });
  const modelPath = join(dir, 'model.onnx');
  await writeFile(modelPath, bytes);
  const tokenizerDir = opts.tokenizerDir ?? DEFAULT_TOKENIZER_DIR;
  // read + write rather than copyFile: the shared originals are read-only and copyFile keeps the mode.
  for (const f of ['tokenizer.json', 'vocab.txt', 'tokenizer_config.json']) await writeFile(join(dir, f), await readFile(join(tokenizerDir, f)));
  const config = {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_act: 'gelu',
    hidden_size: H,
    intermediate_size: F,
    layer_norm_eps: eps,
    max_position_embeddings: shape.maxPositions,
    num_attention_heads: numHeads,
    num_hidden_layers: shape.numLayers,
    type_vocab_size: shape.typeVocabSize,
    vocab_size: shape.vocabSize,
    pad_token_id: 0,
    _note: `random weights (seed ${opts.seed ?? 42}), generated by writeRandomBertOnnx for tests`,
  };
  await writeFile(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  return { modelPath, shape, lastLayerNorm: { ...lastLn, epsilon: eps }, outputNames: outputs.map((o) => o.name) };
}
