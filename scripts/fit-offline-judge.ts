/**
 * Fits the offline evidence judge on the development files and writes the small committed JSON
 * libs/forensics/src/offline-judge/offline-judge.fitted.json (issues 13, 33).
 *
 *   npx tsx scripts/fit-offline-judge.ts [--data-dir ../shared/data] [--dry-run] [--gates 0.34,0.5] [--lambdas 0.005] [--errors out.jsonl] [--v10-rules] [--without RULE]
 *                                        [--sparse | --train-sparse]
 *
 * Everything fitted is fitted by `fitOfflineJudge` (apps/eval/src/judge-fit/fit-judge.ts): the
 * support gate's `partialSupportMin`, which features carry weight (L1, strength chosen by an inner
 * leave-one-family-out inside the training families), the weights, the YES threshold and the
 * confidence band's edges. Rows: apps/eval/src/judge-fit/dev-rows.ts (`loadJudgeFitFiles`: every file of
 * `JUDGE_FIT_FILES`, RevPRAG sampled, clean texts borrowed where a file has none; BM25 top-10 per question in
 * rounds of 5, the given poisons and the GPT-4 / Gemini rewrites).
 *
 * The unit of fitting and of holding out is the attack FAMILY (`familyOf`: the generator that wrote the
 * poison), every family weighted equally: it prints, per held-out family, the candidate-level numbers of a
 * fit that never saw any file of that family (one JSON line each) and the pooled numbers over all
 * held-out rows, then fits on every family and writes the JSON with those numbers. `--errors FILE` writes
 * the held-out mistakes (file, question, answer, text, score) for reading. `--sparse` also builds each question with
 * only its first planted text in the knowledge base (an attack planting one text: no planted peers) and prints those
 * held-out numbers apart (`scenario: 'one planted text'`, `pooledHeldOutOnePlanted`); `--train-sparse` fits on those
 * rows too (decision 0290: measured, not kept). Neither changes the written fit.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ALL_RULES, NO_RULES, OFFLINE_JUDGE_FEATURES, OFFLINE_JUDGE_MODEL, READER_JUDGE_MODEL } from '@forensics/algorithms';
import { buildDevRows, byFamily, DEV_VARIANTS, familyOf, JUDGE_FIT_FILES, loadJudgeFitFiles, REVPRAG_SAMPLE, REVPRAG_SEED, VARIANT_COUNT, type DevRow } from '../apps/eval/src/judge-fit/dev-rows';
import { BAND_TARGETS, DEFAULT_FIT_GRID, fitOfflineJudge, scoreRow, type JudgeFit } from '../apps/eval/src/judge-fit/fit-judge';
import { cachedMiniLmReader, READER_JUDGE_FEATURES, withReaderFeatures } from '../apps/eval/src/judge-fit/reader-rows';
import { MINILM_ID } from '@forensics/infra';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data'))!);
const without = arg('without');
const dryRun = process.argv.includes('--dry-run') || process.argv.includes('--v10-rules') || process.argv.includes('--train-sparse') || without !== undefined;
const errorsOut = arg('errors');
const gates = arg('gates')?.split(',').map(Number) ?? DEFAULT_FIT_GRID.partialSupportMin;
const lambdas = arg('lambdas')?.split(',').map(Number) ?? DEFAULT_FIT_GRID.lambda;
const grid = { partialSupportMin: gates, lambda: lambdas };
// --v10-rules: the rows built without the issue-33 rules (the before of the comparison; implies --dry-run).
const v10Rules = process.argv.includes('--v10-rules');
// --without RULE: the rows built with one rule of JudgeRules off (what that rule changes; implies --dry-run).
if (without !== undefined && !(without in ALL_RULES)) throw new Error(`--without: unknown rule '${without}' (one of ${Object.keys(ALL_RULES).join(', ')})`);
const rules = v10Rules ? NO_RULES : without ? { ...ALL_RULES, [without]: false } : undefined;
const repoRoot = join(__dirname, '..');
// --sparse: rows of the one-planted-text scenario too (dev-rows.ts `sparse`), measured apart; --train-sparse also fits on them.
const trainSparse = process.argv.includes('--train-sparse');
const sparse = trainSparse || process.argv.includes('--sparse');
// --reader (issue 59): the rows also carry the reader's features (all-MiniLM-L6-v2 from MODELS_DIR, cached under
// .eval/), the fit selects among both lists, and the fit is written to the reader judge's JSON instead.
const withReader = process.argv.includes('--reader');
const features: readonly string[] = withReader ? READER_JUDGE_FEATURES : OFFLINE_JUDGE_FEATURES;

interface Counts { tp: number; fp: number; tn: number; fn: number; auto: number; autoPos: number; band: number; bandPos: number }
const r4 = (x: number) => Math.round(x * 10000) / 10000;

function countRows(fit: JudgeFit, rows: readonly DevRow[], errors?: DevRow[]): Counts {
  const w = features.map((f) => (fit.weights as Record<string, number>)[f] ?? 0);
  const c: Counts = { tp: 0, fp: 0, tn: 0, fn: 0, auto: 0, autoPos: 0, band: 0, bandPos: 0 };
  for (const r of rows) {
    const s = scoreRow(r, fit.weights.bias, w);
    const yes = s >= fit.yesThreshold;
    if (yes) { if (r.poisoned) c.tp++; else c.fp++; } else if (r.poisoned) c.fn++; else c.tn++;
    if (yes !== r.poisoned && errors) errors.push({ ...r, support: s });
    if (s >= fit.band.high) { c.auto++; if (r.poisoned) c.autoPos++; } else if (s >= fit.band.low) { c.band++; if (r.poisoned) c.bandPos++; }
  }
  return c;
}

function metrics(c: Counts) {
  const n = c.tp + c.fp + c.tn + c.fn;
  const P = c.tp + c.fn;
  return {
    rows: n, dacc: r4((c.tp + c.tn) / Math.max(1, n)), fpr: c.fp + c.tn ? r4(c.fp / (c.fp + c.tn)) : null, fnr: P ? r4(c.fn / P) : null, tp: c.tp, fp: c.fp, tn: c.tn, fn: c.fn,
    decision: { autoPrecision: c.auto ? r4(c.autoPos / c.auto) : null, recall: P ? r4((c.autoPos + c.bandPos) / P) : null, bandShare: r4(c.band / Math.max(1, n)) },
  };
}

function add(a: Counts, b: Counts): Counts {
  return { tp: a.tp + b.tp, fp: a.fp + b.fp, tn: a.tn + b.tn, fn: a.fn + b.fn, auto: a.auto + b.auto, autoPos: a.autoPos + b.autoPos, band: a.band + b.band, bandPos: a.bandPos + b.bandPos };
}

async function main(): Promise<void> {
  const started = Date.now();
  const dev = loadJudgeFitFiles(dataDir);
  const missing = JUDGE_FIT_FILES.filter((f) => !dev.some((d) => d.file === f));
  if (missing.length) console.error(`fit-offline-judge: not found in ${dataDir} (fitting without them): ${missing.join(', ')}`);
  // The fit's unit is the family: a row's `file` is its family (rows of one family are held out, weighted and inner-held-out together).
  const rowsByGate = new Map<number, DevRow[]>();
  const readerHandle = withReader ? cachedMiniLmReader(join(repoRoot, '.eval')) : undefined;
  const reader = readerHandle?.cached;
  for (const g of gates) {
    const rows = byFamily(buildDevRows(dev, { partialSupportMin: g, rules, sparse }));
    rowsByGate.set(g, reader ? await withReaderFeatures(rows, reader, (s) => console.error(s)) : rows);
    console.error(`rows for partialSupportMin ${g}: ${rowsByGate.get(g)!.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await readerHandle?.close();
  const families = [...new Set(dev.map((d) => familyOf(d.file)))];

  const held: Record<string, unknown>[] = [];
  const errors: DevRow[] = [];
  let pooled: Counts = { tp: 0, fp: 0, tn: 0, fn: 0, auto: 0, autoPos: 0, band: 0, bandPos: 0 };
  const perFile: Record<string, Counts> = {};
  const fitRowsByGate = trainSparse ? rowsByGate : new Map([...rowsByGate].map(([g, rows]) => [g, rows.filter((r) => !r.sparse)]));
  let pooledSparse: Counts = { tp: 0, fp: 0, tn: 0, fn: 0, auto: 0, autoPos: 0, band: 0, bandPos: 0 };
  for (const [i, family] of families.entries()) {
    const fit = fitOfflineJudge(fitRowsByGate, families.filter((f) => f !== family), grid, features);
    const all = rowsByGate.get(fit.partialSupportMin)!.filter((r) => r.file === family);
    const rows = all.filter((r) => !r.sparse);
    const c = countRows(fit, rows, errors);
    pooled = add(pooled, c);
    if (sparse) {
      const cs = countRows(fit, all.filter((r) => r.sparse));
      pooledSparse = add(pooledSparse, cs);
      console.log(JSON.stringify({ heldOutFamily: family, scenario: 'one planted text', ...metrics(cs) }));
    }
    for (const file of new Set(rows.map((r) => r.poisonSet.split(':')[0]))) perFile[file] = countRows(fit, rows.filter((r) => r.poisonSet.startsWith(`${file}:`)));
    const entry = { heldOutFamily: family, partialSupportMin: fit.partialSupportMin, lambda: fit.lambda, selected: fit.selected, yesThreshold: fit.yesThreshold, band: fit.band, ...metrics(c) };
    held.push(entry);
    console.log(JSON.stringify(entry));
    console.error(`[${i + 1}/${families.length}] held out ${family} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  const pooledMetrics = metrics(pooled);
  console.log(JSON.stringify({ pooledHeldOut: pooledMetrics }));
  if (sparse) console.log(JSON.stringify({ pooledHeldOutOnePlanted: metrics(pooledSparse) }));
  for (const [file, c] of Object.entries(perFile)) console.log(JSON.stringify({ file, ...metrics(c) }));
  if (errorsOut) writeFileSync(errorsOut, errors.map((e) => JSON.stringify({ family: e.file, at: e.poisonSet, q: e.question, poisoned: e.poisoned, score: r4(e.support), answer: e.wrongAnswer, text: e.text })).join('\n') + '\n');

  const fit = fitOfflineJudge(fitRowsByGate, families, grid, features);
  const inSample = metrics(countRows(fit, rowsByGate.get(fit.partialSupportMin)!.filter((r) => !r.sparse)));
  const out = {
    model: withReader ? READER_JUDGE_MODEL : OFFLINE_JUDGE_MODEL,
    ...(withReader ? { encoder: MINILM_ID, features } : {}),
    note: 'Written by scripts/fit-offline-judge.ts; do not edit by hand.',
    fittedOn: dev.map((d) => `${d.file}.jsonl`),
    families,
    method: `L1 logistic regression (coordinate descent, every attack family weighted equally) over the judge's ${features.length} features on texts stating the wrong answer; `
      + `partialSupportMin in {${grid.partialSupportMin.join(', ')}} and lambda in {${grid.lambda.join(', ')}} chosen by leave-one-family-out inside the training families (macro balanced accuracy); `
      + `YES threshold minimises FPR + FNR and the band's edges meet precision ${BAND_TARGETS.precision} / recall ${BAND_TARGETS.recall}, both on those inner out-of-family scores; `
      + `rows = BM25 top-10 per question in rounds of 5, poisons = given + ${DEV_VARIANTS.join(', ')} (first ${VARIANT_COUNT}); RevPRAG: ${REVPRAG_SAMPLE} questions per file (seed ${REVPRAG_SEED}), generator refusals dropped; clean texts borrowed where a file has none (dev-rows.ts, loadJudgeFitFiles)`,
    partialSupportMin: fit.partialSupportMin,
    lambda: fit.lambda,
    selected: fit.selected,
    weights: fit.weights,
    yesThreshold: fit.yesThreshold,
    band: fit.band,
    innerLeaveOneFamilyOut: { score: fit.innerScore, tried: fit.tried },
    leaveOneFamilyOut: { level: 'candidate (BM25 top-10 rows); the traceback-level numbers: npm run eval -- --suite dev', pooled: pooledMetrics, heldOut: held },
    // Per file, each measured with the fit that held out the file's whole family (the report's per-file table reads this).
    leaveOneFileOut: {
      level: 'candidate (BM25 top-10 rows), each file held out with its whole attack family (leaveOneFamilyOut)',
      heldOut: dev.map((d) => ({ heldOut: d.file, family: familyOf(d.file), ...metrics(perFile[d.file] ?? { tp: 0, fp: 0, tn: 0, fn: 0, auto: 0, autoPos: 0, band: 0, bandPos: 0 }) })),
    },
    inSample,
  };
  console.log(JSON.stringify({ final: { partialSupportMin: fit.partialSupportMin, lambda: fit.lambda, selected: fit.selected, yesThreshold: fit.yesThreshold, band: fit.band, inSample } }));
  if (!dryRun) {
    const path = withReader ? join(repoRoot, 'libs', 'forensics', 'src', 'reader', 'reader-judge.fitted.json') : join(repoRoot, 'libs', 'forensics', 'src', 'offline-judge', 'offline-judge.fitted.json');
    writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`);
    console.error(`wrote ${path} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

main().catch((err: unknown) => {
  console.error(`fit-offline-judge: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
