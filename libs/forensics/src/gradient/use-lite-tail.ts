/**
 * The USE-lite graph after the probed LayerNorm ("the tail"), rebuilt in float64 TypeScript, and its
 * closed-form gradient (ProGRank's probe gradient ∇_ϑ s(q, p), ProGRank, arXiv 2603.22934, §3.2,
 * Eq. 3, with ϑ = (γ, β) of the probed LayerNorm). Used as the reference the batched TF.js probe is
 * checked against (and by the finite-difference tests), never on the hot path.
 *
 * Tail of one text with n tokens, LayerNorm input x_t ∈ R^H (H = 512, t < n), inner width I = 1536:
 *   x̂_t = (x_t − mean(x_t)) / sqrt(var(x_t) + ε)            (ε = 1e-6, biased variance)
 *   y_t  = γ ⊙ x̂_t + β                                      (the probed LayerNorm, ϑ = (γ, β))
 *   z_t  = y_t W1 + b1,  a_t = relu(z_t)                     (FFN conv1 = 1×1 conv)
 *   h_t  = x_t + a_t W2 + b2                                 (FFN conv2 + residual add)
 *   p̄    = Σ_t h_t / max(n, 1)                               (masked mean pooling)
 *   e    = tanh(p̄ Wh + bh),  f = e / sqrt(max(‖e‖², 1e-12))  (tanh head, l2_normalize)
 *
 * Backward for a cotangent v = ∂L/∂f (for s = <f_q, f_p>: v = f_q on the passage side, v = f_p on
 * the query side):
 *   ∂L/∂e = (v − f <f, v>) / ‖e‖   (if ‖e‖² > floor; else v / sqrt(floor))
 *   δ     = ∂L/∂e ⊙ (1 − e²);  c = Wh δ / max(n, 1)          (same c for every token: mean pooling)
 *   g     = W2 c ∈ R^I                                       (the residual branch does not depend on ϑ)
 *   ∂L/∂y_t = W1 (g ⊙ 1[z_t > 0])
 *   ∂L/∂γ = Σ_t ∂L/∂y_t ⊙ x̂_t,   ∂L/∂β = Σ_t ∂L/∂y_t
 * With a shared encoder, ∂s/∂ϑ = J_qᵀ f_p + J_pᵀ f_q (both sides).
 */
export interface UseLiteTailParams {
  hidden: number;
  inner: number;
  gamma: Float32Array;
  beta: Float32Array;
  epsilon: number;
  /** [hidden, inner] row-major (y · W1). */
  w1: Float32Array;
  b1: Float32Array;
  /** [inner, hidden] row-major (a · W2). */
  w2: Float32Array;
  b2: Float32Array;
  /** [hidden, hidden] row-major (p̄ · Wh). */
  wh: Float32Array;
  bh: Float32Array;
  /** Floor of ‖e‖² in l2_normalize (1e-12). */
  l2Floor: number;
}

/** The LayerNorm input of one text: n rows of width hidden (row-major), n ≥ 0. */
export interface LayerNormInput {
  data: ArrayLike<number>;
  tokens: number;
}

export interface TailForward {
  /** tanh output e. */
  e: Float64Array;
  /** l2-normalised embedding f. */
  f: Float64Array;
  /** LayerNorm-normalised inputs x̂ (tokens × hidden). */
  xhat: Float64Array;
  /** conv1 pre-activations z (tokens × inner). */
  z: Float64Array;
}

/** Overrides of γ / β (e.g. for finite differences); float64 so ±h is not quantised. */
export interface LayerNormOverride {
  gamma?: ArrayLike<number>;
  beta?: ArrayLike<number>;
}

