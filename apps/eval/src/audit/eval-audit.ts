/**
 * `npm run eval:audit -- --data FILE.jsonl [--limit N] [--out DIR] [--cache DIR]` (issue 12): builds ONE
 * collection from the whole file (every question's clean texts + its poisoned texts), runs the audits
 * with no feedback event at all, and prints one JSON line:
 *   {"texts","poisoned","scan":{"recall","flaggedBenignPer1k","seconds"},"siblings":null,"admission":null,
 *    "reconcile":{"injected","repaired","reported","lost"}}
 *  - scan: the cluster-scan audit with its default parameters (fixed before measuring, not fitted to this
 *    file), plus the curve of recall against flagged benign texts as the tightness threshold moves (three margins)
 *    (report.md, SVG), from the same k-NN graph;
 *  - reconcile: divergences of every kind injected into the built collection, the reconcile audit run,
 *    what it repaired or reported, and whether any text was lost;
 *  - siblings: the sibling sweep after one report per target (gemini_100 variants); admission: the gpt4
 *    variants re-injected through ingestion after one report per target, then one re-trace run.
 * Default encoder through the eval harness's embedding cache (.eval/cache); in-memory repositories and
 * the in-memory (exact) vector store: the audits' logic is the service's, the storage is not measured here.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { containsAnswer, DEFAULT_CLUSTER_SCAN_PARAMS, groupCandidates, localCandidates, mulberry32, scanDoc } from '@forensics/algorithms';
import {
  activeRecords, IngestCorpusUseCase, QuarantineTextUseCase, readKnnGraph, RunAuditUseCase, RunTracebackUseCase, scanNeighbours, StartAuditUseCase, SubmitFeedbackUseCase, watchedEvents, watchOptions, type Embedder, type Judge,
} from '@forensics/core';
import { auditSettingsFor, loadConfig } from '@forensics/infra/config/app-config';
import { OfflineJudge } from '@forensics/infra/judges/offline-judge.adapter';
import { composeUseCases, createInMemoryRepositories, InMemoryAuditRunRepository, InMemoryVectorStore, ScriptedJudge } from '@forensics/core/testing';
import { CachedEmbedder } from '../cached-embedder.adapter';
import { newTextsAdmission } from './admission-new-texts';
import { dataName, loadEvalRecords, oneCollection, type EvalRecord } from '../eval-data';

const C = 'audit-eval';

export interface EvalAuditOptions {
  data: string; limit?: number; out?: string; cacheDir: string; quiet: boolean;
  /** `new-texts`: only the admission check on new questions' texts after a traced batch (admission-new-texts.ts). */
  only?: 'new-texts';
}

