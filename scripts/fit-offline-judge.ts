/**
 * Fits the offline evidence judge's logistic weights and YES threshold (see `offlineJudge` in
 * libs/forensics/src/offline-judge) on the development files, with cross-validation BY QUESTION and
 * LEAVE ONE DATASET OUT, and writes the small committed JSON
 * libs/forensics/src/offline-judge/offline-judge.fitted.json.
 *
 *   npx tsx scripts/fit-offline-judge.ts [--data-dir ../shared/data] [--folds 5] [--lambda 0.001] [--pool 10]
 *                                        [--lodo] [--no-lodo] [--dry-run]
 *
 * Training rows: per question, the knowledge base clean_texts ∪ poisoned_texts is ranked for the
 * question by BM25; the top `--pool` (default 10, about what a K = 5 traceback judges) texts are taken in rounds of 5, as the traceback judges them (the
 * other texts of the round are the peers). Rows whose text does not state the wrong answer get
 * score 0 whatever the weights (the support gate), so the regression sees only the others, but
 * every row counts in the reported metrics. Features: `offlineJudgeFeatures` — the same function
 * the judge uses. L2-regularised logistic regression by Newton's method; the threshold minimises the
 * training FPR + FNR (the goal bounds both). Folds group whole questions (a question's texts are never split between
 * training and test). The data is read in place from ../shared/data; nothing is copied.
 *
 * Two honest estimates, because the committed weights are fitted on the very files the harness
 * measures:
 * - cross-validation by question (candidate level): one JSON line `{"cv": …}`;
 * - leave one dataset out (traceback level): for each file, weights and threshold are fitted on the
 *   OTHER files only, then the evaluation harness (apps/eval, embed retriever, K = 5, the same as
 *   `npm run -s eval -- --data FILE --judge offline`) traces the held-out file with them; one JSON
 *   line per held-out file `{"heldOut": …, "pooled": {dacc, fpr, fnr}}`. Reports go to
 *   .eval/lodo/<file>/. Needs the harness's embedding cache (.eval/cache) to be fast.
 *
 * `--lodo` prints both estimates and writes nothing; the default also fits on all files and writes
 * offline-judge.fitted.json with both estimates (the harness quotes them in report.md); `--no-lodo`
 * skips the traceback runs (the JSON then has no leaveOneDatasetOut); `--dry-run` writes nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  bm25TopK, buildBm25Index, OFFLINE_JUDGE_FEATURES, OFFLINE_JUDGE_MODEL, offlineJudgeFeatures, tokenize,
  type OfflineJudgeWeights,
} from '@forensics/algorithms';
import { runEvalCli } from '../apps/eval/src/eval-cli';
import type { LeaveOneDatasetOut } from '../apps/eval/src/report';

const DEV_FILES = ['poisonedrag_nq', 'poisonedrag_hotpotqa', 'robustrag_realtimeqa'];
const POOL = Number(arg('pool', '10'));
const ROUND = 5;

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

interface Row { file: string; question: string; fold: number; poisoned: boolean; support: number; x: number[] }

const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data'))!);
const folds = Number(arg('folds', '5'));
const lambda = Number(arg('lambda', '0.001'));
const lodoOnly = process.argv.includes('--lodo');
const runLodo = lodoOnly || !process.argv.includes('--no-lodo');
const dryRun = lodoOnly || process.argv.includes('--dry-run');
const repoRoot = join(__dirname, '..');
const missing = DEV_FILES.filter((f) => !existsSync(join(dataDir, `${f}.jsonl`)));
if (missing.length) {
  console.error(`fit-offline-judge: development data not found in ${dataDir} (${missing.join(', ')}.jsonl); it lives in ../shared/data (see its README.md).`);
  process.exit(3);
}

const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });
const rows: Row[] = [];
for (const file of DEV_FILES) {
  for (const line of readFileSync(join(dataDir, `${file}.jsonl`), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { id: string; question: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] };
    const texts = [...r.clean_texts, ...r.poisoned_texts];
    const isPoison = texts.map((_, i) => i >= r.clean_texts.length);
    const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), POOL).map((h) => h.index);
    const fold = createHash('sha256').update(`${file}\u0000${r.id}`).digest().readUInt32BE(0) % folds;
    for (let s = 0; s < ranked.length; s += ROUND) {
      const batch = ranked.slice(s, s + ROUND);
      for (const i of batch) {
        const ev = offlineJudgeFeatures({ query: r.question, wrongAnswer: r.incorrect_answer, text: texts[i], peers: batch.filter((j) => j !== i).map((j) => texts[j]) });
        rows.push({ file, question: `${file}/${r.id}`, fold, poisoned: isPoison[i], support: ev.support, x: OFFLINE_JUDGE_FEATURES.map((f) => ev.features[f]) });
      }
    }
  }
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const dot = (w: number[], x: number[]) => w[0] + x.reduce((a, v, i) => a + w[i + 1] * v, 0);

/** L2-regularised logistic regression (bias not penalised) by Newton's method. */
function fit(train: Row[]): number[] {
  const d = OFFLINE_JUDGE_FEATURES.length + 1;
  let w = new Array<number>(d).fill(0);
  const data = train.filter((r) => r.support > 0);
  for (let it = 0; it < 50; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const r of data) {
      const xi = [1, ...r.x];
      const p = sigmoid(dot(w, r.x));
      const y = r.poisoned ? 1 : 0;
      for (let a = 0; a < d; a++) {
        g[a] += (p - y) * xi[a];
        for (let b = 0; b < d; b++) H[a][b] += p * (1 - p) * xi[a] * xi[b];
      }
    }
    // Penalty λ·n·||w||²/2 on the feature weights (not the bias): scale-free in the number of rows.
    for (let a = 1; a < d; a++) { g[a] += lambda * data.length * w[a]; H[a][a] += lambda * data.length; }
    const step = solve(H, g);
    w = w.map((v, i) => v - step[i]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return w;
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    const piv = M[c][c] || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / piv;
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / (row[i] || 1e-12));
}