/** f(text) from the LayerNorm input, in float64. */
export function tailForward64(x: LayerNormInput, p: UseLiteTailParams, override: LayerNormOverride = {}): TailForward {
  const H = p.hidden;
  const I = p.inner;
  const n = x.tokens;
  const gamma = override.gamma ?? p.gamma;
  const beta = override.beta ?? p.beta;
  const xhat = new Float64Array(n * H);
  const z = new Float64Array(n * I);
  const pooled = new Float64Array(H);
  const y = new Float64Array(H);
  const a = new Float64Array(I);
  for (let t = 0; t < n; t++) {
    const off = t * H;
    let mean = 0;
    for (let i = 0; i < H; i++) mean += x.data[off + i];
    mean /= H;
    let v = 0;
    for (let i = 0; i < H; i++) {
      const d = x.data[off + i] - mean;
      v += d * d;
    }
    v /= H;
    const inv = 1 / Math.sqrt(v + p.epsilon);
    for (let i = 0; i < H; i++) {
      const xh = (x.data[off + i] - mean) * inv;
      xhat[off + i] = xh;
      y[i] = gamma[i] * xh + beta[i];
    }
    const zo = t * I;
    for (let k = 0; k < I; k++) z[zo + k] = p.b1[k];
    for (let i = 0; i < H; i++) {
      const yi = y[i];
      const row = i * I;
      for (let k = 0; k < I; k++) z[zo + k] += yi * p.w1[row + k];
    }
    for (let k = 0; k < I; k++) a[k] = z[zo + k] > 0 ? z[zo + k] : 0;
    for (let i = 0; i < H; i++) pooled[i] += x.data[off + i] + p.b2[i];
    for (let k = 0; k < I; k++) {
      const ak = a[k];
      if (ak === 0) continue;
      const row = k * H;
      for (let i = 0; i < H; i++) pooled[i] += ak * p.w2[row + i];
    }
  }
  const denom = Math.max(n, 1);
  for (let i = 0; i < H; i++) pooled[i] /= denom;
  const e = new Float64Array(H);
  for (let j = 0; j < H; j++) e[j] = p.bh[j];
  for (let i = 0; i < H; i++) {
    const pi = pooled[i];
    const row = i * H;
    for (let j = 0; j < H; j++) e[j] += pi * p.wh[row + j];
  }
  let ss = 0;
  for (let j = 0; j < H; j++) {
    e[j] = Math.tanh(e[j]);
    ss += e[j] * e[j];
  }
  const scale = 1 / Math.sqrt(Math.max(ss, p.l2Floor));
  const f = new Float64Array(H);
  for (let j = 0; j < H; j++) f[j] = e[j] * scale;
  return { e, f, xhat, z };
}

/** v ↦ ∂<v, f>/∂(γ, β) for one text, given its forward pass: [∂/∂γ ‖ ∂/∂β] (length 2·hidden). */
export function tailVjp64(fw: TailForward, tokens: number, v: ArrayLike<number>, p: UseLiteTailParams): Float64Array {
  const H = p.hidden;
  const I = p.inner;
  const { e, f } = fw;
  let ss = 0;
  let fv = 0;
  for (let j = 0; j < H; j++) {
    ss += e[j] * e[j];
    fv += f[j] * v[j];
  }
  const projected = ss > p.l2Floor;
  const norm = Math.sqrt(Math.max(ss, p.l2Floor));
  const delta = new Float64Array(H);
  for (let j = 0; j < H; j++) delta[j] = ((v[j] - (projected ? f[j] * fv : 0)) / norm) * (1 - e[j] * e[j]);
  const denom = Math.max(tokens, 1);
  const c = new Float64Array(H);
  for (let i = 0; i < H; i++) {
    let s = 0;
    const row = i * H;
    for (let j = 0; j < H; j++) s += p.wh[row + j] * delta[j];
    c[i] = s / denom;
  }
  const g = new Float64Array(I);
  for (let k = 0; k < I; k++) {
    let s = 0;
    const row = k * H;
    for (let i = 0; i < H; i++) s += p.w2[row + i] * c[i];
    g[k] = s;
  }
  const out = new Float64Array(2 * H);
  const dz = new Float64Array(I);
  for (let t = 0; t < tokens; t++) {
    const zo = t * I;
    for (let k = 0; k < I; k++) dz[k] = fw.z[zo + k] > 0 ? g[k] : 0;
    for (let i = 0; i < H; i++) {
      let dy = 0;
      const row = i * I;
      for (let k = 0; k < I; k++) dy += p.w1[row + k] * dz[k];
      out[i] += dy * fw.xhat[t * H + i];
      out[H + i] += dy;
    }
  }
  return out;
}

/** s(q, p) and ∂s/∂(γ, β) in float64 (reference implementation of what the probe computes). */
export function similarityGradient64(q: LayerNormInput, pIn: LayerNormInput, p: UseLiteTailParams, shared: boolean): { score: number; gradient: Float64Array } {
  const fq = tailForward64(q, p);
  const fp = tailForward64(pIn, p);
  let score = 0;
  for (let j = 0; j < p.hidden; j++) score += fq.f[j] * fp.f[j];
  const gradient = tailVjp64(fp, pIn.tokens, fq.f, p);
  if (shared) {
    const gq = tailVjp64(fq, q.tokens, fp.f, p);
    for (let i = 0; i < gradient.length; i++) gradient[i] += gq[i];
  }
  return { score, gradient };
}

/** s(q, p) in float64 with the same γ/β override on both sides (shared) or only the passage side. */
export function similarity64(q: LayerNormInput, pIn: LayerNormInput, p: UseLiteTailParams, override: LayerNormOverride, shared: boolean): number {
  const fq = tailForward64(q, p, shared ? override : {}).f;
  const fp = tailForward64(pIn, p, override).f;
  let s = 0;
  for (let j = 0; j < p.hidden; j++) s += fq[j] * fp[j];
  return s;
}
