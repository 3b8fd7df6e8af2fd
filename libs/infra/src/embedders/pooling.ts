/** Vector helpers shared by the embedders (no runtime dependencies). */

/** Masked mean over tokens: e = Σ_t m_t h_t / max(Σ_t m_t, 1e-9), per row. */
export function meanPool(hidden: Float32Array, mask: BigInt64Array, batch: number, seq: number, dim: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (mask[b * seq + t] === 0n) continue;
      count++;
      const off = (b * seq + t) * dim;
      for (let d = 0; d < dim; d++) v[d] += hidden[off + d];
    }
    const inv = 1 / Math.max(count, 1e-9);
    for (let d = 0; d < dim; d++) v[d] *= inv;
    out.push(v);
  }
  return out;
}

/** In-place x / max(‖x‖₂, 1e-12), as torch.nn.functional.normalize. */
export function l2Normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = 1 / Math.max(Math.sqrt(s), 1e-12);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}
