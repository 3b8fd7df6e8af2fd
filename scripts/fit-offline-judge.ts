/**
 * Fits the offline evidence judge on the development files and writes the small committed JSON
 * libs/forensics/src/offline-judge/offline-judge.fitted.json (issue 13).
 *
 *   npx tsx scripts/fit-offline-judge.ts [--data-dir ../shared/data] [--dry-run]
 *
 * Everything fitted is fitted by `fitOfflineJudge` (apps/eval/src/judge-fit/fit-judge.ts): the
 * support gate's `partialSupportMin`, which features carry weight (L1, strength chosen by
 * leave-one-file-out inside the training files), the weights, the YES threshold and the confidence
 * band's edges. Rows: apps/eval/src/judge-fit/dev-rows.ts (BM25 top-10 per question in rounds of 5,
 * the given poisons and the GPT-4 / Gemini rewrites).
 *
 * It prints, per held-out development file, the candidate-level numbers of a fit that never saw
 * that file (one JSON line each), then fits on every file and writes the JSON with those numbers.
 * The traceback-level leave-one-file-out numbers come from `npm run eval -- --suite dev`, which
 * refits the same way per held-out file and runs the real traceback.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { OFFLINE_JUDGE_FEATURES, OFFLINE_JUDGE_MODEL } from '@forensics/algorithms';
import { buildDevRows, DEV_FILES, DEV_VARIANTS, loadDevFiles, VARIANT_COUNT, type DevRow } from '../apps/eval/src/judge-fit/dev-rows';
import { BAND_TARGETS, DEFAULT_FIT_GRID, fitOfflineJudge, scoreRow, type JudgeFit } from '../apps/eval/src/judge-fit/fit-judge';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data'))!);
const dryRun = process.argv.includes('--dry-run');
const repoRoot = join(__dirname, '..');

/** Candidate-level numbers of `fit` on `rows`: the judge's label at the threshold, and the band's decisions. */
function candidateMetrics(fit: JudgeFit, rows: readonly DevRow[]) {
  const w = OFFLINE_JUDGE_FEATURES.map((f) => fit.weights[f] ?? 0);
  let tp = 0; let fp = 0; let tn = 0; let fn = 0; let auto = 0; let autoPos = 0; let band = 0; let bandPos = 0;
  for (const r of rows) {
    const s = scoreRow(r, fit.weights.bias, w);
    if (s >= fit.yesThreshold) { if (r.poisoned) tp++; else fp++; } else if (r.poisoned) fn++; else tn++;
    if (s >= fit.band.high) { auto++; if (r.poisoned) autoPos++; } else if (s >= fit.band.low) { band++; if (r.poisoned) bandPos++; }
  }
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const P = tp + fn;
  return {
    rows: rows.length, dacc: r4((tp + tn) / Math.max(1, rows.length)), fpr: r4(fp / Math.max(1, fp + tn)), fnr: r4(fn / Math.max(1, P)), tp, fp, tn, fn,
    decision: { autoPrecision: auto ? r4(autoPos / auto) : null, recall: P ? r4((autoPos + bandPos) / P) : null, bandShare: r4(band / Math.max(1, rows.length)) },
  };
}

function main(): void {
  const started = Date.now();
  const dev = loadDevFiles(dataDir);
  const missing = DEV_FILES.filter((f) => !dev.some((d) => d.file === f));
  if (missing.length) console.error(`fit-offline-judge: not found in ${dataDir} (fitting without them): ${missing.join(', ')}`);
  const files = dev.map((d) => d.file);
  const rowsByGate = new Map<number, DevRow[]>();
  for (const g of DEFAULT_FIT_GRID.partialSupportMin) {
    rowsByGate.set(g, buildDevRows(dev, { partialSupportMin: g }));
    console.error(`rows for partialSupportMin ${g}: ${rowsByGate.get(g)!.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  const lofo: Record<string, unknown>[] = [];
  for (const [i, held] of files.entries()) {
    const fit = fitOfflineJudge(rowsByGate, files.filter((f) => f !== held));
    const m = candidateMetrics(fit, rowsByGate.get(fit.partialSupportMin)!.filter((r) => r.file === held));
    const entry = { heldOut: held, partialSupportMin: fit.partialSupportMin, lambda: fit.lambda, selected: fit.selected, yesThreshold: fit.yesThreshold, band: fit.band, ...m };
    lofo.push(entry);
    console.log(JSON.stringify(entry));
    console.error(`[${i + 1}/${files.length}] held out ${held} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  const fit = fitOfflineJudge(rowsByGate, files);
  const inSample = candidateMetrics(fit, rowsByGate.get(fit.partialSupportMin)!);
  const out = {
    model: OFFLINE_JUDGE_MODEL,
    note: 'Written by scripts/fit-offline-judge.ts; do not edit by hand.',
    fittedOn: fit.fittedOn.map((f) => `${f}.jsonl`),
    method: `L1 logistic regression (coordinate descent, every file weighted equally) over the judge's ${OFFLINE_JUDGE_FEATURES.length} features on texts stating the wrong answer; `
      + `partialSupportMin in {${DEFAULT_FIT_GRID.partialSupportMin.join(', ')}} and lambda in {${DEFAULT_FIT_GRID.lambda.join(', ')}} chosen by leave-one-file-out inside the training files (macro balanced accuracy); `
      + `YES threshold minimises FPR + FNR and the band's edges meet precision ${BAND_TARGETS.precision} / recall ${BAND_TARGETS.recall}, both on those inner out-of-file scores; `
      + `rows = BM25 top-10 per question in rounds of 5, poisons = given + ${DEV_VARIANTS.join(', ')} (first ${VARIANT_COUNT})`,
    partialSupportMin: fit.partialSupportMin,
    lambda: fit.lambda,
    selected: fit.selected,
    weights: fit.weights,
    yesThreshold: fit.yesThreshold,
    band: fit.band,
    innerLeaveOneFileOut: { score: fit.innerScore, tried: fit.tried },
    leaveOneFileOut: { level: 'candidate (BM25 top-10 rows); the traceback-level numbers: npm run eval -- --suite dev', heldOut: lofo },
    inSample,
  };
  console.log(JSON.stringify({ final: { partialSupportMin: fit.partialSupportMin, lambda: fit.lambda, selected: fit.selected, yesThreshold: fit.yesThreshold, band: fit.band, inSample } }));
  if (!dryRun) {
    const path = join(repoRoot, 'libs', 'forensics', 'src', 'offline-judge', 'offline-judge.fitted.json');
    writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`);
    console.error(`wrote ${path} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

try {
  main();
} catch (err) {
  console.error(`fit-offline-judge: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