export function parseEvalAuditArgs(argv: readonly string[]): EvalAuditOptions {
  const v: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument '${a}'`);
    const name = a.slice(2);
    if (name === 'quiet') { v.quiet = true; continue; }
    if (!['data', 'limit', 'out', 'cache', 'only'].includes(name)) throw new Error(`unknown option --${name}`);
    const val = argv[++i];
    if (val === undefined || val.startsWith('--')) throw new Error(`--${name} needs a value`);
    v[name] = val;
  }
  if (typeof v.data !== 'string') throw new Error('usage: npm run -s eval:audit -- --data FILE.jsonl [--limit N] [--out DIR] [--cache DIR] [--only new-texts] [--quiet]');
  if (v.only !== undefined && v.only !== 'new-texts') throw new Error(`--only must be new-texts (got '${String(v.only)}')`);
  const limit = typeof v.limit === 'string' ? Number(v.limit) : undefined;
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error('--limit must be a positive integer');
  return { data: v.data, limit, out: typeof v.out === 'string' ? v.out : undefined, cacheDir: typeof v.cache === 'string' ? v.cache : '.eval/cache', quiet: v.quiet === true, ...(v.only ? { only: 'new-texts' as const } : {}) };
}

export async function runEvalAudit(opts: EvalAuditOptions, embedderOverride?: Embedder): Promise<{ line: Record<string, unknown>; out: string }> {
  const log = (m: string) => { if (!opts.quiet) process.stderr.write(`${m}\n`); };
  const records = loadEvalRecords(resolve(opts.data), opts.limit);
  const embedder: Embedder = embedderOverride ?? await CachedEmbedder.openDefault(opts.cacheDir);
  if (opts.only === 'new-texts') return runNewTexts(opts, records, embedder, log);
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const runs = new InMemoryAuditRunRepository();
  const uc = composeUseCases({ repos, store, embedder, judge: new ScriptedJudge(() => 'NO'), auditRuns: runs });

  // One collection: every question's clean texts and poisons (a text present twice is one text).
  const { texts: all, planted: poisonSet } = oneCollection(records);
  log(`building one collection of ${all.length} texts (${poisonSet.size} planted) from ${records.length} questions`);
  const ing = await uc.get(IngestCorpusUseCase).execute({ collection: C, records: all.map((text) => ({ text })) });
  const isPoison = new Map(all.map((t, i) => [ing.ids[i]!, poisonSet.has(t)]));

  // Scan: the audit with its defaults, and the curve from the same graph.
  const t0 = Date.now();
  const scanRun = await uc.get(StartAuditUseCase).execute({ kind: 'cluster-scan', collection: C, trigger: 'cli', actor: 'eval', enqueue: false, params: { maxGroups: 100_000 } });
  const scanOut = await uc.get(RunAuditUseCase).execute({ runId: scanRun.id });
  const seconds = (Date.now() - t0) / 1000;
  const findings = await runs.listFindings(scanRun.id, { limit: 100_000 });
  const flagged = new Set(findings.filter((f) => f.type === 'suspicious-group').flatMap((f) => f.documentIds));
  const rate = (ids: Set<string>) => {
    let tp = 0;
    for (const id of ids) if (isPoison.get(id)) tp++;
    return { recall: poisonSet.size ? tp / poisonSet.size : null, flaggedBenignPer1k: ((ids.size - tp) / all.length) * 1000 };
  };
  const scan = { ...rate(flagged), seconds: +seconds.toFixed(1), status: scanOut?.run.status, params: DEFAULT_CLUSTER_SCAN_PARAMS };
  log(`scan: recall ${scan.recall?.toFixed(3)}, flagged benign ${scan.flaggedBenignPer1k.toFixed(2)} per 1k, ${scan.seconds} s`);
  const graph = await readKnnGraph(store, C, scanNeighbours(DEFAULT_CLUSTER_SCAN_PARAMS));
  // The curve: the tightness threshold swept for three cohesion-margin settings, over one set of candidates.
  const candidates = localCandidates(graph.knn, graph.texts.map(scanDoc), DEFAULT_CLUSTER_SCAN_PARAMS, graph.vectors);
  const curve: { minTightness: number; minMargin: number; recall: number | null; flaggedBenignPer1k: number }[] = [];
  for (const minMargin of CURVE_MARGINS) {
    for (let t = 0.5; t <= 0.951; t += 0.05) {
      const res = groupCandidates(candidates, graph.knn, { ...DEFAULT_CLUSTER_SCAN_PARAMS, minTightness: +t.toFixed(2), minMargin });
      const ids = new Set(res.groups.flatMap((g) => g.members.map((m) => graph.ids[m]!)));
      curve.push({ minTightness: +t.toFixed(2), minMargin, ...rate(ids) });
    }
  }

  // Reconcile drill: two of every divergence kind injected, then one reconcile run.
  // Texts the scan sent to review already have a record: the drill injects into the others only.
  const inReview = new Set((await repos.quarantines.list({ collection: C, limit: 100_000 })).map((q) => q.documentId));
  const ids = [...new Set(ing.ids)].filter((id) => !inReview.has(id));
  const step = Math.max(1, Math.floor(ids.length / 9));
  const pick = (k: number) => ids[(k * step) % ids.length]!; // 8 distinct texts, spread over the collection
  const ev = { policy: { name: 'eval', decision: 'QUARANTINE', withhold: true, reason: 'drill', inputs: {} }, judge: { kind: 'eval', model: 'drill', promptVersion: 'v', signals: null }, retrieval: null, retrieverEvidence: null };
  const qText = uc.get(QuarantineTextUseCase);
  for (const k of [1, 2]) await qText.execute({ documentId: pick(k), feedbackId: null, collection: C, reason: 'drill', evidence: ev, policy: 'eval', actor: 'eval' });
  await store.setQuarantined(C, [pick(1), pick(2)], false); // flag-missing ×2
  await store.setQuarantined(C, [pick(3), pick(4)], true); // flag-extra ×2
  const vec = (await embedder.embed(['stray point']))[0]!;
  const strays = [randomUUID(), randomUUID()];
  await store.upsert(C, strays.map((id) => ({ id, vector: vec, text: 'a text written to the store around the service', payload: {} }))); // point-unknown ×2
  const removed = [pick(5), pick(6)];
  await store.delete(C, removed); // point-missing ×2
  const orphans = [randomUUID(), randomUUID()];
  await store.upsert(C, orphans.map((id) => ({ id, vector: vec, text: 'orphan proxy', payload: { kind: 'bte-proxy', feedbackId: randomUUID(), query: 'q' } }))); // proxy-orphan ×2
  for (const k of [7, 8]) await repos.quarantines.create({ documentId: pick(k), feedbackId: null, collection: C, reason: 'drill', evidence: ev, policy: 'eval', createdBy: 'eval' }); // unsynced ×2
  const injected = 12;
  const recRun = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: C, trigger: 'cli', actor: 'eval', enqueue: false });
  const rec = (await uc.get(RunAuditUseCase).execute({ runId: recRun.id }))!.run;
  const c = rec.counts;
  const sum = (suffix: string) => Object.entries(c).filter(([k]) => k.endsWith(suffix) && !k.startsWith('proxy-missing')).reduce((a, [, v]) => a + v, 0);
  const everyId = [...new Set(ing.ids), ...strays, ...orphans];
  const present = new Set((await store.fetch(C, everyId)).map((r) => r.id));
  const lost = everyId.filter((id) => !present.has(id)).length;
  const reconcile = { injected, repaired: sum('.repaired'), reported: sum('.reported'), lost };

  const siblings = await siblingsEval(records, embedder, new OfflineJudge(), log);
  const admission = await admissionEval(records, embedder, new OfflineJudge(), log);
  const falseReports = admission ? await falseReportAdmission(records, embedder, new OfflineJudge(), log) : null;

  const line = {
    data: dataName(opts.data), texts: all.length, poisoned: poisonSet.size,
    scan: { recall: scan.recall === null ? null : +scan.recall.toFixed(3), flaggedBenignPer1k: +scan.flaggedBenignPer1k.toFixed(2), seconds: scan.seconds },
    siblings: siblings ? {
      poisonsPerTarget: siblings.poisonsPerTarget, recallTraceOnly: siblings.recallTraceOnly, recallWithSweep: siblings.recallWithSweep,
      targets: siblings.targets, targetsWatched: siblings.targetsWatched, recallWithSweepWatched: siblings.recallWithSweepWatched, benignToReview: siblings.benignToReview,
    } : null,
    admission: admission ? {
      reinjected: admission.reinjected, caught: admission.caught, servedInTop5After: admission.servedAfter, benignIngested: admission.benignIngested, benignHeld: admission.benignHeld,
      caughtWithReTrace: admission.caughtWithReTrace, benignAfterReTrace: admission.benignAfterReTrace, topN: admission.topN,
      watchedTargets: admission.watched, reinjectedWatched: admission.reinjectedWatched, caughtWatched: admission.caughtWatched,
      falseReports,
    } : null, reconcile,
  };
  const out = resolve(opts.out ?? join('.eval', `audit-${dataName(opts.data)}`));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'summary.json'), JSON.stringify({ ...line, scanDetail: scan, curve, reconcileCounts: c }, null, 2));
  writeFileSync(join(out, 'curve.svg'), curveSvg(curve));
  writeFileSync(join(out, 'report.md'), [
    `# Audit evaluation: ${dataName(opts.data)}`, '',
    `One collection of ${all.length} texts (${poisonSet.size} planted poisons, ${records.length} targets), no feedback events.`, '',
    '```json', JSON.stringify(line), '```', '',
    `## Cluster scan: recall against flagged benign texts`, '',
    `Default parameters (${JSON.stringify(DEFAULT_CLUSTER_SCAN_PARAMS)}): recall ${line.scan.recall}, ${line.scan.flaggedBenignPer1k} benign texts flagged per 1,000, ${line.scan.seconds} s.`,
    'The curve moves the tightness threshold (0.50 → 0.95) for three cohesion-margin settings (no margin test, 0.10 = the default, 0.15), the other parameters at their defaults, on the same k-NN graph. Target (issue 12): recall ≥ 0.90 at ≤ 1 flagged benign text per 1,000.', '',
    '![recall vs flagged benign](curve.svg)', '',
    '| min margin | min tightness | recall | flagged benign / 1k |', '|---|---|---|---|',
    ...curve.map((p) => `| ${p.minMargin} | ${p.minTightness.toFixed(2)} | ${p.recall?.toFixed(3)} | ${p.flaggedBenignPer1k.toFixed(2)} |`), '',
    `## Sibling sweep`, '',
    siblings ? `Per target: its clean texts plus the first ${siblings.poisonsPerTarget} of \`poisoned_variants.gemini_100\` (the only Gemini set with ≥ 50 per target), one report of the target's wrong answer (a traceback with the offline judge, default bounds), then one sibling-sweep run with the same judge: recall of the planted texts by the traceback alone ${siblings.recallTraceOnly}, after the sweep ${siblings.recallWithSweep} (${siblings.targets} targets; clean texts sent to review by the sweep: ${siblings.benignToReview}; the paraphrase route: ${siblings.paraphraseRoute.poisons} planted, ${siblings.paraphraseRoute.benign} clean). The sweep acts on watched events (AUDIT_WATCH=${watchFromEnv()}): ${siblings.targetsWatched} of the ${siblings.targets} reports left one; over those targets the recall after the sweep is ${siblings.recallWithSweepWatched}.` : 'The file has no poisoned_variants with ≥ 50 texts per target: not measured.', '',
    `## Reconcile drill`, '', `Injected ${injected} divergences (2 each of flag-missing, flag-extra, point-unknown, point-missing, proxy-orphan, unsynced): repaired ${reconcile.repaired}, reported ${reconcile.reported}, lost ${lost}.`, '',
    '```json', JSON.stringify(c), '```', '',
    '## Admission check', '',
    admission ? [
      `One collection of the whole file (every question's clean texts minus 2 held out per question, and its 5 given poisons); one report per target (${admission.targets}; traceback, offline judge, one identified reporter each; ${admission.watched} events watched afterwards), then the targets' \`poisoned_variants.gpt4\` texts (${admission.reinjected}) and the ${admission.benignIngested} held-out clean texts ingested in one shuffled batch, admission check on (ADMISSION_TOP_N ${admission.topN}).`,
      '',
      `- held before being served: ${admission.caught} / ${admission.reinjected} re-injected (${(admission.caught / admission.reinjected).toFixed(3)}); of the ${admission.reinjectedWatched} re-injected for the ${admission.watched} watched questions: ${admission.caughtWatched} (${(admission.caughtWatched / Math.max(1, admission.reinjectedWatched)).toFixed(3)}); benign held: ${admission.benignHeld} / ${admission.benignIngested}; judge calls ${admission.judged}; held by route: poisons ${JSON.stringify(admission.caughtByRoute)}, benign ${JSON.stringify(admission.benignByRoute)}`,
      `- ${admission.targets - admission.watched} reports left no watched event (AUDIT_WATCH=${watchFromEnv()}; with \`confirmed\`, a report is watched only when its traceback took texts out of serving)`,
      `- re-injected texts in their question's top 5 afterwards (escaped and served): ${admission.servedAfter}`,
      ...(falseReports ? [`- the price of watching every trusted report (AUDIT_WATCH=${watchFromEnv()}): in the same collection, ${falseReports.reports} reports that name the CORRECT answer as wrong (one identified reporter each), then the ${falseReports.ingested} held-out clean texts ingested: ${falseReports.held} held for review (${falseReports.heldStating} of the ${falseReports.statingAnswer} that state the reported answer)`] : []),
      `- after one \`re-trace\` run: ${admission.caughtWithReTrace} / ${admission.reinjected} held or in review (${(admission.caughtWithReTrace / admission.reinjected).toFixed(3)}); benign: ${admission.benignAfterReTrace}; re-trace ${JSON.stringify(admission.reTrace)}`,
      'A text below the question\'s top ADMISSION_TOP_N is not judged at ingestion; the re-trace replays the question to depth 10 and judges what is served by then.',
    ].join('\n') : 'The file has no poisoned_variants.gpt4: not measured.', '',
  ].join('\n'));
  await embedder.close();
  return { line, out };
}

