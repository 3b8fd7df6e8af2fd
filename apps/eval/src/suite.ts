/**
 * `npm run eval -- --suite dev` (issues 13, 33): every development file of --data-dir
 * (suite-files.ts) and the GPT-4 / Gemini rewrites, in one command, one table. With the offline
 * judge every file is traced with a judge refit WITHOUT its attack family — gate, feature
 * selection, weights, threshold and band, all by `fitOfflineJudge` on the files of the other
 * families (its rows are built once) — so each row is a leave-one-attack-family-out number: the
 * judge has seen neither the file nor any other poison of the generator that wrote it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pooledRates, READER_JUDGE_MODEL, type ConfusionCounts } from '@forensics/algorithms';
import type { EvalCliOptions, EvalCliOverrides, EvalCliResult } from './eval-options';
import { buildDevRows, byFamily, DEV_VARIANTS, familyOf as fitFamilyOf, JUDGE_FIT_FILES, loadJudgeFitFiles, poisonSetsOf, presentDevFiles, VARIANT_COUNT } from './judge-fit/dev-rows';
import { COMMITTED_FIT_GRID, DEFAULT_FIT_GRID, fitOfflineJudge, paramsOf, type JudgeFit } from './judge-fit/fit-judge';
import { decisionOf } from './report';
import { cachedMiniLmReader, READER_JUDGE_FEATURES, withReaderFeatures } from './judge-fit/reader-rows';
import type { DevRow } from './judge-fit/dev-rows';
import { MINILM_ID } from '@forensics/infra/embedders/embedder.factory';
import type { JudgeSummary } from './run-evaluation';
import { ATTACK_FAMILIES, loadSuiteFiles, type AttackFamily, type EventSample, type LoadedSuiteFile } from './suite-files';
import { groupedBarChart } from './svg-charts';

export interface SuiteRow {
  data: string;
  family: AttackFamily;
  /** False for files without clean texts (PoisonArena, RevPRAG HotpotQA): they count for recall and hit rates only. */
  hasClean: boolean;
  poisonSet: string;
  events: number;
  counts: ConfusionCounts;
  pooled: { dacc: number | null; fpr: number | null; fnr: number | null };
  decision: ReturnType<typeof decisionOf>;
  hitBefore: number | null;
  hitAfter: number | null;
  /** Over every planted text of the run: how many, never judged, still in serving after the traceback. */
  planted: { total: number; neverJudged: number; stillServed: number };
  /** Attack events the consensus check marked as suspected false flags. */
  suspectedEvents: number;
  fit?: Pick<JudgeFit, 'yesThreshold' | 'band' | 'partialSupportMin' | 'selected'>;
  wallSeconds: number;
}

const r4 = (x: number | null) => (x === null ? null : Math.round(x * 10000) / 10000);
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));

/** `runEvalCli` is passed in by eval-cli (which dispatches `--suite` here): one harness run per file and poison set. */
const VETTED_NOTE: Record<'clean' | 'all', string> = {
  clean: '**Vetted baseline** (`--vetted clean`, decision 0320): in each question\'s collection the clean texts were registered before the baseline\'s cutoff and the planted texts after it (an attack on a corpus its operator had vetted).',
  all: '**Vetted baseline** (`--vetted all`, decision 0320): every text, the planted ones included, was registered before the baseline\'s cutoff (poison already inside the vetted corpus).',
};

