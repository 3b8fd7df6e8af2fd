/**
 * Calibration of the retriever-side evidence (a project design, fitted on the development data by
 * scripts/fit-evidence.ts; the result is evidence.fitted.json):
 *
 * 1. Each signal's raw value goes through a FIXED monotone transform (no fitted part):
 *    - BiRD: S (Eq. 9) → h(S) = u²/(1 + u²), u = max(S, 0)/ε (ε = 2.5; S = ε ↦ ½; S = +∞ ↦ 1);
 *    - GRADA: (rank drop, score deficit) — drop = clamp((rankAfter − rankBefore)/(M − 1), 0, 1),
 *      deficit = clamp((1 − M·s)/d, 0, 1) (0 at or above the uniform share 1/M, 1 at the teleport
 *      floor (1 − d)/M of a text with no surviving edge);
 *    - ProGRank: the applied penalty w·(P_rep + P_dr) (Eq. 13) → 1 − exp(−penalty).
 * 2. Platt scaling per signal: P(poisoned | signal) = σ(a + b·x) (GRADA: σ(a + b₁·drop + b₂·deficit)),
 *    an L2-regularised logistic regression. The calibrated value is a probability on the
 *    development setting's candidate mix (about 5 poisoned among the top-2K judged texts).
 * 3. Combination: for the subset of signals present, z = c₀ + Σ c_k·logit(P_k), combined = σ(z),
 *    again a logistic regression (one per subset, so a missing signal is never read as benign).
 */
/** The retriever-side evidence signals (declared here, re-exported by evidence.params.ts, so the two files do not import each other). */
export type EvidenceSignal = 'bird' | 'grada' | 'progrank';

export const EVIDENCE_SIGNALS: readonly EvidenceSignal[] = ['bird', 'grada', 'progrank'];

/** Raw values of one candidate's evidence; absent = not computed. */
export interface RawEvidence {
  /** BiRD composite score S; +∞ when r_cc = 1. */
  bird?: number;
  grada?: { score: number; rankBefore: number; rankAfter: number; poolSize: number };
  /** ProGRank applied penalty w·(P_rep + P_dr); 0 for a text outside the probed tail. */
  progrank?: number;
}

export interface CalibrationRow extends RawEvidence {
  /** Group for leave-one-group-out (the development file). */
  group: string;
  poisoned: boolean;
}

export interface LogisticModel {
  /** [intercept, w₁, …]. */
  weights: number[];
}

export interface EvidenceCalibration {
  /** Per signal: Platt scaling on its fixed transform (`signalFeatures`). */
  signals: Record<EvidenceSignal, LogisticModel>;
  /** Per subset of present signals ('bird+grada+progrank', 'bird+grada', …): weights over [1, logit(P_k) in signal order]. */
  combine: Record<string, LogisticModel>;
  /** The fit that produced it (files, method, leave-one-file-out AUROCs); informational. */
  fit?: Record<string, unknown>;
}

const clamp01 = (x: number): number => Math.min(1, Math.max(0, x));
const BIRD_EPSILON = 2.5;
const GRADA_DAMPING = 0.85;
/** Calibrated probabilities are kept inside [P_CLAMP, 1 − P_CLAMP] before taking logits. */
const P_CLAMP = 1e-6;

/** The fixed transform of BiRD's S: u²/(1 + u²), u = max(S, 0)/ε. */
export function birdFeature(s: number, epsilon = BIRD_EPSILON): number {
  if (typeof s !== 'number' || Number.isNaN(s)) throw new RangeError(`birdFeature: S must be a number, got ${String(s)}`);
  if (s === Number.POSITIVE_INFINITY) return 1;
  const u2 = (Math.max(s, 0) / epsilon) ** 2;
  return Number.isFinite(u2) ? u2 / (1 + u2) : 1;
}