/** Cohesion-margin settings of the scan curve (-1 = no margin test). */
const CURVE_MARGINS = [-1, 0.1, 0.15];

/** Recall (y) against flagged benign texts per 1,000 (x), one polyline per cohesion-margin setting; the target box marked. */
function curveSvg(curve: { minMargin: number; recall: number | null; flaggedBenignPer1k: number; minTightness: number }[]): string {
  const W = 640, H = 360, m = { l: 56, r: 16, t: 36, b: 48 };
  const maxX = Math.max(5, ...curve.map((p) => p.flaggedBenignPer1k)) * 1.05;
  const x = (v: number) => m.l + (v / maxX) * (W - m.l - m.r);
  const y = (v: number) => H - m.b - v * (H - m.t - m.b);
  const colors = ['#1f77b4', '#d62728', '#2ca02c'];
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11"><rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">cluster scan: recall vs flagged benign texts</text>`,
    `<rect x="${x(0)}" y="${y(1)}" width="${x(1) - x(0)}" height="${y(0.9) - y(1)}" fill="#e6f4e6" stroke="#2ca02c"/>`,
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#333"/><line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#333"/>`,
    `<text x="${W / 2}" y="${H - 12}" text-anchor="middle">flagged benign texts per 1,000 (target box: ≤ 1 at recall ≥ 0.9)</text>`,
    `<text transform="translate(14 ${H / 2}) rotate(-90)" text-anchor="middle">recall of planted poisons</text>`];
  for (let i = 0; i <= 4; i++) parts.push(`<text x="${m.l - 6}" y="${y(i / 4) + 4}" text-anchor="end">${(i / 4).toFixed(2)}</text>`, `<text x="${x((maxX * i) / 4)}" y="${H - m.b + 14}" text-anchor="middle">${((maxX * i) / 4).toFixed(1)}</text>`);
  CURVE_MARGINS.forEach((r, ci) => {
    const pts = curve.filter((p) => p.minMargin === r && p.recall !== null).sort((a, b) => a.flaggedBenignPer1k - b.flaggedBenignPer1k);
    parts.push(`<polyline fill="none" stroke="${colors[ci]}" stroke-width="2" points="${pts.map((p) => `${x(p.flaggedBenignPer1k).toFixed(1)},${y(p.recall!).toFixed(1)}`).join(' ')}"/>`);
    parts.push(`<text x="${W - m.r - 150}" y="${m.t + 14 * (ci + 1)}" fill="${colors[ci]}">${r < 0 ? 'no margin test' : `cohesion margin ≥ ${r}`}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/**
 * Siblings: per target, its clean texts + the first 50 gemini_100 variants in a collection of its own;
 * one report (a traceback, offline judge), then one sibling-sweep run. Null when the file has no such variants.
 */
/** `--only new-texts`: the admission check on new questions' texts after a traced batch; summary.json beside the line. */
async function runNewTexts(opts: EvalAuditOptions, records: readonly EvalRecord[], embedder: Embedder, log: (m: string) => void) {
  const res = await newTextsAdmission(records, embedder, new OfflineJudge(), { audit: auditFromEnv(), consensus: consensusFromEnv() }, log);
  const { genuineExamples, holds, missed, ...rest } = res ?? { genuineExamples: [], holds: [], missed: [] };
  const line = { data: dataName(opts.data), encoder: embedder.id, newTexts: res ? rest : null };
  const out = resolve(opts.out ?? join('.eval', `admission-${dataName(opts.data)}`));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'summary.json'), JSON.stringify({ ...line, genuineExamples, holds, missed }, null, 2));
  writeFileSync(join(out, 'report.md'), [`# Admission of new texts: ${dataName(opts.data)}`, '', '```json', JSON.stringify(line), '```', '',
    ...(genuineExamples.length ? ['Genuine texts held (first 20):', '', ...genuineExamples.map((e) => `- (${e.route}, ${e.label}) for "${e.query}" → "${e.wrongAnswer}": ${e.text}`)] : [])].join('\n'));
  return { line, out };
}

