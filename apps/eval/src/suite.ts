/**
 * `npm run eval -- --suite dev` (issue 13): every development file of --data-dir and its GPT-4 /
 * Gemini rewrites, in one command, one table. With the offline judge every file is traced with a
 * judge refit WITHOUT that file — gate, feature selection, weights, threshold and band, all by
 * `fitOfflineJudge` on the other files (its rows are built once) — so each row is a
 * leave-one-file-out number: the judge has never seen the file it is measured on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pooledRates, type ConfusionCounts } from '@forensics/algorithms';
import type { EvalCliOptions, EvalCliOverrides, EvalCliResult } from './eval-cli';
import { buildDevRows, DEV_FILES, DEV_VARIANTS, loadDevFiles, poisonSetsOf, VARIANT_COUNT, type DevRow } from './judge-fit/dev-rows';
import { DEFAULT_FIT_GRID, fitOfflineJudge, paramsOf, type JudgeFit } from './judge-fit/fit-judge';
import { decisionOf } from './report';
import type { JudgeSummary } from './run-evaluation';
import { groupedBarChart } from './svg-charts';

interface SuiteRow {
  data: string;
  poisonSet: string;
  events: number;
  counts: ConfusionCounts;
  pooled: { dacc: number | null; fpr: number | null; fnr: number | null };
  decision: ReturnType<typeof decisionOf>;
  hitBefore: number | null;
  hitAfter: number | null;
  fit?: Pick<JudgeFit, 'yesThreshold' | 'band' | 'partialSupportMin' | 'selected'>;
  wallSeconds: number;
}

const r4 = (x: number | null) => (x === null ? null : Math.round(x * 10000) / 10000);
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : x.toFixed(3));

/** `runEvalCli` is passed in by eval-cli (which dispatches `--suite` here): one harness run per file and poison set. */
export async function runSuite(
  opts: EvalCliOptions, overrides: EvalCliOverrides,
  runEvalCli: (argv: readonly string[], overrides: EvalCliOverrides) => Promise<EvalCliResult>,
): Promise<EvalCliResult & { table: string }> {
  const log = overrides.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const dataDir = resolve(opts.suite!.dataDir);
  const dev = loadDevFiles(dataDir);
  const absent = DEV_FILES.filter((f) => !dev.some((d) => d.file === f));
  if (absent.length) log(`suite dev: not in ${dataDir}, left out: ${absent.join(', ')}`);
  const out = resolve(opts.out ?? join('.eval', opts.falseFlag ? `suite-dev-false-flag-${opts.falseFlag.trust}` : 'suite-dev'));
  mkdirSync(out, { recursive: true });
  const started = Date.now();

  let rowsByGate: Map<number, DevRow[]> | undefined;
  if (opts.judge === 'offline') {
    rowsByGate = new Map(DEFAULT_FIT_GRID.partialSupportMin.map((g) => [g, buildDevRows(dev, { partialSupportMin: g })]));
    log(`suite dev: judge rows built (${rowsByGate.get(DEFAULT_FIT_GRID.partialSupportMin[0])!.length} per gate value, ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  // A false-flag run uses the clean texts only: one run per file, whatever its rewrites.
  const runs = dev.flatMap(({ file, records }) => {
    const sets = opts.falseFlag ? ['given'] : poisonSetsOf(records[0], DEV_VARIANTS).map((s) => s.name);
    return sets.map((set) => ({ file, set }));
  });
  const falseFlagRows: FalseFlagRow[] = [];
  const rows: SuiteRow[] = [];
  const fits = new Map<string, JudgeFit>();
  for (const [i, run] of runs.entries()) {
    let fit: JudgeFit | undefined;
    if (rowsByGate) {
      fit = fits.get(run.file) ?? fitOfflineJudge(rowsByGate, dev.map((d) => d.file).filter((f) => f !== run.file));
      fits.set(run.file, fit);
    }
    const argv = [
      '--data', join(dataDir, `${run.file}.jsonl`), '--judge', opts.judge, '--k', String(opts.k), '--retriever', opts.retriever, '--cache', opts.cacheDir, '--quiet',
      '--out', join(out, run.set === 'given' ? run.file : `${run.file}-${run.set}`),
      ...(run.set !== 'given' ? ['--poison-set', run.set, '--poison-count', String(VARIANT_COUNT)] : []),
      ...(opts.falseFlag ? ['--false-flag', '--trust', opts.falseFlag.trust] : []),
      ...(opts.limit ? ['--limit', String(opts.limit)] : []),
    ];
    const res = await runEvalCli(argv, {
      ...overrides,
      log: () => undefined,
      ...(fit ? {
        offlineParams: paramsOf(fit),
        offlineJudgeFit: { method: `leave one file out: refit without ${run.file} (gate, features, weights, threshold, band)`, fittedOn: fit.fittedOn, yesThreshold: fit.yesThreshold, band: fit.band, partialSupportMin: fit.partialSupportMin, weights: { ...fit.weights } as Record<string, number> },
      } : {}),
    });
    const s = res.summary as JudgeSummary;
    if (opts.falseFlag) {
      const ff = s.falseFlag;
      if (!ff) throw new Error(`suite dev --false-flag: the run of ${run.file} returned no false-flag counts`);
      falseFlagRows.push({ data: run.file, ...ff, review: decisionOf(s).review, fit: fit ? { yesThreshold: fit.yesThreshold, band: fit.band } : undefined });
      log(`[${i + 1}/${runs.length}] ${run.file} false flags (${opts.falseFlag.trust}): ${ff.benignAutoQuarantined}/${ff.benignJudged} benign auto-quarantined, ${ff.suspectedEvents} suspected events (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      continue;
    }
    rows.push({
      data: run.file, poisonSet: run.set, events: s.events, counts: s.pooled.counts, pooled: { dacc: r4(s.pooled.dacc), fpr: r4(s.pooled.fpr), fnr: r4(s.pooled.fnr) },
      decision: decisionOf(s), hitBefore: r4(s.poisonHitRateBefore), hitAfter: r4(s.poisonHitRateAfter),
      fit: fit ? { yesThreshold: fit.yesThreshold, band: fit.band, partialSupportMin: fit.partialSupportMin, selected: fit.selected } : undefined,
      wallSeconds: Math.round((res.line.wallSeconds as number) * 10) / 10,
    });
    log(`[${i + 1}/${runs.length}] ${run.file} ${run.set}: DACC ${f3(s.pooled.dacc)} FPR ${f3(s.pooled.fpr)} FNR ${f3(s.pooled.fnr)} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }

  if (opts.falseFlag) return finishFalseFlagSuite(out, falseFlagRows, opts, started, log, dataDir);
  const all = aggregate(rows);
  const table = renderTable(rows, all, opts.judge === 'offline');
  writeFileSync(join(out, 'suite.json'), JSON.stringify({ dataDir, judge: opts.judge, retriever: opts.retriever, k: opts.k, limit: opts.limit ?? null, wallSeconds: (Date.now() - started) / 1000, all, runs: rows }, null, 2));
  writeSuiteReport(out, rows, all, table, opts);
  log(`targets (unrounded): ${targetSummary(all.targets).replace(/\*\*/g, '')}`);
  log(`report: ${join(out, 'report.md')}`);
  const targetsNotMet = all.targets.filter((c) => c.met === false).map((c) => c.name);
  const line = { suite: 'dev', judge: opts.judge, retriever: opts.retriever, k: opts.k, runs: rows.length, events: all.events, pooled: all.pooled, decision: all.decision, targetsNotMet, wallSeconds: Math.round((Date.now() - started) / 100) / 10 };
  return { line, files: [join(out, 'report.md'), join(out, 'suite.json')], out, table };
}

/** One of issue 13's targets, checked on the unrounded pooled value (the table rounds: 151 / 7547 = 0.02001 prints 0.020). */
export interface SuiteTargetCheck {
  name: 'DACC' | 'FPR' | 'FNR' | 'auto precision' | 'auto+review recall' | 'review/event' | 'benign texts auto-quarantined';
  value: number | null;
  op: '≥' | '≤';
  limit: number;
  /** null when the value is undefined (no poisons, nothing auto-quarantined). */
  met: boolean | null;
}

interface SuiteValues { dacc: number | null; fpr: number | null; fnr: number | null; autoPrecision: number | null; recall: number | null; reviewPerEvent: number | null }

/** Issue 13's targets for the no-LLM judge (the report's header is written from this list too). */
export const SUITE_TARGETS: readonly { name: SuiteTargetCheck['name']; key: keyof SuiteValues; op: '≥' | '≤'; limit: number }[] = [
  { name: 'DACC', key: 'dacc', op: '≥', limit: 0.98 }, { name: 'FPR', key: 'fpr', op: '≤', limit: 0.02 }, { name: 'FNR', key: 'fnr', op: '≤', limit: 0.02 },
  { name: 'auto precision', key: 'autoPrecision', op: '≥', limit: 0.99 }, { name: 'auto+review recall', key: 'recall', op: '≥', limit: 0.98 }, { name: 'review/event', key: 'reviewPerEvent', op: '≤', limit: 2 },
];

/** Issue 13's targets on the suite's pooled numbers, unrounded. Pure. */
export function checkSuiteTargets(v: SuiteValues): SuiteTargetCheck[] {
  return SUITE_TARGETS.map(({ name, key, op, limit }) => checkTarget(name, v[key], op, limit));
}

function checkTarget(name: SuiteTargetCheck['name'], value: number | null, op: '≥' | '≤', limit: number): SuiteTargetCheck {
  return { name, value, op, limit, met: value === null ? null : op === '≥' ? value >= limit : value <= limit };
}

function aggregate(rows: readonly SuiteRow[]) {
  const pooled = pooledRates(rows.map((r) => r.counts));
  const auto = rows.reduce((a, r) => a + r.decision.auto, 0);
  const autoPoisoned = rows.reduce((a, r) => a + r.decision.autoPoisoned, 0);
  const review = rows.reduce((a, r) => a + r.decision.review, 0);
  const events = rows.reduce((a, r) => a + r.events, 0);
  const poisons = rows.reduce((a, r) => a + r.counts.tp + r.counts.fn, 0);
  // Attack recall pooled over runs, weighted by each run's poisons judged (its own recall is over all its poisons).
  const recalled = rows.reduce((a, r) => a + (r.decision.recall ?? 0) * (r.counts.tp + r.counts.fn), 0);
  const decision = { autoPrecision: auto ? autoPoisoned / auto : null, recall: poisons ? recalled / poisons : null, reviewPerEvent: events ? review / events : null };
  return {
    events,
    pooled: { dacc: r4(pooled.dacc), fpr: r4(pooled.fpr), fnr: r4(pooled.fnr), counts: pooled.counts },
    decision: { autoPrecision: r4(decision.autoPrecision), recall: r4(decision.recall), reviewPerEvent: r4(decision.reviewPerEvent) },
    targets: checkSuiteTargets({ dacc: pooled.dacc, fpr: pooled.fpr, fnr: pooled.fnr, ...decision }),
  };
}

/** "DACC 0.98070 ≥ 0.98 met; …; FNR 0.02001 ≤ 0.02 NOT met" (five decimals: the table's three can hide a miss). */
export function targetSummary(checks: readonly SuiteTargetCheck[]): string {
  return checks.map((c) => `${c.name} ${c.value === null ? 'n/a' : c.value.toFixed(5)} ${c.op} ${c.limit} ${c.met === null ? 'undefined' : c.met ? 'met' : '**NOT met**'}`).join('; ');
}

function renderTable(rows: readonly SuiteRow[], all: ReturnType<typeof aggregate>, lofo: boolean): string {
  const head = ['file', 'poisons', 'events', 'DACC', 'FPR', 'FNR', 'auto precision', 'auto+review recall', 'review/event', 'Hit@5 before→after', ...(lofo ? ['LOFO fit: YES / band'] : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(`| ${r.data} | ${r.poisonSet} | ${r.events} | ${f3(r.pooled.dacc)} | ${f3(r.pooled.fpr)} | ${f3(r.pooled.fnr)} | ${f3(r.decision.autoPrecision)} | ${f3(r.decision.recall)} | ${r.decision.reviewPerEvent?.toFixed(2) ?? 'n/a'} | ${f3(r.hitBefore)} → ${f3(r.hitAfter)} |${lofo ? ` ${r.fit!.yesThreshold} / [${r.fit!.band.low}, ${r.fit!.band.high}) |` : ''}`);
  }
  lines.push(`| **all runs (pooled)** | | ${all.events} | ${f3(all.pooled.dacc)} | ${f3(all.pooled.fpr)} | ${f3(all.pooled.fnr)} | ${f3(all.decision.autoPrecision)} | ${f3(all.decision.recall)} | ${all.decision.reviewPerEvent?.toFixed(2) ?? 'n/a'} | |${lofo ? ' |' : ''}`);
  return lines.join('\n');
}

function writeSuiteReport(out: string, rows: readonly SuiteRow[], all: ReturnType<typeof aggregate>, table: string, opts: EvalCliOptions): void {
  const label = (r: SuiteRow) => `${r.data.replace(/^gmtp_/, '').replace(/_contriever/, '').replace(/-trigger-dos/, '-dos')}${r.poisonSet === 'given' ? '' : `/${r.poisonSet}`}`;
  writeFileSync(join(out, 'rates.svg'), groupedBarChart({
    title: `suite dev: pooled DACC / FPR / FNR per file (${opts.judge}${opts.judge === 'offline' ? ', leave-one-file-out' : ''})`,
    groups: rows.map((r) => ({ label: label(r), bars: [{ name: 'DACC', value: r.pooled.dacc, color: '#2b6cb0' }, { name: 'FPR', value: r.pooled.fpr, color: '#c53030' }, { name: 'FNR', value: r.pooled.fnr, color: '#b7791f' }] })),
    max: 1, width: Math.max(760, rows.length * 70), height: 360,
  }));
  writeFileSync(join(out, 'decisions.svg'), groupedBarChart({
    title: 'suite dev: auto-quarantine precision, auto + review recall, review items per event (÷ 5)',
    groups: rows.map((r) => ({ label: label(r), bars: [{ name: 'auto precision', value: r.decision.autoPrecision, color: '#2f855a' }, { name: 'auto+review recall', value: r.decision.recall, color: '#6b46c1' }, { name: 'review/event ÷ 5', value: r.decision.reviewPerEvent === null ? null : r.decision.reviewPerEvent / 5, color: '#718096' }] })),
    max: 1, width: Math.max(760, rows.length * 70), height: 360,
  }));
  const md = [
    '# Evaluation suite — development files', '',
    `Judge \`${opts.judge}\`, retriever \`${opts.retriever}\`, K = ${opts.k}${opts.limit ? `, first ${opts.limit} questions per file` : ''}. Each row is one run of the harness (\`npm run eval -- --data FILE [--poison-set S --poison-count ${VARIANT_COUNT}]\`).`,
    opts.judge === 'offline'
      ? 'Offline judge, **leave one file out**: each file is traced with a judge whose support gate, feature selection, weights, YES threshold and confidence band were all fitted on the OTHER development files only (apps/eval/src/judge-fit). The variants of a file are held out with it.'
      : '', '',
    `Targets (issue 13), pooled: ${SUITE_TARGETS.map((t) => `${t.name} ${t.op} ${t.limit}`).join(', ')}.`, '',
    table, '',
    `All runs pooled: DACC ${f3(all.pooled.dacc)}, FPR ${f3(all.pooled.fpr)}, FNR ${f3(all.pooled.fnr)}; auto precision ${f3(all.decision.autoPrecision)}, recall ${f3(all.decision.recall)}, ${all.decision.reviewPerEvent?.toFixed(2)} review items per event.`,
    `Counts: ${all.pooled.counts.tp} planted texts judged YES, ${all.pooled.counts.fn} missed; ${all.pooled.counts.fp} clean texts judged YES of ${all.pooled.counts.fp + all.pooled.counts.tn}.`, '',
    `Targets, on the unrounded pooled values: ${targetSummary(all.targets)}.`, '',
    '![rates](rates.svg)', '', '![decisions](decisions.svg)', '',
    'Each run\'s own report (errors quoted, per question) is in the folder named after the file.', '',
  ];
  writeFileSync(join(out, 'report.md'), md.join('\n'));
}

interface FalseFlagRow {
  data: string;
  events: number;
  benignJudged: number;
  benignAutoQuarantined: number;
  suspectedEvents: number;
  benignWithheldForReview: number;
  review: number;
  fit?: Pick<JudgeFit, 'yesThreshold' | 'band'>;
}

/** Issue 13's false-flag target: ≤ 1 % of the benign texts judged are auto-quarantined. */
export const FALSE_FLAG_TARGET = 0.01;

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : 'n/a');

/** The `--suite dev --false-flag` table, its pooled row and the target check on the unrounded rate. */
function finishFalseFlagSuite(
  out: string, rows: readonly FalseFlagRow[], opts: EvalCliOptions, started: number, log: (s: string) => void, dataDir: string,
): EvalCliResult & { table: string } {
  const trust = opts.falseFlag!.trust;
  const sum = (k: keyof Omit<FalseFlagRow, 'data' | 'fit'>) => rows.reduce((a, r) => a + r[k], 0);
  const pooled = {
    events: sum('events'), benignJudged: sum('benignJudged'), benignAutoQuarantined: sum('benignAutoQuarantined'),
    suspectedEvents: sum('suspectedEvents'), benignWithheldForReview: sum('benignWithheldForReview'), review: sum('review'),
  };
  const rate = pooled.benignJudged ? pooled.benignAutoQuarantined / pooled.benignJudged : null;
  const target = checkTarget('benign texts auto-quarantined', rate, '≤', FALSE_FLAG_TARGET);
  const lofo = opts.judge === 'offline';
  const head = ['file', 'events', 'benign judged', 'auto-quarantined', 'share', 'suspected false-flag events', 'benign withheld for review', 'review/event', ...(lofo ? ['LOFO fit: YES / band'] : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(`| ${r.data} | ${r.events} | ${r.benignJudged} | ${r.benignAutoQuarantined} | ${pct(r.benignAutoQuarantined, r.benignJudged)} | ${r.suspectedEvents} | ${r.benignWithheldForReview} | ${r.events ? (r.review / r.events).toFixed(2) : 'n/a'} |${lofo ? ` ${r.fit!.yesThreshold} / [${r.fit!.band.low}, ${r.fit!.band.high}) |` : ''}`);
  }
  lines.push(`| **all files (pooled)** | ${pooled.events} | ${pooled.benignJudged} | ${pooled.benignAutoQuarantined} | ${pct(pooled.benignAutoQuarantined, pooled.benignJudged)} | ${pooled.suspectedEvents} | ${pooled.benignWithheldForReview} | ${pooled.events ? (pooled.review / pooled.events).toFixed(2) : 'n/a'} |${lofo ? ' |' : ''}`);
  const table = lines.join('\n');
  const verdict = targetSummary([target]);
  writeFileSync(join(out, 'suite.json'), JSON.stringify({ dataDir, judge: opts.judge, retriever: opts.retriever, k: opts.k, limit: opts.limit ?? null, trust, wallSeconds: (Date.now() - started) / 1000, pooled, rate, met: target.met, runs: rows }, null, 2));
  writeFileSync(join(out, 'report.md'), [
    `# False-flag suite — development files (${trust} reporters)`, '',
    `Judge \`${opts.judge}\`, retriever \`${opts.retriever}\`, K = ${opts.k}${opts.limit ? `, first ${opts.limit} questions per file` : ''}. Each row is \`npm run eval -- --data FILE --false-flag --trust ${trust}\`: every record's CORRECT answer reported as wrong by one ${trust} reporter, over the record's clean texts only (no poisons).`,
    lofo ? 'Offline judge, **leave one file out**: each file is judged by a judge refit on the OTHER development files only, as in `--suite dev`.' : '', '',
    `Target (issue 13): ≤ ${FALSE_FLAG_TARGET * 100} % of the benign texts judged are auto-quarantined.`, '',
    table, '',
    `Pooled, unrounded: ${verdict}.`, '',
    'Each run\'s own report (per question) is in the folder named after the file.', '',
  ].join('\n'));
  log(`target (unrounded): ${verdict.replace(/\*\*/g, '')}`);
  log(`report: ${join(out, 'report.md')}`);
  const line = {
    suite: 'dev', judge: opts.judge, retriever: opts.retriever, k: opts.k, runs: rows.length,
    falseFlag: { trust, events: pooled.events, benignJudged: pooled.benignJudged, benignAutoQuarantined: pooled.benignAutoQuarantined, suspectedEvents: pooled.suspectedEvents, benignWithheldForReview: pooled.benignWithheldForReview },
    benignAutoQuarantinedShare: rate === null ? null : r4(rate), targetsNotMet: target.met === false ? ['falseFlag'] : [],
    wallSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  return { line, files: [join(out, 'report.md'), join(out, 'suite.json')], out, table };
}
