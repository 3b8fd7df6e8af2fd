/**
 * Calibrates the retriever-side evidence scales (BiRD, GRADA, ProGRank → P(poisoned)) and their
 * combination on the development data, with leave-one-file-out (LOFO) numbers, and writes
 * libs/forensics/src/evidence/evidence.fitted.json, which the evidence module loads.
 *
 *   npx tsx scripts/fit-evidence.ts [--data-dir ../shared/data] [--limit N] [--no-progrank] [--runs 20]
 *                                   [--reuse] [--rows-dir .eval/evidence-rows] [--dry-run]
 *
 * Rows (scripts/evidence-rows.ts): per development file, per record whose clean pool has ≥ 20
 * texts, the knowledge base clean_texts ∪ poisoned_texts in its own collection (the harness's
 * setting), the default encoder USE-lite through the shared embedding cache (.eval/cache), the
 * top-2K (K = 5) texts for the question, and the service's own `collectEvidence` on them — BiRD
 * (k = 20), GRADA (M = 2K) and ProGRank with the exact USE-lite LayerNorm probe (R = 20 token-dropout
 * runs, gate on the top-B pool, probes on its upper tail). Poisoned texts are positives. Raw rows
 * are kept in --rows-dir (`--reuse` refits from them without recomputing).
 *
 * Fit (`fitEvidenceCalibration`, libs/forensics/src/evidence/calibration.ts): per signal an
 * L2-regularised logistic regression on its fixed raw transform (Platt scaling: monotone), then,
 * for every subset of signals that can be present, a logistic regression over the calibrated
 * signals' logits. Nothing per question or per wording: 2 + 3 + 2 + (4 + 3·3 + 3·2) numbers.
 * LOFO: for each file, everything is refit on the other files and the AUROC (and log-loss) of
 * each signal and of the combination is measured on the held-out file.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { auroc, fitEvidenceCalibration, scoreEvidenceRows, type CalibrationRow, type EvidenceCalibration } from '@forensics/algorithms';
import { UseLiteEmbedder } from '@forensics/infra/embedders/use-lite-embedder.adapter';
import { UseLiteGradientProbe } from '@forensics/infra/probe/use-lite/use-lite-gradient-probe';
import { CachedEmbedder } from '../apps/eval/src/cached-embedder.adapter';
import { evidenceRowsFor, qualifies, type EvidenceRecordInput, type EvidenceRow } from './evidence-rows';

export const DEV_FILES = [
  'poisonedrag_nq',
  'poisonedrag_hotpotqa',
  'robustrag_realtimeqa',
  'gmtp_poisonedrag-whitebox-hotflip_contriever_nq',
  'gmtp_poisonedrag-whitebox-hotflip_contriever_hotpotqa',
];

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** EvidenceRow (raw, as stored) → CalibrationRow (what the fit reads). */
export function calibrationRow(r: EvidenceRow): CalibrationRow {
  return {
    group: r.file,
    poisoned: r.poisoned,
    bird: r.birdS === null ? undefined : r.birdS === 'Infinity' ? Number.POSITIVE_INFINITY : r.birdS,
    grada: r.grada ?? undefined,
    progrank: r.progrank ? r.progrank.penalty : undefined,
  };
}