/** The reports' consensus check as the service configures it (CONSENSUS_CHECK=off etc., as `npm run eval` reads them). */
function consensusFromEnv() {
  return loadConfig(process.env).consensus;
}

/** The audit settings from the environment (ADMISSION_TOP_N, AUDIT_WATCH, …), as the service reads them. */
function auditFromEnv() {
  return auditSettingsFor(loadConfig(process.env));
}

/** AUDIT_WATCH from the environment (default 'reported'). */
function watchFromEnv() {
  return auditFromEnv().watch;
}

/**
 * The admission measurements' collection: every question's clean texts minus the last 2 of those with
 * ≥ 4 (held out, to be ingested later), and its given poisons. `heldOut`: text → its question's
 * correct answer (a text another question keeps is not held out).
 */
function admissionCorpus(records: readonly EvalRecord[]): { base: Set<string>; heldOut: Map<string, string | undefined> } {
  const base = new Set<string>();
  const heldOut = new Map<string, string | undefined>();
  for (const r of records) {
    for (const t of r.clean_texts.length >= 4 ? r.clean_texts.slice(0, -2) : r.clean_texts) base.add(t);
    for (const t of r.poisoned_texts) base.add(t);
    if (r.clean_texts.length >= 4) for (const t of r.clean_texts.slice(-2)) heldOut.set(t, r.correct_answer);
  }
  for (const t of base) heldOut.delete(t);
  return { base, heldOut };
}

