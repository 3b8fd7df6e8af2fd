/**
 * GradientProbe port (ProGRank, arXiv 2603.22934, §3.2): for a query and a pool of
 * passages, the base score s(q,p) = <norm(f(q)), norm(g(p))> and, for R perturbation runs of each
 * passage, the probe gradient g_r = ∇_ϑ s(q, p_r) w.r.t. one LayerNorm's scale γ and bias β
 * (ϑ = (γ, β), so each gradient has length 2·hidden: [∂s/∂γ ‖ ∂s/∂β]).
 *
 * The maths that turns the gradients into penalties lives in `@forensics/algorithms` (progrank);
 * an adapter only produces the signature. Every evidence record must name the probed encoder and
 * layer (`encoder`, `layer`) and say whether the gradient is exact (`exact`).
 */
export interface GradientProbeOptions {
  /** Perturbation runs R per passage (paper default 20). */
  runs: number;
  /** Seed of the perturbations; the same seed, model and texts give identical gradients. */
  seed: number;
  /** Token-dropout rate on the passage side in [0, 1) (paper: 0.10); special tokens are kept. 0 = no token dropout. */
  tokenDropout: number;
}

export interface GradientProbeResult {
  /** Unperturbed s(q, p) per passage, same order as the input passages. */
  scores: number[];
  /** gradients[passage][run] = ∂s(q, p_run)/∂(γ, β), γ part first then β part, length 2·hidden. */
  gradients: Float32Array[][];
}

export interface GradientProbe {
  /** The probed encoder, e.g. 'onnx:/models/all-MiniLM-L6-v2'. */
  readonly encoder: string;
  /** The probed parameter subset, e.g. 'encoder.layer.5.output.LayerNorm (last)'. */
  readonly layer: string;
  /** True when gradients are exact (closed form / autodiff), false for estimates (e.g. finite differences). */
  readonly exact: boolean;
  /**
   * 'shared': query and passage go through the same encoder, so ϑ moves both embeddings and the
   * gradient holds both sides' contributions; 'fixed': the query embedding is treated as a constant
   * (separate query encoder, or the surrogate is only applied to the passage side).
   */
  readonly querySide?: 'shared' | 'fixed';
  /** Loads the model; idempotent. */
  init(): Promise<void>;
  probe(query: string, passages: readonly string[], opts: GradientProbeOptions): Promise<GradientProbeResult>;
  close(): Promise<void>;
}
