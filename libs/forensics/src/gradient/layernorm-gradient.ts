/**
 * Closed-form gradient of a dense-retrieval score w.r.t. the LAST LayerNorm's scale γ and bias β,
 * from that LayerNorm's input (exported by the ONNX graph as `last_ln_input`). No runtime
 * dependencies; float64 throughout. This is ProGRank's probe gradient ∇_ϑ s(q, p) (ProGRank,
 * arXiv 2603.22934, §3.2, Eq. 3) with ϑ = (γ, β) of the last LayerNorm and s the cosine of Eq. 1.
 *
 * ## Forward (per text, hidden size H, tokens t = 1..S, attention mask m_t ∈ {0, 1})
 *   LayerNorm (ONNX LayerNormalization, axis −1, biased variance):
 *     μ_t = (1/H) Σ_i x_ti,  σ_t = sqrt((1/H) Σ_i (x_ti − μ_t)² + ε),  x̂_t = (x_t − μ_t)/σ_t
 *     y_t = γ ⊙ x̂_t + β
 *   masked mean pooling, n = Σ_t m_t:
 *     e = (1/n) Σ_t m_t y_t = γ ⊙ x̄ + β,   where x̄ = (1/n) Σ_t m_t x̂_t
 *   (x̂_t does not depend on γ/β — they only act after the normalisation — so the pooled embedding
 *   is AFFINE in (γ, β): ∂e/∂γ = diag(x̄), ∂e/∂β = I.)
 *   L2 normalisation: u = e / ‖e‖,  ∂u/∂e = (I − u uᵀ)/‖e‖
 *   score: s = <u_q, u_p>
 *
 * ## Backward
 *   Through the passage side: ∂s/∂e_p = (I − u_p u_pᵀ) u_q / ‖e_p‖ = (u_q − s·u_p)/‖e_p‖ =: δ_p
 *     ∂s/∂γ|_p = δ_p ⊙ x̄_p,   ∂s/∂β|_p = δ_p
 *   Through the query side (only when the query goes through the same encoder, i.e. the same γ/β):
 *     δ_q = (u_p − s·u_q)/‖e_q‖,   ∂s/∂γ|_q = δ_q ⊙ x̄_q,   ∂s/∂β|_q = δ_q
 *   Shared encoder (one retriever for q and p — MiniLM, Contriever, BGE): the total derivative is the
 *   sum of both; a separate/fixed query encoder (e.g. DPR's question encoder) keeps only the passage part.
 *
 * The last LayerNorm is the only one whose gradient needs no backward pass through the network: it
 * is the last parameterised op before pooling. (ε enters x̂ only; the ‖e‖ clamp at 1e-12 used by
 * the embedders is ignored — it never binds for a real embedding.)
 */

export interface PooledNormalizedInput {
  /** x̄ = masked mean over tokens of the LayerNorm-normalised input x̂_t (before γ/β). */
  xbar: Float64Array;
  /** Number of tokens pooled (Σ m_t). */
  count: number;
}

export interface AffineEmbedding {
  /** e = γ ⊙ x̄ + β */
  e: Float64Array;
  /** ‖e‖ */
  norm: number;
  /** u = e / ‖e‖ */
  u: Float64Array;
  xbar: Float64Array;
}

/**
 * x̄ for one row of a [batch, seq, hidden] LayerNorm input tensor: normalise every attended token
 * (mask[t] ≠ 0) and average. `mask` has length `seq` (the row's own mask, e.g. after token dropout).
 */
export function pooledNormalizedInput(
  lnInput: Float32Array,
  row: number,
  seq: number,
  hidden: number,
  mask: ArrayLike<number>,
  epsilon: number,
): PooledNormalizedInput {
  const xbar = new Float64Array(hidden);
  let count = 0;
  const base = row * seq * hidden;
  for (let t = 0; t < seq; t++) {
    if (!mask[t]) continue;
    count++;
    const off = base + t * hidden;
    let mean = 0;
    for (let i = 0; i < hidden; i++) mean += lnInput[off + i];
    mean /= hidden;
    let v = 0;
    for (let i = 0; i < hidden; i++) {
      const d = lnInput[off + i] - mean;
      v += d * d;
    }
    const inv = 1 / Math.sqrt(v / hidden + epsilon);
    for (let i = 0; i < hidden; i++) xbar[i] += (lnInput[off + i] - mean) * inv;
  }
  const invN = 1 / Math.max(count, 1e-9);
  for (let i = 0; i < hidden; i++) xbar[i] *= invN;
  return { xbar, count };
}

/** e = γ ⊙ x̄ + β and its normalisation. */
export function affineEmbedding(xbar: Float64Array, gamma: ArrayLike<number>, beta: ArrayLike<number>): AffineEmbedding {
  const h = xbar.length;
  if (gamma.length !== h || beta.length !== h) throw new Error(`LayerNorm γ/β have ${gamma.length}/${beta.length} entries; the hidden size is ${h}`);
  const e = new Float64Array(h);
  let ss = 0;
  for (let i = 0; i < h; i++) {
    e[i] = gamma[i] * xbar[i] + beta[i];
    ss += e[i] * e[i];
  }
  const norm = Math.sqrt(ss);
  const inv = 1 / Math.max(norm, 1e-12);
  const u = new Float64Array(h);
  for (let i = 0; i < h; i++) u[i] = e[i] * inv;
  return { e, norm: Math.max(norm, 1e-12), u, xbar };
}

export function cosine(q: AffineEmbedding, p: AffineEmbedding): number {
  let s = 0;
  for (let i = 0; i < q.u.length; i++) s += q.u[i] * p.u[i];
  return s;
}

/**
 * ∂s/∂(γ, β) for s = <u_q, u_p>, as [∂s/∂γ ‖ ∂s/∂β] (length 2H). `shared`: add the query side's
 * contribution (query and passage embedded by the same LayerNorm).
 */
export function similarityGradient(q: AffineEmbedding, p: AffineEmbedding, shared: boolean): Float32Array {
  const h = p.u.length;
  const s = cosine(q, p);
  const out = new Float32Array(2 * h);
  const invP = 1 / p.norm;
  const invQ = 1 / q.norm;
  for (let i = 0; i < h; i++) {
    const dp = (q.u[i] - s * p.u[i]) * invP;
    let g = dp * p.xbar[i];
    let b = dp;
    if (shared) {
      const dq = (p.u[i] - s * q.u[i]) * invQ;
      g += dq * q.xbar[i];
      b += dq;
    }
    out[i] = g;
    out[h + i] = b;
  }
  return out;
}