export async function runSuite(
  opts: EvalCliOptions, overrides: EvalCliOverrides,
  runEvalCli: (argv: readonly string[], overrides: EvalCliOverrides) => Promise<EvalCliResult>,
): Promise<EvalCliResult & { table: string }> {
  const log = overrides.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const dataDir = resolve(opts.suite!.dataDir);
  const sample = opts.suite!.sample ? JSON.parse(readFileSync(resolve(opts.suite!.sample), 'utf8')) as EventSample : undefined;
  const { loaded: dev, absent } = loadSuiteFiles(dataDir, undefined, sample);
  if (sample) log(`suite dev: the event sample ${opts.suite!.sample} (${dev.reduce((n, f) => n + f.records.length, 0)} events)`);
  if (!dev.length) throw new Error(`no development data in ${dataDir}; it lives in ../shared/data (see its README.md)`);
  if (absent.length) log(`suite dev: not in ${dataDir}, left out: ${absent.join(', ')}`);
  const variantSuffix = (opts.vetted !== 'none' ? `-vetted-${opts.vetted}${opts.vettedShare !== undefined ? `-${Math.round(opts.vettedShare * 100)}` : ''}` : '') + (opts.answerForm !== 'given' ? `-answer-${opts.answerForm}` : '');
  const out = resolve(opts.out ?? join('.eval', (opts.falseFlag ? `suite-dev-false-flag-${opts.falseFlag.trust}` : `suite-dev${opts.suite!.poisonCount !== undefined ? `-planted-${opts.suite!.poisonCount}` : ''}`) + variantSuffix));
  mkdirSync(out, { recursive: true });
  const started = Date.now();

  const fits = new Map<AttackFamily, JudgeFit>();
  const fitCache = opts.suite!.fitCache ? resolve(opts.suite!.fitCache) : undefined;
  const grid = opts.suite!.fitGrid === 'full' ? DEFAULT_FIT_GRID : COMMITTED_FIT_GRID;
  const gridKey = JSON.stringify(grid);
  // The family fits use the rows the committed judge is fitted on (scripts/fit-offline-judge.ts: `loadJudgeFitFiles`, rows
  // grouped by attack family — the unit of the inner leave-one-out and of the weights), less the held-out family: the suite
  // measures the procedure that ships. Until decision 0300 it fitted on the suite's own files, one file a unit. The cache
  // is keyed by the files present; they are read only to refit.
  const refits = opts.judge === 'offline' || opts.judge === 'reader';
  const fitKey = `judge-fit rows by family${opts.judge === 'reader' ? ' with the reader' : ''}: ${(refits ? presentDevFiles(dataDir, JUDGE_FIT_FILES) : []).join(',')}`;
  const cachedFits = fitCache && existsSync(fitCache) ? JSON.parse(readFileSync(fitCache, 'utf8')) as { files: string[] | string; grid?: string; fits: Record<string, JudgeFit> } : undefined;
  if (cachedFits && cachedFits.files === fitKey && cachedFits.grid === gridKey) {
    for (const [f, fit] of Object.entries(cachedFits.fits)) fits.set(f as AttackFamily, fit);
    log(`suite dev: family fits read from ${fitCache}`);
  } else if (refits) {
    if (cachedFits) log(`suite dev: ${fitCache} holds fits of other rows or another grid; refitting`);
    const fitFiles = loadJudgeFitFiles(dataDir);
    // The reader judge's rows carry the reader's features too (read once, cached in the eval cache folder).
    const reader = opts.judge === 'reader' ? cachedMiniLmReader(opts.cacheDir, overrides.env ?? process.env) : undefined;
    const rowsByGate = new Map<number, DevRow[]>();
    for (const g of grid.partialSupportMin) {
      const rows = byFamily(buildDevRows(fitFiles, { partialSupportMin: g }));
      rowsByGate.set(g, reader ? await withReaderFeatures(rows, reader.cached, log) : rows);
    }
    await reader?.close();
    log(`suite dev: judge rows built (${rowsByGate.get(grid.partialSupportMin[0])!.length} per gate value, ${((Date.now() - started) / 1000).toFixed(0)} s)`);
    const fitFamilies = [...new Set(fitFiles.map((d) => fitFamilyOf(d.file)))];
    for (const family of new Set(dev.map((d) => d.family))) {
      const fit = fitOfflineJudge(rowsByGate, fitFamilies.filter((f) => f !== family), grid, opts.judge === 'reader' ? READER_JUDGE_FEATURES : undefined);
      fits.set(family, { ...fit, fittedOn: fitFiles.filter((d) => fitFamilyOf(d.file) !== family).map((d) => d.file) });
    }
    log(`suite dev: ${fits.size} family fits, grid ${opts.suite!.fitGrid} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    if (fitCache) writeFileSync(fitCache, JSON.stringify({ files: fitKey, grid: gridKey, fits: Object.fromEntries(fits) }));
  }

  // A false-flag run uses the clean texts only: one run per file that has them, whatever its rewrites.
  const runs = dev.flatMap((f) => {
    if (opts.falseFlag && !f.hasClean) return [];
    const sets = opts.falseFlag ? ['given'] : poisonSetsOf(f.records[0]!, DEV_VARIANTS).map((s) => s.name);
    return sets.map((set) => ({ spec: f, set }));
  });
  // Planted texts per question: a rewrite set keeps its first VARIANT_COUNT; `--poison-count N` caps every set at N.
  const maxPlanted = opts.suite!.poisonCount;
  const cap = (set: string) => Math.min(maxPlanted ?? Infinity, set === 'given' ? Infinity : VARIANT_COUNT);
  const falseFlagRows: FalseFlagRow[] = [];
  const rows: SuiteRow[] = [];
  for (const [i, { spec, set }] of runs.entries()) {
    let fit: JudgeFit | undefined;
    if (refits) {
      fit = fits.get(spec.family);
      if (!fit) throw new Error(`suite dev: no fit for the ${spec.family} family`);
    }
    const argv = [
      '--data', join(dataDir, `${spec.file}.jsonl`), '--judge', opts.judge, '--k', String(opts.k), '--retriever', opts.retriever, '--cache', opts.cacheDir, '--quiet',
      '--out', join(out, set === 'given' ? spec.file : `${spec.file}-${set}`),
      ...(set !== 'given' ? ['--poison-set', set] : []),
      ...(Number.isFinite(cap(set)) ? ['--poison-count', String(cap(set))] : []),
      ...(opts.falseFlag ? ['--false-flag', '--trust', opts.falseFlag.trust] : []),
      ...(!opts.falseFlag && opts.attackTrust ? ['--trust', opts.attackTrust] : []),
      ...(opts.vetted !== 'none' ? ['--vetted', opts.vetted] : []),
      ...(opts.vettedShare !== undefined ? ['--vetted-share', String(opts.vettedShare)] : []),
      ...(opts.answerForm !== 'given' ? ['--answer-form', opts.answerForm] : []),
      ...(opts.limit ? ['--limit', String(opts.limit)] : []),
    ];
    const res = await runEvalCli(argv, {
      ...overrides,
      records: spec.records,
      log: () => undefined,
      ...(fit ? {
        ...(opts.judge === 'reader' ? { readerFit: { model: READER_JUDGE_MODEL, encoder: MINILM_ID, partialSupportMin: fit.partialSupportMin, weights: { ...fit.weights } as Record<string, number>, yesThreshold: fit.yesThreshold, band: fit.band } } : { offlineParams: paramsOf(fit) }),
        offlineJudgeFit: { method: `leave one attack family out: refit without the ${spec.family} family (${dev.filter((d) => d.family === spec.family).map((d) => d.file).join(', ')}; gate, features, weights, threshold, band)`, fittedOn: fit.fittedOn, yesThreshold: fit.yesThreshold, band: fit.band, partialSupportMin: fit.partialSupportMin, weights: { ...fit.weights } as Record<string, number> },
      } : {}),
    });
    const s = res.summary as JudgeSummary;
    if (opts.falseFlag) {
      const ff = s.falseFlag;
      if (!ff) throw new Error(`suite dev --false-flag: the run of ${spec.file} returned no false-flag counts`);
      falseFlagRows.push({ data: spec.file, family: spec.family, ...ff, review: decisionOf(s).review, fit: fit ? { yesThreshold: fit.yesThreshold, band: fit.band } : undefined });
      log(`[${i + 1}/${runs.length}] ${spec.file} false flags (${opts.falseFlag.trust}): ${ff.benignAutoQuarantined}/${ff.benignJudged} benign auto-quarantined, ${ff.benignWithheldForReview} withheld, ${ff.suspectedEvents} suspected events (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      continue;
    }
    const planted = s.questions.reduce((a, q) => ({ total: a.total + q.planted.total, neverJudged: a.neverJudged + q.planted.neverJudged, stillServed: a.stillServed + q.planted.stillServed }), { total: 0, neverJudged: 0, stillServed: 0 });
    rows.push({
      data: spec.file, family: spec.family, hasClean: spec.hasClean, poisonSet: set, events: s.events, counts: s.pooled.counts, pooled: { dacc: r4(s.pooled.dacc), fpr: r4(s.pooled.fpr), fnr: r4(s.pooled.fnr) },
      decision: decisionOf(s), hitBefore: r4(s.poisonHitRateBefore), hitAfter: r4(s.poisonHitRateAfter), planted,
      suspectedEvents: s.questions.filter((q) => q.decisions.suspectedFalseFlag).length,
      fit: fit ? { yesThreshold: fit.yesThreshold, band: fit.band, partialSupportMin: fit.partialSupportMin, selected: fit.selected } : undefined,
      wallSeconds: Math.round((res.line.wallSeconds as number) * 10) / 10,
    });
    log(`[${i + 1}/${runs.length}] ${spec.file} ${set}: DACC ${f3(s.pooled.dacc)} FPR ${f3(s.pooled.fpr)} FNR ${f3(s.pooled.fnr)} hit@${opts.k} after ${f3(s.poisonHitRateAfter)} suspected ${rows.at(-1)!.suspectedEvents}/${s.events} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  if (opts.falseFlag) return finishFalseFlagSuite(out, falseFlagRows, opts, started, log, dataDir);
  const all = aggregate(rows);
  const families = ATTACK_FAMILIES.map((f) => ({ family: f, agg: aggregate(rows.filter((r) => r.family === f)) })).filter((x) => x.agg.events > 0);
  const table = renderTable(rows, all, families, refits, opts.k);
  writeFileSync(join(out, 'suite.json'), JSON.stringify({ dataDir, judge: opts.judge, retriever: opts.retriever, k: opts.k, limit: opts.limit ?? null, poisonCount: opts.suite!.poisonCount ?? null, vetted: opts.vetted, vettedShare: opts.vettedShare ?? null, wallSeconds: (Date.now() - started) / 1000, all, families, runs: rows, samples: samplesOf(dev) }, null, 2));
  writeSuiteReport(out, rows, all, table, opts, dev);
  log(`targets (unrounded): ${targetSummary(all.targets).replace(/\*\*/g, '')}`);
  log(`report: ${join(out, 'report.md')}`);
  const targetsNotMet = all.targets.filter((c) => c.met === false).map((c) => c.name);
  const line = { suite: 'dev', judge: opts.judge, retriever: opts.retriever, k: opts.k, runs: rows.length, events: all.events, pooled: all.pooled, decision: all.decision, user: all.user, minFamilyDacc: all.minFamilyDacc, targetsNotMet, wallSeconds: Math.round((Date.now() - started) / 100) / 10 };
  return { line, files: [join(out, 'report.md'), join(out, 'suite.json')], out, table };
}

function samplesOf(dev: readonly LoadedSuiteFile[]): Record<string, string> {
  return Object.fromEntries(dev.filter((d) => d.sample).map((d) => [d.file, `${d.records.length} questions drawn with seed 33${d.sample!.withClean ? ' among those with clean texts' : ''}`]));
}

/** One of the suite's targets, checked on the unrounded pooled value (the table rounds: 151 / 7547 = 0.02001 prints 0.020). */
export interface SuiteTargetCheck {
  name: 'DACC' | 'FPR' | 'FNR' | 'auto precision' | 'auto+review recall' | 'review/event' | 'benign texts auto-quarantined'
    | 'family DACC (min)' | 'Hit@5 after (clean files)' | 'attack events suspected' | 'good texts taken out';
  value: number | null;
  op: '≥' | '≤';
  limit: number;
  /** null when the value is undefined (no poisons, nothing auto-quarantined). */
  met: boolean | null;
}

interface SuiteValues {
  dacc: number | null; fpr: number | null; fnr: number | null; autoPrecision: number | null; recall: number | null; reviewPerEvent: number | null;
  minFamilyDacc?: number | null; hitAfterClean?: number | null; suspectedShare?: number | null;
}

/** The targets for the no-LLM judge (issues 13, 33; the report's header is written from this list too). */
export const SUITE_TARGETS: readonly { name: SuiteTargetCheck['name']; key: keyof SuiteValues; op: '≥' | '≤'; limit: number }[] = [
  { name: 'DACC', key: 'dacc', op: '≥', limit: 0.98 }, { name: 'FPR', key: 'fpr', op: '≤', limit: 0.02 }, { name: 'FNR', key: 'fnr', op: '≤', limit: 0.02 },
  { name: 'auto precision', key: 'autoPrecision', op: '≥', limit: 0.99 }, { name: 'auto+review recall', key: 'recall', op: '≥', limit: 0.98 }, { name: 'review/event', key: 'reviewPerEvent', op: '≤', limit: 1 },
  { name: 'family DACC (min)', key: 'minFamilyDacc', op: '≥', limit: 0.95 }, { name: 'Hit@5 after (clean files)', key: 'hitAfterClean', op: '≤', limit: 0.05 },
  { name: 'attack events suspected', key: 'suspectedShare', op: '≤', limit: 0.05 },
];

/** The targets on the suite's pooled numbers, unrounded; a value not given (undefined) is not checked. Pure. */
export function checkSuiteTargets(v: SuiteValues): SuiteTargetCheck[] {
  return SUITE_TARGETS.filter(({ key }) => v[key] !== undefined).map(({ name, key, op, limit }) => checkTarget(name, v[key] ?? null, op, limit));
}

function checkTarget(name: SuiteTargetCheck['name'], value: number | null, op: '≥' | '≤', limit: number): SuiteTargetCheck {
  return { name, value, op, limit, met: value === null ? null : op === '≥' ? value >= limit : value <= limit };
}

/**
 * A family's DACC as its pooled row shows it: over its runs with clean texts, or over all its runs when none has
 * any (a recall-only family). Until 2026-11-28 the minimum over families pooled every run, so a family whose
 * clean-text file read lower (RevPRAG 0.951) was lifted by its file without clean texts and the minimum named another.
 */
export function familyDaccOf(rows: readonly SuiteRow[]): number | null {
  const clean = rows.filter((r) => r.hasClean);
  return pooledRates((clean.length ? clean : rows).map((r) => r.counts)).dacc;
}

/**
 * Pooled numbers over runs. DACC and FPR pool the runs with clean texts only (a file without clean
 * texts has no negatives: its texts would lift DACC by its recall alone); FNR, recall, review items,
 * the planted texts still served and the suspected events pool every run; Hit@K after is given over
 * the runs with clean texts (the target) and over all.
 */
function aggregate(rows: readonly SuiteRow[]) {
  const clean = rows.filter((r) => r.hasClean);
  const pooledClean = pooledRates(clean.map((r) => r.counts));
  const pooledAll = pooledRates(rows.map((r) => r.counts));
  const auto = rows.reduce((a, r) => a + r.decision.auto, 0);
  const autoPoisoned = rows.reduce((a, r) => a + r.decision.autoPoisoned, 0);
  const review = rows.reduce((a, r) => a + r.decision.review, 0);
  const events = rows.reduce((a, r) => a + r.events, 0);
  const poisons = rows.reduce((a, r) => a + r.counts.tp + r.counts.fn, 0);
  // Attack recall pooled over runs, weighted by each run's poisons judged (its own recall is over all its poisons).
  const recalled = rows.reduce((a, r) => a + (r.decision.recall ?? 0) * (r.counts.tp + r.counts.fn), 0);
  const decision = { autoPrecision: auto ? autoPoisoned / auto : null, recall: poisons ? recalled / poisons : null, reviewPerEvent: events ? review / events : null };
  const hit = (rs: readonly SuiteRow[]) => { const n = rs.reduce((a, r) => a + r.events, 0); return n ? rs.reduce((a, r) => a + (r.hitAfter ?? 0) * r.events, 0) / n : null; };
  const planted = rows.reduce((a, r) => ({ total: a.total + r.planted.total, neverJudged: a.neverJudged + r.planted.neverJudged, stillServed: a.stillServed + r.planted.stillServed }), { total: 0, neverJudged: 0, stillServed: 0 });
  const suspected = rows.reduce((a, r) => a + r.suspectedEvents, 0);
  const user = {
    hitAfterClean: r4(hit(clean)), hitAfterAll: r4(hit(rows)),
    plantedStillServed: planted.total ? r4(planted.stillServed / planted.total) : null, plantedNeverJudged: planted.total ? r4(planted.neverJudged / planted.total) : null,
    suspectedEvents: suspected, suspectedShare: events ? r4(suspected / events) : null, planted,
  };
  const dacc = clean.length ? pooledClean.dacc : pooledAll.dacc;
  const fpr = clean.length ? pooledClean.fpr : null;
  const byFamily = ATTACK_FAMILIES.map((f) => rows.filter((r) => r.family === f)).filter((rs) => rs.length);
  const familyDacc = byFamily.map(familyDaccOf).filter((x): x is number => x !== null);
  const minFamilyDacc = byFamily.length > 1 && familyDacc.length ? Math.min(...familyDacc) : undefined;
  return {
    events,
    pooled: { dacc: r4(dacc), fpr: r4(fpr), fnr: r4(pooledAll.fnr), counts: pooledAll.counts, countsWithClean: pooledClean.counts },
    decision: { autoPrecision: r4(decision.autoPrecision), recall: r4(decision.recall), reviewPerEvent: r4(decision.reviewPerEvent) },
    user,
    minFamilyDacc: minFamilyDacc === undefined ? null : r4(minFamilyDacc),
    targets: checkSuiteTargets({ dacc, fpr, fnr: pooledAll.fnr, ...decision, minFamilyDacc, hitAfterClean: clean.length ? hit(clean) : undefined, suspectedShare: events ? suspected / events : null }),
  };
}

/** "DACC 0.98070 ≥ 0.98 met; …; FNR 0.02001 ≤ 0.02 NOT met" (five decimals: the table's three can hide a miss). */
export function targetSummary(checks: readonly SuiteTargetCheck[]): string {
  return checks.map((c) => `${c.name} ${c.value === null ? 'n/a' : c.value.toFixed(5)} ${c.op} ${c.limit} ${c.met === null ? 'undefined' : c.met ? 'met' : '**NOT met**'}`).join('; ');
}

const share = (n: number, d: number) => (d ? (n / d).toFixed(3) : 'n/a');

function renderTable(rows: readonly SuiteRow[], all: ReturnType<typeof aggregate>, families: readonly { family: AttackFamily; agg: ReturnType<typeof aggregate> }[], lofo: boolean, k: number): string {
  const head = ['file', 'family', 'poisons', 'events', 'DACC', 'FPR', 'FNR', 'auto precision', 'auto+review recall', 'review/event', `Hit@${k} before→after`, 'planted still served', 'planted never judged', 'suspected events', ...(lofo ? ['fit: YES / band'] : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(`| ${r.data}${r.hasClean ? '' : ' (no clean texts)'} | ${r.family} | ${r.poisonSet} | ${r.events} | ${r.hasClean ? f3(r.pooled.dacc) : '—'} | ${r.hasClean ? f3(r.pooled.fpr) : '—'} | ${f3(r.pooled.fnr)} | ${f3(r.decision.autoPrecision)} | ${f3(r.decision.recall)} | ${r.decision.reviewPerEvent?.toFixed(2) ?? 'n/a'} | ${f3(r.hitBefore)} → ${f3(r.hitAfter)} | ${share(r.planted.stillServed, r.planted.total)} | ${share(r.planted.neverJudged, r.planted.total)} | ${r.suspectedEvents} |${lofo ? ` ${r.fit!.yesThreshold} / [${r.fit!.band.low}, ${r.fit!.band.high}) |` : ''}`);
  }
  const pooledLine = (label: string, a: ReturnType<typeof aggregate>) => `| ${label} | | | ${a.events} | ${f3(a.pooled.dacc)} | ${f3(a.pooled.fpr)} | ${f3(a.pooled.fnr)} | ${f3(a.decision.autoPrecision)} | ${f3(a.decision.recall)} | ${a.decision.reviewPerEvent?.toFixed(2) ?? 'n/a'} | → ${f3(a.user.hitAfterClean)} (clean files), ${f3(a.user.hitAfterAll)} (all) | ${f3(a.user.plantedStillServed)} | ${f3(a.user.plantedNeverJudged)} | ${a.user.suspectedEvents} (${f3(a.user.suspectedShare)}) |${lofo ? ' |' : ''}`;
  for (const f of families) lines.push(pooledLine(`*family ${f.family} (pooled)*`, f.agg));
  lines.push(pooledLine('**all runs (pooled)**', all));
  return lines.join('\n');
}

function writeSuiteReport(out: string, rows: readonly SuiteRow[], all: ReturnType<typeof aggregate>, table: string, opts: EvalCliOptions, dev: readonly LoadedSuiteFile[]): void {
  const label = (r: SuiteRow) => `${r.data.replace(/^gmtp_/, '').replace(/_contriever/, '').replace(/-trigger-dos/, '-dos').replace(/^poisonarena_nq_/, 'pa-')}${r.poisonSet === 'given' ? '' : `/${r.poisonSet}`}`;
  writeFileSync(join(out, 'rates.svg'), groupedBarChart({
    title: `suite dev: pooled DACC / FPR / FNR per file (${opts.judge}${(opts.judge === 'offline' || opts.judge === 'reader') ? ', leave-one-attack-family-out' : ''})`,
    groups: rows.map((r) => ({ label: label(r), bars: [{ name: 'DACC', value: r.hasClean ? r.pooled.dacc : null, color: '#2b6cb0' }, { name: 'FPR', value: r.hasClean ? r.pooled.fpr : null, color: '#c53030' }, { name: 'FNR', value: r.pooled.fnr, color: '#b7791f' }] })),
    max: 1, width: Math.max(760, rows.length * 70), height: 360,
  }));
  writeFileSync(join(out, 'decisions.svg'), groupedBarChart({
    title: `suite dev: what a user feels — Hit@${opts.k} after, planted texts still served, review items per event (÷ 5), suspected events`,
    groups: rows.map((r) => ({ label: label(r), bars: [
      { name: `Hit@${opts.k} after`, value: r.hitAfter, color: '#c53030' },
      { name: 'planted still served', value: r.planted.total ? r.planted.stillServed / r.planted.total : null, color: '#b7791f' },
      { name: 'review/event ÷ 5', value: r.decision.reviewPerEvent === null ? null : r.decision.reviewPerEvent / 5, color: '#718096' },
      { name: 'suspected events', value: r.events ? r.suspectedEvents / r.events : null, color: '#6b46c1' },
    ] })),
    max: 1, width: Math.max(760, rows.length * 70), height: 360,
  }));
  const samples = samplesOf(dev);
  const md = [
    '# Evaluation suite — development files', '',
    `Judge \`${opts.judge}\`, retriever \`${opts.retriever}\`, K = ${opts.k}${opts.limit ? `, first ${opts.limit} questions per file` : ''}. Each row is one run of the harness (\`npm run eval -- --data FILE [--poison-set S --poison-count ${VARIANT_COUNT}]\`).${opts.suite!.poisonCount !== undefined ? ` **At most ${opts.suite!.poisonCount} planted text(s) per question** (\`--poison-count ${opts.suite!.poisonCount}\`): a sparser attack than the files' own.` : ''}${opts.vetted !== 'none' ? ` ${VETTED_NOTE[opts.vetted]}${opts.vettedShare !== undefined ? ` Only ${Math.round(opts.vettedShare * 100)} % of each question's clean texts (chosen by a hash of the text) are inside the baseline; the rest arrived after the cutoff with the planted texts (\`--vetted-share ${opts.vettedShare}\`).` : ''}` : ''}`,
    (opts.judge === 'offline' || opts.judge === 'reader')
      ? `Offline judge, **leave one attack family out**: each file is traced with a judge whose feature selection, weights, YES threshold and confidence band${opts.suite!.fitGrid === 'full' ? ', support gate and L1 strength' : ''} were all fitted on the files of the OTHER attack families only (apps/eval/src/judge-fit; families in apps/eval/src/suite-files.ts). The variants of a file are held out with it. ${opts.suite!.fitGrid === 'full' ? 'Grid `full`: support gate and L1 strength chosen per family from a 3 × 4 grid by inner leave-one-family-out.' : `Grid \`committed\`: the committed judge's support gate and L1 strength (${COMMITTED_FIT_GRID.partialSupportMin[0]}, ${COMMITTED_FIT_GRID.lambda[0]}), as the product fits it.`}`
      : '',
    Object.keys(samples).length ? `Subsamples: ${Object.entries(samples).map(([f, s]) => `${f}: ${s}`).join('; ')}.` : '',
    'Files without clean texts (marked) count for FNR, recall, Hit@K and the planted texts still served only; pooled DACC and FPR are over the runs with clean texts. "Planted still served": planted texts neither auto-quarantined nor withheld for review, over every planted text of the run (judged or not). "Suspected events": attack events the consensus check took for false flags.', '',
    `Targets (issues 13, 33), pooled: ${SUITE_TARGETS.map((t) => `${t.name} ${t.op} ${t.limit}`).join(', ')}.`, '',
    table, '',
    `All runs pooled: DACC ${f3(all.pooled.dacc)}, FPR ${f3(all.pooled.fpr)}, FNR ${f3(all.pooled.fnr)}; auto precision ${f3(all.decision.autoPrecision)}, recall ${f3(all.decision.recall)}, ${all.decision.reviewPerEvent?.toFixed(2)} review items per event; Hit@${opts.k} after ${f3(all.user.hitAfterClean)} on files with clean texts; ${all.user.planted.stillServed} of ${all.user.planted.total} planted texts still served; ${all.user.suspectedEvents} of ${all.events} attack events suspected.`,
    `Counts: ${all.pooled.counts.tp} planted texts judged YES, ${all.pooled.counts.fn} missed; ${all.pooled.counts.fp} clean texts judged YES of ${all.pooled.counts.fp + all.pooled.counts.tn}.`, '',
    `Targets, on the unrounded pooled values: ${targetSummary(all.targets)}.`, '',
    '![rates](rates.svg)', '', '![decisions](decisions.svg)', '',
    'Each run\'s own report (errors quoted, per question) is in the folder named after the file.', '',
  ];
  writeFileSync(join(out, 'report.md'), md.filter((l, i, a) => l !== '' || a[i - 1] !== '').join('\n'));
}

interface FalseFlagRow {
  data: string;
  family: AttackFamily;
  events: number;
  benignJudged: number;
  benignAutoQuarantined: number;
  suspectedEvents: number;
  benignWithheldForReview: number;
  review: number;
  fit?: Pick<JudgeFit, 'yesThreshold' | 'band'>;
}

/**
 * The false-flag targets (issues 13, 33): good texts taken out of serving — auto-quarantined plus
 * withheld for review — ≤ 1 % of the good texts judged for an identified reporter, none for an anonymous one.
 */
export const FALSE_FLAG_TARGET = { identified: 0.01, anonymous: 0 } as const;

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : 'n/a');

/** The `--suite dev --false-flag` table, its pooled row and the target check on the unrounded rate. */
function finishFalseFlagSuite(
  out: string, rows: readonly FalseFlagRow[], opts: EvalCliOptions, started: number, log: (s: string) => void, dataDir: string,
): EvalCliResult & { table: string } {
  const trust = opts.falseFlag!.trust;
  const sum = (k: keyof Omit<FalseFlagRow, 'data' | 'fit' | 'family'>) => rows.reduce((a, r) => a + r[k], 0);
  const pooled = {
    events: sum('events'), benignJudged: sum('benignJudged'), benignAutoQuarantined: sum('benignAutoQuarantined'),
    suspectedEvents: sum('suspectedEvents'), benignWithheldForReview: sum('benignWithheldForReview'), review: sum('review'),
  };
  const rate = pooled.benignJudged ? pooled.benignAutoQuarantined / pooled.benignJudged : null;
  const takenOut = pooled.benignAutoQuarantined + pooled.benignWithheldForReview;
  const takenOutRate = pooled.benignJudged ? takenOut / pooled.benignJudged : null;
  const target = checkTarget('good texts taken out', takenOutRate, '≤', FALSE_FLAG_TARGET[trust]);
  const lofo = opts.judge === 'offline' || opts.judge === 'reader';
  const head = ['file', 'family', 'events', 'benign judged', 'auto-quarantined', 'withheld for review', 'taken out of serving', 'share', 'suspected false-flag events', 'review/event', ...(lofo ? ['fit: YES / band'] : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const out1 = r.benignAutoQuarantined + r.benignWithheldForReview;
    lines.push(`| ${r.data} | ${r.family} | ${r.events} | ${r.benignJudged} | ${r.benignAutoQuarantined} | ${r.benignWithheldForReview} | ${out1} | ${pct(out1, r.benignJudged)} | ${r.suspectedEvents} | ${r.events ? (r.review / r.events).toFixed(2) : 'n/a'} |${lofo ? ` ${r.fit!.yesThreshold} / [${r.fit!.band.low}, ${r.fit!.band.high}) |` : ''}`);
  }
  lines.push(`| **all files (pooled)** | | ${pooled.events} | ${pooled.benignJudged} | ${pooled.benignAutoQuarantined} | ${pooled.benignWithheldForReview} | ${takenOut} | ${pct(takenOut, pooled.benignJudged)} | ${pooled.suspectedEvents} | ${pooled.events ? (pooled.review / pooled.events).toFixed(2) : 'n/a'} |${lofo ? ' |' : ''}`);
  const table = lines.join('\n');
  const verdict = targetSummary([target]);
  writeFileSync(join(out, 'suite.json'), JSON.stringify({ dataDir, judge: opts.judge, retriever: opts.retriever, k: opts.k, limit: opts.limit ?? null, trust, vetted: opts.vetted, vettedShare: opts.vettedShare ?? null, wallSeconds: (Date.now() - started) / 1000, pooled, rate, takenOutRate, met: target.met, runs: rows }, null, 2));
  writeFileSync(join(out, 'report.md'), [
    `# False-flag suite — development files (${trust} reporters)`, '',
    `Judge \`${opts.judge}\`, retriever \`${opts.retriever}\`, K = ${opts.k}${opts.limit ? `, first ${opts.limit} questions per file` : ''}. Each row is \`npm run eval -- --data FILE --false-flag --trust ${trust}\`: every record's CORRECT answer reported as wrong by one ${trust} reporter, over the record's clean texts only (no poisons). Files without clean texts are left out.${opts.vetted !== 'none' ? ` ${VETTED_NOTE[opts.vetted]}${opts.vettedShare !== undefined ? ` Only ${Math.round(opts.vettedShare * 100)} % of each question's clean texts (chosen by a hash of the text) are inside the baseline; the rest arrived after the cutoff with the planted texts (\`--vetted-share ${opts.vettedShare}\`).` : ''}` : ''}`,
    lofo ? 'Offline judge, **leave one attack family out**: each file is judged by a judge refit without its attack family, as in `--suite dev`.' : '', '',
    `Target (issue 33): good texts taken out of serving (auto-quarantined + withheld for review) ≤ ${FALSE_FLAG_TARGET[trust] * 100} % of the good texts judged (${trust}).`, '',
    table, '',
    `Pooled, unrounded: ${verdict}; auto-quarantined alone ${rate === null ? 'n/a' : rate.toFixed(5)}.`, '',
    'Each run\'s own report (per question) is in the folder named after the file.', '',
  ].join('\n'));
  log(`target (unrounded): ${verdict.replace(/\*\*/g, '')}`);
  log(`report: ${join(out, 'report.md')}`);
  const line = {
    suite: 'dev', judge: opts.judge, retriever: opts.retriever, k: opts.k, runs: rows.length,
    falseFlag: { trust, events: pooled.events, benignJudged: pooled.benignJudged, benignAutoQuarantined: pooled.benignAutoQuarantined, suspectedEvents: pooled.suspectedEvents, benignWithheldForReview: pooled.benignWithheldForReview, benignTakenOut: takenOut },
    benignAutoQuarantinedShare: rate === null ? null : r4(rate), benignTakenOutShare: takenOutRate === null ? null : r4(takenOutRate),
    targetsNotMet: target.met === false ? ['falseFlag'] : [],
    wallSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  return { line, files: [join(out, 'report.md'), join(out, 'suite.json')], out, table };
}