export async function siblingsEval(records: readonly EvalRecord[], embedder: Embedder, judge: Judge, log: (m: string) => void) {
  const PER = 50;
  const targets = records.filter((r) => (r.poisoned_variants?.gemini_100?.length ?? 0) >= PER);
  if (targets.length === 0) return null;
  let planted = 0, byTrace = 0, withSweep = 0, benignToReview = 0, n = 0, unjudged = 0, paraphrasePoisons = 0, paraphraseBenign = 0;
  let targetsWatched = 0, plantedWatched = 0, withSweepWatched = 0;
  const sweepCounts: Record<string, number> = {};
  for (const r of targets) {
    const repos = createInMemoryRepositories();
    const store = new InMemoryVectorStore();
    const auditRuns = new InMemoryAuditRunRepository();
    const uc = composeUseCases({ repos, store, embedder, judge, auditRuns, settings: { defaultCollection: 'sib', workerActor: 'eval', consensus: consensusFromEnv(), audit: auditFromEnv() } });
    const poisons = r.poisoned_variants!.gemini_100!.slice(0, PER);
    const ing = await uc.get(IngestCorpusUseCase).execute({ collection: 'sib', records: [...r.clean_texts, ...poisons].map((text) => ({ text })) });
    const poisonIds = new Set(ing.ids.slice(r.clean_texts.length));
    for (const id of ing.ids.slice(0, r.clean_texts.length)) poisonIds.delete(id);
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'sib', query: r.question, wrongAnswer: r.incorrect_answer, reporter: 'eval' });
    await uc.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    const quarantined = new Set((await repos.quarantines.list({ collection: 'sib', state: 'QUARANTINED' })).map((q) => q.documentId));
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'sibling-sweep', collection: 'sib', trigger: 'cli', actor: 'eval', enqueue: false });
    const sweep = (await uc.get(RunAuditUseCase).execute({ runId: run.id }))!.run;
    for (const [key, v] of Object.entries(sweep.counts)) sweepCounts[key] = (sweepCounts[key] ?? 0) + v;
    const review = new Set((await repos.quarantines.list({ collection: 'sib', state: 'NEEDS_REVIEW' })).map((q) => q.documentId));
    planted += poisonIds.size;
    const everJudged = new Set([...(await repos.verdicts.list(event.id)).map((v) => v.documentId)]);
    let found = 0;
    for (const id of poisonIds) { if (quarantined.has(id)) byTrace++; if (quarantined.has(id) || review.has(id)) found++; else if (!everJudged.has(id)) unjudged++; }
    withSweep += found;
    if ((sweep.counts.events ?? 0) > 0) { targetsWatched++; plantedWatched += poisonIds.size; withSweepWatched += found; }
    for (const id of review) if (!poisonIds.has(id)) benignToReview++;
    for (const f of await auditRuns.listFindings(run.id, { limit: 100_000 })) {
      if (!(f.detail as { paraphrase?: unknown }).paraphrase) continue;
      if (poisonIds.has(f.documentIds[0]!)) paraphrasePoisons++; else paraphraseBenign++;
    }
    if (++n % 10 === 0) log(`siblings: ${n}/${targets.length} targets (trace ${(byTrace / planted).toFixed(3)}, with sweep ${(withSweep / planted).toFixed(3)})`);
  }
  return {
    poisonsPerTarget: PER, targets: targets.length, recallTraceOnly: +(byTrace / planted).toFixed(3), recallWithSweep: +(withSweep / planted).toFixed(3), benignToReview,
    missedNotJudgedByTrace: unjudged, sweepCounts, paraphraseRoute: { poisons: paraphrasePoisons, benign: paraphraseBenign },
    targetsWatched, recallWithSweepWatched: +(withSweepWatched / Math.max(1, plantedWatched)).toFixed(3),
  };
}