async function collect(dataDir: string, rowsDir: string, limit: number | undefined, withProbe: boolean, runs: number): Promise<void> {
  const embedder = new CachedEmbedder(new UseLiteEmbedder(), resolve('.eval/cache/use-lite.bin'));
  await embedder.init();
  const probe = withProbe ? new UseLiteGradientProbe() : null;
  mkdirSync(rowsDir, { recursive: true });
  for (const file of DEV_FILES) {
    const records = readFileSync(join(dataDir, `${file}.jsonl`), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as EvidenceRecordInput).filter((r) => qualifies(r));
    const take = limit === undefined ? records : records.slice(0, limit);
    const rows: EvidenceRow[] = [];
    const t0 = Date.now();
    for (const [i, r] of take.entries()) {
      rows.push(...(await evidenceRowsFor(r, { file, embedder, probe, runs })));
      if ((i + 1) % 10 === 0) process.stderr.write(`${file}: ${i + 1}/${take.length} (${((Date.now() - t0) / (i + 1) / 1000).toFixed(2)} s/record, cache misses ${embedder.misses})\n`);
    }
    writeFileSync(join(rowsDir, `${file}.jsonl`), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    process.stderr.write(`${file}: ${take.length} records, ${rows.length} rows, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  await probe?.close();
}

function loadRows(rowsDir: string): EvidenceRow[] {
  return DEV_FILES.flatMap((f) => readFileSync(join(rowsDir, `${f}.jsonl`), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as EvidenceRow));
}

const r3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

async function main(): Promise<void> {
  const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data'))!);
  const rowsDir = resolve(arg('rows-dir', '.eval/evidence-rows')!);
  const limit = arg('limit') ? Number(arg('limit')) : undefined;
  const withProbe = !process.argv.includes('--no-progrank');
  const runs = Number(arg('runs', '20'));
  const missing = DEV_FILES.filter((f) => !existsSync(join(dataDir, `${f}.jsonl`)));
  if (missing.length) {
    console.error(`fit-evidence: development data not found in ${dataDir} (${missing.join(', ')}); it lives in ../shared/data (see its README.md).`);
    process.exit(3);
  }
  if (!process.argv.includes('--reuse')) await collect(dataDir, rowsDir, limit, withProbe, runs);
  const raw = loadRows(rowsDir);
  const rows = raw.map(calibrationRow);

  // Leave one file out: refit everything on the other files, measure on the held-out one.
  const lofo: Record<string, Record<string, number | null>> = {};
  for (const file of DEV_FILES) {
    const train = rows.filter((r) => r.group !== file);
    const test = rows.filter((r) => r.group === file);
    const cal = fitEvidenceCalibration(train);
    lofo[file] = perSignalAuroc(test, cal);
  }
  const full = fitEvidenceCalibration(rows);
  const inSample = perSignalAuroc(rows, full);
  const fitted: EvidenceCalibration = {
    ...full,
    fit: {
      method: 'Platt scaling per signal (L2 logistic regression on a fixed monotone transform of the raw value), then per subset of present signals an L2 logistic regression over the calibrated logits',
      encoder: 'use-lite', probe: withProbe ? 'use-lite exact LayerNorm probe, R = ' + runs : 'none',
      setting: 'per record: clean_texts ∪ poisoned_texts in one collection; candidates = top-2K (K = 5) for the question; records with ≥ 20 clean texts; collectEvidence with the service defaults',
      files: DEV_FILES.map((f) => ({ file: f, records: new Set(raw.filter((r) => r.file === f).map((r) => r.question)).size, rows: raw.filter((r) => r.file === f).length, poisoned: raw.filter((r) => r.file === f && r.poisoned).length })),
      lofoAuroc: Object.fromEntries(Object.entries(lofo).map(([f, v]) => [f, Object.fromEntries(Object.entries(v).map(([k, x]) => [k, r3(x)]))])),
      inSampleAuroc: Object.fromEntries(Object.entries(inSample).map(([k, x]) => [k, r3(x)])),
      limitPerFile: limit ?? null,
    },
  };
  console.log(JSON.stringify({ lofo: fitted.fit!.lofoAuroc, inSample: fitted.fit!.inSampleAuroc }));
  if (!process.argv.includes('--dry-run')) {
    const out = join(__dirname, '..', 'libs', 'forensics', 'src', 'evidence', 'evidence.fitted.json');
    writeFileSync(out, JSON.stringify(fitted, null, 2) + '\n');
    console.error(`wrote ${out}`);
  }
}

/** AUROC of each calibrated signal (over the rows where it is present) and of the combination (all rows). */
function perSignalAuroc(rows: CalibrationRow[], cal: EvidenceCalibration): Record<string, number | null> {
  const scored = scoreEvidenceRows(rows, cal);
  const of = (pick: (i: number) => number | undefined) => {
    const idx = scored.map((_, i) => i).filter((i) => pick(i) !== undefined);
    return auroc(idx.map((i) => pick(i)!), idx.map((i) => rows[i].poisoned));
  };
  return {
    bird: of((i) => scored[i].bird),
    grada: of((i) => scored[i].grada),
    progrank: of((i) => scored[i].progrank),
    combined: of((i) => scored[i].combined),
  };
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