/** The fixed transform of a GRADA result: [rank drop, score deficit], each in [0, 1]. */
export function gradaFeatures(g: NonNullable<RawEvidence['grada']>, damping = GRADA_DAMPING): [number, number] {
  const { rankBefore, rankAfter, score, poolSize } = g;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new RangeError(`gradaFeatures: poolSize must be an integer ≥ 1, got ${poolSize}`);
  for (const [name, r] of [['rankBefore', rankBefore], ['rankAfter', rankAfter]] as const) {
    if (!Number.isInteger(r) || r < 1 || r > poolSize) throw new RangeError(`gradaFeatures: ${name} must be an integer in [1, ${poolSize}], got ${r}`);
  }
  if (!Number.isFinite(score) || score < 0) throw new RangeError(`gradaFeatures: score must be finite and ≥ 0, got ${score}`);
  const drop = poolSize > 1 ? clamp01((rankAfter - rankBefore) / (poolSize - 1)) : 0;
  return [drop, clamp01((1 - poolSize * score) / damping)];
}

/** The fixed transform of ProGRank's applied penalty: 1 − exp(−max(penalty, 0)). */
export function progrankFeature(penalty: number): number {
  if (typeof penalty !== 'number' || Number.isNaN(penalty)) throw new RangeError(`progrankFeature: penalty must be a number, got ${String(penalty)}`);
  return 1 - Math.exp(-Math.max(penalty, 0));
}

/** The features of one signal of a row, or undefined when the signal is absent. */
export function signalFeatures(signal: EvidenceSignal, e: RawEvidence): number[] | undefined {
  if (signal === 'bird') return e.bird === undefined ? undefined : [birdFeature(e.bird)];
  if (signal === 'grada') return e.grada === undefined ? undefined : gradaFeatures(e.grada);
  return e.progrank === undefined ? undefined : [progrankFeature(e.progrank)];
}

export function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

export function logit(p: number): number {
  const q = Math.min(1 - P_CLAMP, Math.max(P_CLAMP, p));
  return Math.log(q / (1 - q));
}

export function applyLogistic(model: LogisticModel, x: readonly number[]): number {
  const w = model.weights;
  if (w.length !== x.length + 1) throw new RangeError(`logistic model has ${w.length - 1} weights, got ${x.length} features`);
  let z = w[0];
  for (let i = 0; i < x.length; i++) z += w[i + 1] * x[i];
  return sigmoid(z);
}

/** Calibrated P(poisoned) of one signal, or undefined when absent. */
export function calibratedSignal(signal: EvidenceSignal, e: RawEvidence, cal: EvidenceCalibration): number | undefined {
  const x = signalFeatures(signal, e);
  return x === undefined ? undefined : applyLogistic(cal.signals[signal], x);
}

/** Key of a subset of signals, in the order bird, grada, progrank. */
export function subsetKey(present: readonly EvidenceSignal[]): string {
  return EVIDENCE_SIGNALS.filter((s) => present.includes(s)).join('+');
}

/** Combined P(poisoned) from calibrated signals (undefined = absent); undefined when none is present. */
export function combineCalibrated(p: Partial<Record<EvidenceSignal, number>>, cal: EvidenceCalibration): number | undefined {
  const present = EVIDENCE_SIGNALS.filter((s) => p[s] !== undefined);
  if (!present.length) return undefined;
  const model = cal.combine[subsetKey(present)];
  if (!model) throw new RangeError(`evidence calibration has no combination for ${subsetKey(present)}`);
  return applyLogistic(model, present.map((s) => logit(p[s]!)));
}

/**
 * L2-regularised logistic regression by Newton's method (intercept not penalised; penalty
 * λ·n·‖w‖²/2, scale-free in n). Small dense problems only (a handful of features).
 */