/**
 * Admission and re-trace, in ONE collection of the whole file (as the scan): every question's clean
 * texts (minus 2 held out per question with ≥ 4, to measure benign texts held) and its 5 given poisons.
 * One report per target with gpt4 variants (a traceback with the offline judge; each report from its own
 * identified reporter, as different users report different questions), then every target's
 * `poisoned_variants.gpt4` texts and the held-out clean texts ingested in one shuffled batch through the
 * ingest use case (the admission check runs on it). `caught` = variants held before being served;
 * `servedInTop5After` = variants the question's top 5 serves afterwards (they escaped); `benignHeld` =
 * held-out clean texts held. Then one `re-trace` run: `caughtWithReTrace` = variants held or sent to
 * review by either. `topN` = ADMISSION_TOP_N (env; default 50).
 */
export async function admissionEval(records: readonly EvalRecord[], embedder: Embedder, judge: Judge, log: (m: string) => void) {
  const targets = records.filter((r) => (r.poisoned_variants?.gpt4?.length ?? 0) > 0);
  if (targets.length === 0) return null;
  const audit = auditFromEnv();
  const topN = audit.admission.topN;
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const runs = new InMemoryAuditRunRepository();
  const uc = composeUseCases({
    repos, store, embedder, judge, auditRuns: runs,
    settings: { defaultCollection: 'adm', workerActor: 'eval', consensus: consensusFromEnv(), audit },
  });
  const { base, heldOut: heldOutAnswers } = admissionCorpus(records);
  const heldOut = new Set(heldOutAnswers.keys());
  await uc.get(IngestCorpusUseCase).execute({ collection: 'adm', records: [...base].map((text) => ({ text })) });
  let n = 0;
  const eventOf: string[] = [];
  for (const r of targets) {
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'adm', query: r.question, wrongAnswer: r.incorrect_answer, reporter: `eval-user-${n}`, trust: 'identified', reporterSource: `key:eval/${n}` });
    await uc.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    eventOf.push(event.id);
    if (++n % 20 === 0) log(`admission: ${n}/${targets.length} reports traced`);
  }
  const variants = new Map<string, number>(); // text → target index
  targets.forEach((r, i) => { for (const t of r.poisoned_variants!.gpt4!) if (!base.has(t) && !heldOut.has(t) && !variants.has(t)) variants.set(t, i); });
  const batch = [...variants.keys(), ...heldOut];
  const rnd = mulberry32(7);
  for (let i = batch.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [batch[i], batch[j]] = [batch[j]!, batch[i]!]; }
  const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'adm', records: batch.map((text) => ({ text })) });
  const idOf = new Map(batch.map((t, i) => [t, res.ids[i]!]));
  const variantIds = new Set([...variants.keys()].map((t) => idOf.get(t)!));
  const benignIds = new Set([...heldOut].map((t) => idOf.get(t)!));
  const held = new Set(res.admission.heldIds);
  const caught = [...variantIds].filter((id) => held.has(id)).length;
  const benignHeld = [...benignIds].filter((id) => held.has(id)).length;
  // The check can act only for watched questions (see watchedEvents and AUDIT_WATCH).
  const watchedEventIds = new Set((await watchedEvents(repos, 'adm', 100_000, watchOptions({ audit }))).map((w) => w.event.id));
  const watchedVariantIds = [...variants].filter(([, i]) => watchedEventIds.has(eventOf[i]!)).map(([t]) => idOf.get(t)!);
  const route = new Map((await activeRecords(repos.quarantines, 'adm')).inReview
    .filter((q) => q.policy === 'admission').map((q) => [q.documentId, String(((q.evidence as { policy?: { inputs?: { route?: string } } }).policy?.inputs?.route) ?? 'rank')]));
  const byRoute = (ids: Iterable<string>) => { const o: Record<string, number> = {}; for (const id of ids) { const r = route.get(id); if (r) o[r] = (o[r] ?? 0) + 1; } return o; };
  let servedAfter = 0;
  for (const [i, r] of targets.entries()) {
    const mine = new Set([...variants].filter(([, t]) => t === i).map(([text]) => idOf.get(text)!));
    const [qv] = await embedder.embed([r.question]);
    servedAfter += (await store.search('adm', { vector: qv!, k: 5 })).filter((h) => mine.has(h.id)).length;
  }
  log(`admission: ${caught}/${variantIds.size} re-injected held (top ${topN}), ${benignHeld}/${benignIds.size} benign held; re-trace…`);
  const run = await uc.get(StartAuditUseCase).execute({ kind: 're-trace', collection: 'adm', trigger: 'cli', actor: 'eval', enqueue: false });
  const rt = (await uc.get(RunAuditUseCase).execute({ runId: run.id }))!.run;
  const givenPoisons = new Set(records.flatMap((r) => r.poisoned_texts));
  const rtFound = (await runs.listFindings(run.id, { limit: 1_000_000 })).map((f) => f.documentIds[0]!);
  const rtDocs = await repos.documents.get(rtFound);
  const rtPoisons = rtDocs.filter((d) => variantIds.has(d.id) || givenPoisons.has(d.text)).length;
  const after = await activeRecords(repos.quarantines, 'adm');
  const inReview = new Set([...after.inReview, ...after.quarantined].map((q) => q.documentId));
  return {
    topN, reinjected: variantIds.size, caught, servedAfter, targets: targets.length, watched: rt.counts.events ?? 0, judged: res.admission.judged,
    reinjectedWatched: watchedVariantIds.length, caughtWatched: watchedVariantIds.filter((id) => held.has(id)).length,
    caughtByRoute: byRoute(variantIds), benignByRoute: byRoute(benignIds),
    benignIngested: benignIds.size, benignHeld,
    caughtWithReTrace: [...variantIds].filter((id) => inReview.has(id)).length,
    benignAfterReTrace: [...benignIds].filter((id) => inReview.has(id)).length,
    reTrace: { found: rt.counts.poisonsFound ?? 0, planted: rtPoisons, benign: rtDocs.length - rtPoisons, candidatesJudged: rt.counts.candidatesJudged ?? 0, status: rt.status },
  };
}

