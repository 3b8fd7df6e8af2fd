/**
 * Fitting the offline judge so that everything fitted is refit from the training files alone
 * (issue 13): the support gate's `partialSupportMin`, which features carry weight (L1 selection,
 * its strength chosen by leave-one-file-out INSIDE the training files), the weights, the YES
 * threshold and the confidence band's edges (both set on the inner out-of-file scores, not on the
 * scores of the very rows the weights were fitted on). `fitOfflineJudge(rows, trainFiles)` is one
 * such fit; leave-one-file-out evaluation calls it once per held-out file with that file excluded.
 */
import { evidenceScore, OFFLINE_JUDGE_FEATURES, type OfflineJudgeParams, type OfflineJudgeWeights } from '@forensics/algorithms';
import type { DevRow } from './dev-rows';
import { fitLassoLogistic } from './logistic';

export interface FitGrid {
  partialSupportMin: readonly number[];
  lambda: readonly number[];
}
export const DEFAULT_FIT_GRID: FitGrid = { partialSupportMin: [0.34, 0.5, 0.67], lambda: [0.02, 0.005, 0.001, 0.0002] };

/**
 * The grid the committed judge is fitted with (`scripts/fit-offline-judge.ts --gates 0.34 --lambdas 0.005`; the
 * values are in offline-judge.fitted.json and a test keeps the two the same). `--suite dev` refits each held-out
 * family's judge with it by default, so the suite measures the procedure the product ships; `--fit-grid full`
 * selects gate and L1 strength from DEFAULT_FIT_GRID by inner leave-one-family-out instead (decision 0270: that
 * choice is within noise — inner scores 0.003 apart — and flips between judge versions).
 */
export const COMMITTED_FIT_GRID: FitGrid = { partialSupportMin: [0.34], lambda: [0.005] };

/**
 * The band is set for these out-of-file targets: auto-quarantine precision and auto + review recall.
 * Recall asks 0.99, a margin over the 0.98: on a file the fit never saw, recall falls below the
 * inner out-of-file recall it was set on (judge v7 set it at 0.98, the band's low edge rose to 0.50 and the
 * admission check, which holds band verdicts, caught 2445 / 2506 re-injected NQ poisons instead of 2476).
 */
export const BAND_TARGETS = { precision: 0.99, recall: 0.99 } as const;

export interface JudgeFit {
  partialSupportMin: number;
  lambda: number;
  weights: OfflineJudgeWeights;
  selected: string[];
  yesThreshold: number;
  band: { low: number; high: number };
  fittedOn: string[];
  /** Inner leave-one-file-out (candidate level) of the chosen configuration: macro balanced accuracy over the inner held-out files. */
  innerScore: number;
  /** Every configuration tried, with its inner score. */
  tried: { partialSupportMin: number; lambda: number; innerScore: number }[];
}

/** The judge's score of a row (`evidenceScore`, the judge's own formula) under weights `w` in feature order. */
export function scoreRow(row: DevRow, bias: number, w: ArrayLike<number>): number {
  let z = bias;
  for (let j = 0; j < w.length; j++) z += w[j] * row.x[j];
  return evidenceScore(row.support, row.verbatimLong, z);
}

/** Rows the weights can move: the text states the answer and the long-verbatim prior does not decide it. */
const fittable = (r: DevRow) => r.support > 0 && !r.verbatimLong;

/**
 * Every file counts the same in a fit, whatever its size (a file = one attack/dataset — or, as
 * scripts/fit-offline-judge.ts passes them, one attack family: that is what must generalise), and within a
 * file its poisoned and its clean texts count half each (issue 33): a file with few or no clean texts of its
 * own (PoisonArena, RevPRAG) weighs on the false-negative side only, instead of pulling the threshold down
 * by standing for both sides with easy negatives.
 */
function fileWeights(rows: readonly DevRow[]): number[] {
  const count = new Map<string, number>();
  const key = (r: DevRow) => `${r.file}\u0000${r.poisoned ? 1 : 0}`;
  for (const r of rows) count.set(key(r), (count.get(key(r)) ?? 0) + 1);
  return rows.map((r) => 1 / count.get(key(r))!);
}

function trainWeights(rows: readonly DevRow[], lambda: number): { bias: number; w: Float64Array } {
  const data = rows.filter(fittable);
  if (!data.length) return { bias: 0, w: new Float64Array(rows[0]?.x.length ?? OFFLINE_JUDGE_FEATURES.length) };
  const f = fitLassoLogistic(data.map((r) => r.x), data.map((r) => (r.poisoned ? 1 : 0)), fileWeights(data), { lambda });
  return { bias: f.bias, w: f.weights };
}

interface Scored { score: number; poisoned: boolean; weight: number }

const GRID = Array.from({ length: 95 }, (_, i) => Math.round((0.04 + i * 0.01) * 100) / 100);

/** The threshold minimising FPR + FNR (each file weighted equally). */
export function balancedThreshold(scored: readonly Scored[]): number {
  let best = 0.5;
  let bestErr = Infinity;
  const pos = scored.filter((s) => s.poisoned);
  const neg = scored.filter((s) => !s.poisoned);
  const P = pos.reduce((a, s) => a + s.weight, 0) || 1;
  const N = neg.reduce((a, s) => a + s.weight, 0) || 1;
  for (const t of GRID) {
    const fn = pos.reduce((a, s) => a + (s.score < t ? s.weight : 0), 0) / P;
    const fp = neg.reduce((a, s) => a + (s.score >= t ? s.weight : 0), 0) / N;
    if (fn + fp < bestErr - 1e-12) { bestErr = fn + fp; best = t; }
  }
  return best;
}