const scoreOf = (w: number[], r: Row) => (r.support === 0 ? 0 : r.support * sigmoid(dot(w, r.x)));

function bestThreshold(w: number[], train: Row[]): number {
  let best = 0.5;
  let bestErr = Infinity;
  for (let t = 0.2; t <= 0.95 + 1e-9; t += 0.01) {
    const pos = train.filter((r) => r.poisoned);
    const neg = train.filter((r) => !r.poisoned);
    const err = pos.filter((r) => scoreOf(w, r) < t).length / Math.max(1, pos.length) + neg.filter((r) => scoreOf(w, r) >= t).length / Math.max(1, neg.length);
    if (err < bestErr) { bestErr = err; best = Math.round(t * 100) / 100; }
  }
  return best;
}

function rates(pred: { poisoned: boolean; yes: boolean }[]) {
  const tp = pred.filter((p) => p.poisoned && p.yes).length;
  const fn = pred.filter((p) => p.poisoned && !p.yes).length;
  const fp = pred.filter((p) => !p.poisoned && p.yes).length;
  const tn = pred.filter((p) => !p.poisoned && !p.yes).length;
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  return { rows: pred.length, dacc: r4((tp + tn) / pred.length), fpr: r4(fp / Math.max(1, fp + tn)), fnr: r4(fn / Math.max(1, fn + tp)), tp, fp, tn, fn };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const weightsOf = (w: number[]) => Object.fromEntries([['bias', round3(w[0])], ...OFFLINE_JUDGE_FEATURES.map((f, i) => [f, round3(w[i + 1])])]) as OfflineJudgeWeights;

async function main(): Promise<void> {
  // Cross-validation by question.
  const cvPred: { file: string; poisoned: boolean; yes: boolean }[] = [];
  const foldThresholds: number[] = [];
  for (let k = 0; k < folds; k++) {
    const train = rows.filter((r) => r.fold !== k);
    const w = fit(train);
    const t = bestThreshold(w, train);
    foldThresholds.push(t);
    for (const r of rows.filter((x) => x.fold === k)) cvPred.push({ file: r.file, poisoned: r.poisoned, yes: scoreOf(w, r) >= t });
  }
  const cv: Record<string, ReturnType<typeof rates>> = Object.fromEntries([['all', rates(cvPred)] as const, ...DEV_FILES.map((f) => [f, rates(cvPred.filter((p) => p.file === f))] as const)]);
  console.log(JSON.stringify({ cv: { byQuestion: `${folds}-fold`, level: 'candidate', ...Object.fromEntries(Object.entries(cv).map(([k, v]) => [k, { dacc: v.dacc, fpr: v.fpr, fnr: v.fnr }])) } }));

  // Leave one dataset out, at the traceback level (the harness on the held-out file).
  let lodo: LeaveOneDatasetOut | undefined;
  if (runLodo) {
    lodo = { note: 'traceback level: weights and threshold fitted on the other files only, then the eval harness on the held-out file', retriever: 'embed', k: 5, heldOut: [] };
    for (const held of DEV_FILES) {
      const fittedOn = DEV_FILES.filter((f) => f !== held);
      const train = rows.filter((r) => r.file !== held);
      const w = fit(train);
      const yesThreshold = bestThreshold(w, train);
      const weights = weightsOf(w);
      const { line } = await runEvalCli(
        ['--data', join(dataDir, `${held}.jsonl`), '--judge', 'offline', '--quiet', '--cache', join(repoRoot, '.eval', 'cache'), '--out', join(repoRoot, '.eval', 'lodo', held)],
        {
          log: () => undefined,
          offlineParams: { weights, yesThreshold, undeterminedBelow: yesThreshold },
          offlineJudgeFit: { method: `leave one dataset out: fitted on ${fittedOn.join(', ')} only`, yesThreshold, weights: { ...weights }, crossValidated: {} },
        },
      );
      const pooled = line.pooled as { dacc: number | null; fpr: number | null; fnr: number | null };
      const entry = { data: held, fittedOn: fittedOn.map((f) => `${f}.jsonl`), yesThreshold, events: line.events as number, pooled };
      lodo.heldOut.push(entry);
      console.log(JSON.stringify({ heldOut: held, fittedOn: entry.fittedOn, yesThreshold, weights, events: entry.events, pooled, macro: line.macro }));
    }
  }
  if (lodoOnly) return;

  const w = fit(rows);
  const threshold = bestThreshold(w, rows);
  const inSample = rates(rows.map((r) => ({ poisoned: r.poisoned, yes: scoreOf(w, r) >= threshold })));
  const weights = weightsOf(w);
  const out = {
    model: OFFLINE_JUDGE_MODEL,
    note: 'Written by scripts/fit-offline-judge.ts; do not edit by hand.',
    fittedOn: DEV_FILES.map((f) => `${f}.jsonl`),
    method: `L2 logistic regression (lambda ${lambda}) on texts stating the wrong answer; candidates = BM25 top-${POOL} per question in rounds of ${ROUND}; threshold minimises training FPR + FNR; ${folds}-fold cross-validation by question`,
    weights,
    yesThreshold: threshold,
    crossValidated: { note: 'candidate-level, pooled over held-out questions (not the traceback-level numbers of the eval harness)', foldThresholds, ...cv },
    ...(lodo ? { leaveOneDatasetOut: lodo } : {}),
    inSample,
  };
  console.log(JSON.stringify({ weights, yesThreshold: threshold, inSample }));
  if (!dryRun) {
    const path = join(repoRoot, 'libs', 'forensics', 'src', 'offline-judge', 'offline-judge.fitted.json');
    writeFileSync(path, `${JSON.stringify(out, null, 2)}\n`);
    console.error(`wrote ${path}`);
  }
}

main().catch((err: unknown) => {
  console.error(`fit-offline-judge: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exitCode = 1;
});