/**
 * The price of the watch (AUDIT_WATCH): false reports instead of true ones. The admission collection
 * (every question's clean texts minus 2 held out, and its poisons), one report per question that names
 * its CORRECT answer as wrong (an identified reporter each: the trust the default watch acts on), each
 * traced; then the held-out clean texts ingested. `held` = clean texts held for review by the
 * admission check; `statingAnswer` = held-out texts that state their own question's reported (correct) answer.
 */
export async function falseReportAdmission(records: readonly EvalRecord[], embedder: Embedder, judge: Judge, log: (m: string) => void) {
  const targets = records.filter((r) => (r.poisoned_variants?.gpt4?.length ?? 0) > 0 && !!r.correct_answer);
  if (targets.length === 0) return null;
  const repos = createInMemoryRepositories();
  const uc = composeUseCases({
    repos, store: new InMemoryVectorStore(), embedder, judge, auditRuns: new InMemoryAuditRunRepository(),
    settings: { defaultCollection: 'ff', workerActor: 'eval', consensus: consensusFromEnv(), audit: auditFromEnv() },
  });
  const { base, heldOut } = admissionCorpus(records);
  await uc.get(IngestCorpusUseCase).execute({ collection: 'ff', records: [...base].map((text) => ({ text })) });
  let n = 0;
  for (const r of targets) {
    const { event } = await uc.get(SubmitFeedbackUseCase).execute({ collection: 'ff', query: r.question, wrongAnswer: r.correct_answer!, reporter: `eval-false-${n}`, trust: 'identified', reporterSource: `key:eval/false-${n}` });
    await uc.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    if (++n % 20 === 0) log(`false reports: ${n}/${targets.length} traced`);
  }
  const batch = [...heldOut.keys()];
  const res = await uc.get(IngestCorpusUseCase).execute({ collection: 'ff', records: batch.map((text) => ({ text })) });
  const held = new Set(res.admission.heldIds);
  const stating = batch.map((t) => { const a = heldOut.get(t); return !!a && containsAnswer(t, a); });
  const out = {
    reports: targets.length, ingested: batch.length, statingAnswer: stating.filter(Boolean).length,
    held: held.size, heldStating: res.ids.filter((id, i) => held.has(id) && stating[i]).length,
  };
  log(`false reports: ${out.held}/${out.ingested} held-out clean texts held (${out.heldStating} of the ${out.statingAnswer} stating a reported answer)`);
  return out;
}