/** Band edges for the targets: high = lowest t ≥ yes with precision(score ≥ t) ≥ target; low = highest t ≤ yes with recall(score ≥ t) ≥ target. */
export function bandEdges(scored: readonly Scored[], yes: number, targets: { precision: number; recall: number } = BAND_TARGETS): { low: number; high: number } {
  const P = scored.filter((s) => s.poisoned).reduce((a, s) => a + s.weight, 0) || 1;
  const stats = (t: number) => {
    let tp = 0; let fp = 0;
    for (const s of scored) if (s.score >= t) { if (s.poisoned) tp += s.weight; else fp += s.weight; }
    return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp / P };
  };
  let high = 1;
  for (const t of GRID) if (t >= yes && stats(t).precision >= targets.precision) { high = t; break; }
  let low = Math.min(yes, GRID[0]);
  for (const t of [...GRID].reverse()) if (t <= yes && stats(t).recall >= targets.recall) { low = t; break; }
  return { low: Math.min(low, yes), high: Math.max(high, yes) };
}

function withFileWeights(rows: readonly DevRow[], scores: readonly number[]): Scored[] {
  const fw = fileWeights(rows);
  return rows.map((r, i) => ({ score: scores[i], poisoned: r.poisoned, weight: fw[i] }));
}

/** Balanced accuracy 1 − (FPR + FNR)/2 at threshold t (a file with no positives or no negatives counts its one side). */
function balancedAccuracy(rows: readonly DevRow[], scores: readonly number[], t: number): number {
  let tp = 0; let fn = 0; let fp = 0; let tn = 0;
  rows.forEach((r, i) => { const yes = scores[i] >= t; if (r.poisoned) { if (yes) tp++; else fn++; } else if (yes) fp++; else tn++; });
  const sides = [tp + fn ? fn / (tp + fn) : undefined, fp + tn ? fp / (fp + tn) : undefined].filter((x): x is number => x !== undefined);
  return 1 - sides.reduce((a, b) => a + b, 0) / Math.max(1, sides.length);
}

/**
 * One fit on `trainFiles`. `rowsByGate` holds the rows built with each `partialSupportMin` of the
 * grid (the gate changes which texts state the answer, so rows are rebuilt per value).
 */
export function fitOfflineJudge(rowsByGate: ReadonlyMap<number, readonly DevRow[]>, trainFiles: readonly string[], grid: FitGrid = DEFAULT_FIT_GRID, features: readonly string[] = OFFLINE_JUDGE_FEATURES): JudgeFit {
  const train = new Set(trainFiles);
  const tried: JudgeFit['tried'] = [];
  let best: { g: number; lambda: number; innerScore: number; oof: Scored[] } | undefined;
  for (const g of grid.partialSupportMin) {
    const rows = rowsByGate.get(g);
    if (!rows) throw new Error(`fitOfflineJudge: no rows for partialSupportMin ${g}`);
    const trainRows = rows.filter((r) => train.has(r.file));
    const files = [...new Set(trainRows.map((r) => r.file))];
    for (const lambda of grid.lambda) {
      // Inner leave-one-file-out: weights and threshold from the other training files, scored on the inner held-out file.
      const perFile: number[] = [];
      const oofRows: DevRow[] = [];
      const oofScores: number[] = [];
      for (const inner of files) {
        const fitRows = trainRows.filter((r) => r.file !== inner);
        const heldRows = trainRows.filter((r) => r.file === inner);
        const { bias, w } = trainWeights(fitRows, lambda);
        const t = balancedThreshold(withFileWeights(fitRows, fitRows.map((r) => scoreRow(r, bias, w))));
        const s = heldRows.map((r) => scoreRow(r, bias, w));
        perFile.push(balancedAccuracy(heldRows, s, t));
        oofRows.push(...heldRows);
        oofScores.push(...s);
      }
      const innerScore = perFile.reduce((a, b) => a + b, 0) / Math.max(1, perFile.length);
      tried.push({ partialSupportMin: g, lambda, innerScore: round4(innerScore) });
      // Ties (within 0.001) go to the sparser model (larger lambda comes first in the grid) and the earlier gate.
      if (!best || innerScore > best.innerScore + 1e-3) best = { g, lambda, innerScore, oof: withFileWeights(oofRows, oofScores) };
    }
  }
  const chosen = best!;
  const rows = rowsByGate.get(chosen.g)!.filter((r) => train.has(r.file));
  const { bias, w } = trainWeights(rows, chosen.lambda);
  const yesThreshold = balancedThreshold(chosen.oof);
  const band = bandEdges(chosen.oof, yesThreshold);
  const weights: OfflineJudgeWeights = { bias: round4(bias) };
  const selected: string[] = [];
  // The reader's fit (reader-judge) passes its longer feature list: the rule judge's features, then the reader's.
  features.forEach((f, j) => { if (Math.abs(w[j]) > 1e-9) { (weights as Record<string, number>)[f] = round4(w[j]); selected.push(f); } });
  return { partialSupportMin: chosen.g, lambda: chosen.lambda, weights, selected, yesThreshold, band, fittedOn: [...train].filter((f) => rows.some((r) => r.file === f)), innerScore: round4(chosen.innerScore), tried };
}

/** The judge parameters of a fit (what the harness and the committed JSON use). */
export function paramsOf(fit: JudgeFit): Partial<OfflineJudgeParams> {
  return { partialSupportMin: fit.partialSupportMin, weights: fit.weights, yesThreshold: fit.yesThreshold, undeterminedBelow: fit.yesThreshold, bandLow: fit.band.low, bandHigh: fit.band.high };
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
