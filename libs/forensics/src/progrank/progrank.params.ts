/**
 * ProGRank parameters (ProGRank, arXiv 2603.22934, §3). Defaults from the paper: R = 20,
 * τ = 0.1, α = 4.0, C = 6.0 (§4.1, "Retrieval-stage settings"), m = ⌈√|D|⌉ (§3.3, Eq. 11).
 */
export interface ProgrankParams {
  /** R: perturbation runs per (q, p); every probed candidate must bring exactly R gradients. Default 20. Integer in [1, 10000]. */
  runs: number;
  /** τ: lower quantile aggregating the per-run stabilities c_r (Eq. 8). Default 0.1. In (0, 1). */
  tau: number;
  /** α: decay of the per-run stability kernel c_r = exp(−α·dev_r) (Eq. 7). Default 4.0. Finite, > 0. */
  alpha: number;
  /** C: saturating cap of the dispersion penalty, P_dr < C (Eq. 10). Default 6.0. Finite, > 0. */
  capC: number;
  /** ε: numerical stabiliser in Eq. 4, 5, 6, 9, 10. Default 1e-8. In (0, 1e-2]. */
  eps: number;
  /** m: gate rank (Eq. 11), μ = Quantile_{1−m/|D|}. Default ⌈√|D|⌉. Integer ≥ 1 when given. */
  gateM?: number;
  /**
   * Gate temperature T: w = σ((s − μ)/T). Default 1, which is the paper's Eq. 12 exactly. (With
   * cosine scores s − μ is small, so σ stays near ½; T < 1 sharpens the gate. Not in the paper.)
   * Finite, > 0.
   */
  gateTemperature: number;
}

export const DEFAULT_PROGRANK_PARAMS: Readonly<Omit<ProgrankParams, 'gateM'>> = Object.freeze({
  runs: 20,
  tau: 0.1,
  alpha: 4.0,
  capC: 6.0,
  eps: 1e-8,
  gateTemperature: 1,
});

function finite(name: string, v: unknown, ok: (x: number) => boolean, range: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw new RangeError(`ProgrankParams.${name} must be ${range}, got ${String(v)}`);
  return v;
}

/** Fill defaults and range-check; throws `RangeError` naming the field. */
export function validateProgrankParams(p: Partial<ProgrankParams> = {}): ProgrankParams {
  const d = DEFAULT_PROGRANK_PARAMS;
  const out: ProgrankParams = {
    runs: finite('runs', p.runs ?? d.runs, (x) => Number.isInteger(x) && x >= 1 && x <= 10000, 'an integer in [1, 10000]'),
    tau: finite('tau', p.tau ?? d.tau, (x) => x > 0 && x < 1, 'in (0, 1)'),
    alpha: finite('alpha', p.alpha ?? d.alpha, (x) => x > 0, 'a finite number > 0'),
    capC: finite('capC', p.capC ?? d.capC, (x) => x > 0, 'a finite number > 0'),
    eps: finite('eps', p.eps ?? d.eps, (x) => x > 0 && x <= 1e-2, 'in (0, 1e-2]'),
    gateTemperature: finite('gateTemperature', p.gateTemperature ?? d.gateTemperature, (x) => x > 0, 'a finite number > 0'),
  };
  if (p.gateM !== undefined) out.gateM = finite('gateM', p.gateM, (x) => Number.isInteger(x) && x >= 1, 'an integer ≥ 1');
  return out;
}