export function fitLogistic(x: readonly (readonly number[])[], y: readonly boolean[], lambda = 1e-3): LogisticModel {
  if (x.length !== y.length) throw new RangeError('fitLogistic: x and y differ in length');
  if (!x.length) throw new RangeError('fitLogistic: no rows');
  const d = x[0].length + 1;
  let w = new Array<number>(d).fill(0);
  const n = x.length;
  for (let it = 0; it < 100; it++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let r = 0; r < n; r++) {
      const xi = [1, ...x[r]];
      let z = 0;
      for (let a = 0; a < d; a++) z += w[a] * xi[a];
      const p = sigmoid(z);
      const t = y[r] ? 1 : 0;
      for (let a = 0; a < d; a++) {
        g[a] += (p - t) * xi[a];
        for (let b = 0; b < d; b++) h[a][b] += p * (1 - p) * xi[a] * xi[b];
      }
    }
    for (let a = 1; a < d; a++) {
      g[a] += lambda * n * w[a];
      h[a][a] += lambda * n;
    }
    h[0][0] += 1e-9 * n; // keeps the system solvable when one class is absent
    const step = solve(h, g);
    w = w.map((v, i) => v - step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  return { weights: w };
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    const piv = m[c][c];
    if (Math.abs(piv) < 1e-300) throw new RangeError('fitLogistic: singular system');
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / piv;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** Every non-empty subset of the signals. */
function subsets(): EvidenceSignal[][] {
  const out: EvidenceSignal[][] = [];
  for (let mask = 1; mask < 1 << EVIDENCE_SIGNALS.length; mask++) out.push(EVIDENCE_SIGNALS.filter((_, i) => mask & (1 << i)));
  return out;
}

/**
 * Fits the calibration on rows: Platt scaling per signal (rows where it is present), then one
 * combination per subset of signals (rows where all of them are present, on the calibrated logits
 * of the per-signal fit). A subset with no rows gets the sum of logits relative to the base rate
 * (naive Bayes) so every subset has a model.
 */
export function fitEvidenceCalibration(rows: readonly CalibrationRow[], lambda = 1e-3): EvidenceCalibration {
  const signals = {} as Record<EvidenceSignal, LogisticModel>;
  for (const s of EVIDENCE_SIGNALS) {
    const have = rows.filter((r) => signalFeatures(s, r) !== undefined);
    if (!have.length) throw new RangeError(`fitEvidenceCalibration: no row has ${s}`);
    signals[s] = fitLogistic(have.map((r) => signalFeatures(s, r)!), have.map((r) => r.poisoned), lambda);
  }
  const partial: EvidenceCalibration = { signals, combine: {} };
  const base = rows.filter((r) => r.poisoned).length / rows.length;
  const combine: Record<string, LogisticModel> = {};
  for (const set of subsets()) {
    const have = rows.filter((r) => set.every((s) => signalFeatures(s, r) !== undefined));
    const x = have.map((r) => set.map((s) => logit(calibratedSignal(s, r, partial)!)));
    combine[subsetKey(set)] = have.length >= 20 && have.some((r) => r.poisoned) && have.some((r) => !r.poisoned)
      ? fitLogistic(x, have.map((r) => r.poisoned), lambda)
      : { weights: [-(set.length - 1) * logit(base), ...set.map(() => 1)] };
  }
  return { signals, combine };
}

/** Calibrated signals and combination of each row. */
export function scoreEvidenceRows(rows: readonly RawEvidence[], cal: EvidenceCalibration): Array<Partial<Record<EvidenceSignal | 'combined', number>>> {
  return rows.map((r) => {
    const p: Partial<Record<EvidenceSignal, number>> = {};
    for (const s of EVIDENCE_SIGNALS) {
      const v = calibratedSignal(s, r, cal);
      if (v !== undefined) p[s] = v;
    }
    return { ...p, combined: combineCalibrated(p, cal) };
  });
}

/**
 * Area under the ROC curve: P(score of a random positive > score of a random negative), ties
 * counted ½ (Mann–Whitney U / (n₊·n₋), with average ranks). null when a class is empty.
 */
export function auroc(scores: readonly number[], positive: readonly boolean[]): number | null {
  if (scores.length !== positive.length) throw new RangeError('auroc: scores and labels differ in length');
  const idx = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  const rank = new Array<number>(scores.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1]] === scores[idx[i]]) j++;
    for (let t = i; t <= j; t++) rank[idx[t]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  const nPos = positive.filter(Boolean).length;
  const nNeg = positive.length - nPos;
  if (!nPos || !nNeg) return null;
  let sumPos = 0;
  positive.forEach((p, i) => { if (p) sumPos += rank[i]; });
  return (sumPos - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}
