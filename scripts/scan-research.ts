/**
 * Research harness for the cluster-scan's scoring (issue 12, scan recall). Not part of the service.
 *
 *   npx tsx scripts/scan-research.ts build FILE.jsonl...   one collection per file (every question's clean
 *        texts + its poisons, as eval:audit builds it), default encoder through .eval/cache, exact
 *        cosine k-NN (k = 50) → .eval/scan-research/<name>.{json,f32}
 *   npx tsx scripts/scan-research.ts audit FILE.jsonl...   the cluster-scan audit itself (in-memory ports, the
 *        store's own search, default parameters) on one collection per file: recall and flagged benign per 1k
 *   npx tsx scripts/scan-research.ts eval [NAME...]        runs the scan (libs/forensics localCandidates + passesGates) over the
 *        stored graphs, sweeps its thresholds, and fits them leave-one-file-out (fit on two files under
 *        ≤ 1 flagged benign text per 1,000, measured on the third). The poison lists are used only to measure.
 *   npx tsx scripts/scan-research.ts learned [NAME...]     how far a LEARNED group score gets (an upper bound for the signals the
 *        scan has): every text's group (itself and its 4 nearest neighbours) described by 16 structural and lexical features
 *        and their pairwise products, a logistic model fitted leave-one-file-out (threshold from the training files at
 *        ≤ 1 benign/1k) and, as a ceiling, fitted and measured on the same file.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IngestCorpusUseCase, RunAuditUseCase, StartAuditUseCase } from '@forensics/core';
import { composeUseCases, createInMemoryRepositories, InMemoryAuditRunRepository, InMemoryVectorStore, ScriptedJudge } from '@forensics/core/testing';
import { CachedEmbedder } from '../apps/eval/src/cached-embedder.adapter';
import { dataName, loadEvalRecords, oneCollection } from '../apps/eval/src/eval-data';
import { fitLassoLogistic } from '../apps/eval/src/judge-fit/logistic';
import { findHubs, localCandidates, passesGates, scanDoc, validateClusterScanParams, type ClusterScanParams, type KnnList, type ScanCandidate } from '../libs/forensics/src';

const OUT = resolve('.eval/scan-research');
/** The collections issue 12's scan target names (built by `build`). */
const SCAN_FILES = ['poisonedrag_nq', 'poisonedrag_hotpotqa', 'robustrag_realtimeqa'] as const;
const K = 50;

export interface Stored { name: string; texts: string[]; poison: boolean[]; knn: KnnList[]; dim: number }

async function build(file: string): Promise<void> {
  const records = loadEvalRecords(resolve(file));
  const { texts: all, planted: poisonSet } = oneCollection(records);
  const emb = await CachedEmbedder.openDefault('.eval/cache');
  const vecs = await emb.embed(all);
  process.stderr.write(`${dataName(file)}: ${all.length} texts, cache hits ${emb.hits}, misses ${emb.misses}\n`);
  const dim = vecs[0]!.length;
  const n = all.length;
  const M = new Float32Array(n * dim);
  vecs.forEach((v, i) => { let s = 0; for (const x of v) s += x * x; s = Math.sqrt(s) || 1; for (let d = 0; d < dim; d++) M[i * dim + d] = v[d]! / s; });
  const knn: KnnList[] = [];
  const row = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) { let s = 0; const a = i * dim, b = j * dim; for (let d = 0; d < dim; d++) s += M[a + d]! * M[b + d]!; row[j] = s; }
    row[i] = -Infinity;
    const idx = Array.from({ length: n }, (_, j) => j).sort((x, y) => row[y]! - row[x]! || x - y).slice(0, K);
    knn.push({ j: idx, s: idx.map((j) => +row[j]!.toFixed(5)) });
  }
  mkdirSync(OUT, { recursive: true });
  const name = dataName(file);
  writeFileSync(join(OUT, `${name}.json`), JSON.stringify({ name, texts: all, poison: all.map((t) => poisonSet.has(t)), knn, dim }));
  writeFileSync(join(OUT, `${name}.f32`), Buffer.from(M.buffer));
  await emb.close();
}

export function load(name: string): Stored & { vectors: Float32Array } {
  const s = JSON.parse(readFileSync(join(OUT, `${name}.json`), 'utf8')) as Stored;
  const buf = readFileSync(join(OUT, `${name}.f32`));
  return { ...s, vectors: new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4) };
}

/** The k the audit asks the store for: enough for the group search and the topic neighbourhood. */
const AUDIT_K = Number(process.env.AUDIT_K ?? 20);
/** Fit cap: flagged benign per 1,000 allowed on each training file (below the target's 1, for a margin). */
const FIT_CAP = Number(process.env.FIT_CAP ?? 1);

interface Point { key: string; params: ClusterScanParams; perFile: { recall: number; benign: number }[] }

/**
 * The grid the gates are fitted over: the structural gates (tightness, cohesion margin, verbatim-copy
 * run); claim share, duplicateSim and the neighbourhood sizes fixed beforehand; the topic,
 * answer-like and length gates off. GRID='{"minTopics":[0,1,2]}' (JSON, "Infinity" allowed) overrides
 * a dimension; wider grids fitted this way were less stable held out (README, Audits).
 */
const GRID: Record<string, unknown[]> = {
  maxClaimShare: [0.05], duplicateSim: [0.95], minTopics: [0], minTopicTexts: [0], maxClaimGivenTopic: [1], answerLike: [false], minClaims: [1], maxLengthCv: [Infinity],
  minTightness: [0.6, 0.65, 0.7, 0.75, 0.8], minMargin: [-1, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2], copyRun: [0, 6, 8, 12],
  ...(JSON.parse(process.env.GRID ?? '{}', (_, v) => (v === 'Infinity' ? Infinity : v)) as Record<string, unknown[]>),
};

/** Parameters that shape the candidates themselves (computed once per combination); the rest are gates. */
const CANDIDATE_KEYS = ['maxClaimShare', 'minTopicShare', 'copyRun', 'contextNeighbours', 'searchNeighbours', 'groupSize'];

function candidateGrid(): Partial<ClusterScanParams>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [k, vs] of Object.entries(GRID)) if (CANDIDATE_KEYS.includes(k)) out = out.flatMap((o) => vs.map((v) => ({ ...o, [k]: v })));
  return out as Partial<ClusterScanParams>[];
}

function grid(): Partial<ClusterScanParams>[] {
  let out: Record<string, unknown>[] = [{}];
  for (const [k, vs] of Object.entries(GRID)) if (!CANDIDATE_KEYS.includes(k)) out = out.flatMap((o) => vs.map((v) => ({ ...o, [k]: v })));
  return out as Partial<ClusterScanParams>[];
}

async function evaluate(names: string[]): Promise<void> {
  const files = names.map((name) => {
    const s = load(name);
    const docs = s.texts.map(scanDoc);
    const knn = s.knn.map((l) => ({ j: l.j.slice(0, AUDIT_K), s: l.s.slice(0, AUDIT_K) }));
    const vectors = s.texts.map((_, i) => s.vectors.subarray(i * s.dim, (i + 1) * s.dim));
    const hubs = new Set(findHubs(knn, validateClusterScanParams().hubZ).map((h) => h.node));
    return { name, n: s.texts.length, poison: s.poison, P: s.poison.filter(Boolean).length, docs, knn, vectors, hubs };
  });
  const points: Point[] = [];
  for (const cp of candidateGrid()) {
    const t0 = Date.now();
    const cands: ScanCandidate[][] = files.map((f) => localCandidates(f.knn, f.docs, cp, f.vectors).filter((c) => !c.members.some((m) => f.hubs.has(m))));
    process.stderr.write(`${JSON.stringify(cp)}: ${cands.map((c) => c.length).join('/')} candidates, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    for (const g of grid()) {
      const params = validateClusterScanParams({ ...g, ...cp });
      const perFile = files.map((f, x) => {
        const flagged = new Set<number>();
        for (const c of cands[x]!) if (passesGates(c, params)) for (const m of c.members) flagged.add(m);
        let tp = 0;
        for (const m of flagged) if (f.poison[m]) tp++;
        return { recall: tp / f.P, benign: ((flagged.size - tp) / f.n) * 1000 };
      });
      points.push({ key: JSON.stringify({ ...g, ...cp }), params, perFile });
    }
  }
  const fmt = (r: { recall: number; benign: number }) => `recall ${r.recall.toFixed(3)} at ${r.benign.toFixed(2)} benign/1k`;
  const key = (p: Point) => JSON.stringify(Object.fromEntries(Object.keys(GRID).filter((k) => GRID[k]!.length > 1).map((k) => [k, (p.params as unknown as Record<string, unknown>)[k]])));
  for (let t = 0; t < files.length; t++) {
    const train = files.map((_, x) => x).filter((x) => x !== t);
    let best: Point | null = null;
    const val = (p: Point) => Math.min(...train.map((x) => p.perFile[x]!.recall)) + 1e-3 * train.reduce((a, x) => a + p.perFile[x]!.recall, 0);
    for (const p of points) if (train.every((x) => p.perFile[x]!.benign <= FIT_CAP) && (!best || val(p) > val(best))) best = p;
    const ins = points.filter((p) => p.perFile[t]!.benign <= 1).reduce<Point | null>((a, p) => (!a || p.perFile[t]!.recall > a.perFile[t]!.recall ? p : a), null);
    console.log(`${files[t]!.name}: held out ${best ? fmt(best.perFile[t]!) : '(nothing under the cap on the training files)'}; fit on ${train.map((x) => files[x]!.name).join(' + ')}${best ? `: ${train.map((x) => fmt(best!.perFile[x]!)).join('; ')}; chosen ${key(best)}` : ''}`);
    console.log(`   in-sample best at ≤ 1/1k: ${ins ? `${fmt(ins.perFile[t]!)} ${key(ins)}` : 'none'}`);
  }
  const dflt = points.find((p) => Object.keys(GRID).every((k) => (p.params as unknown as Record<string, unknown>)[k] === (validateClusterScanParams() as unknown as Record<string, unknown>)[k]));
  if (dflt) console.log(`defaults (DEFAULT_CLUSTER_SCAN_PARAMS): ${files.map((f, x) => `${f.name} ${fmt(dflt.perFile[x]!)}`).join(' | ')}`);
}

/** One text's group (itself + its `m` nearest neighbours) and what describes it. */
interface GroupRow { members: number[]; poisoned: number; x: number[] }

function groupRows(s: Stored & { vectors: Float32Array }, m = 4, hoodK = 20, copyRun = 12): GroupRow[] {
  const n = s.texts.length;
  const sim = (a: number, b: number) => { let x = 0; for (let d = 0; d < s.dim; d++) x += s.vectors[a * s.dim + d]! * s.vectors[b * s.dim + d]!; return x; };
  const docs = s.texts.map(scanDoc);
  const runs = docs.map((d) => new Set(Array.from({ length: Math.max(0, d.seq.length - copyRun + 1) }, (_, x) => d.seq.slice(x, x + copyRun).join(' '))));
  const copies = (a: number, b: number) => { for (const r of runs[a]!) if (runs[b]!.has(r)) return true; return false; };
  const seen = new Set<string>();
  const rows: GroupRow[] = [];
  for (let i = 0; i < n; i++) {
    const g = [i, ...s.knn[i]!.j.slice(0, m)].sort((a, b) => a - b);
    const key = g.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    const inG = new Set(g);
    let tight = 1, sum = 0, pairs = 0, copy = 0, jMean = 0, jMax = 0;
    for (let a = 0; a < g.length; a++) for (let b = a + 1; b < g.length; b++) {
      const v = sim(g[a]!, g[b]!); tight = Math.min(tight, v); sum += v; pairs++;
      if (copies(g[a]!, g[b]!)) copy = 1;
      const A = docs[g[a]!]!.tokens, B = docs[g[b]!]!.tokens; let both = 0; for (const t of A) if (B.has(t)) both++;
      const j = both / (A.size + B.size - both || 1); jMean += j; jMax = Math.max(jMax, j);
    }
    jMean /= pairs;
    // Closure: how many of each member's m nearest neighbours are in the group (a closed clique = 1).
    let closure = 0; for (const x of g) closure += s.knn[x]!.j.slice(0, m).filter((y) => inG.has(y)).length / m / g.length;
    // Gap: each member's weakest tie inside minus its best tie outside.
    let gap = 0; for (const x of g) { let inMin = 1; for (const y of g) if (y !== x) inMin = Math.min(inMin, sim(x, y)); const l = s.knn[x]!; const o = l.j.findIndex((y) => !inG.has(y)); gap += (inMin - (o >= 0 ? l.s[o]! : 0)) / g.length; }
    const hood = new Set<number>(); for (const x of g) for (const y of s.knn[x]!.j.slice(0, hoodK)) if (!inG.has(y)) hood.add(y);
    let around = 0, aroundN = 0; for (const x of g) for (const y of hood) { around += sim(x, y); aroundN++; }
    let minShare = 1, claims = 0, shared = 0, answerLike = 0;
    for (const t of docs[g[0]!]!.tokens) {
      if (!g.every((x) => docs[x]!.tokens.has(t))) continue;
      shared++;
      let c = 0; for (const y of hood) if (docs[y]!.tokens.has(t)) c++;
      const share = hood.size ? c / hood.size : 0;
      minShare = Math.min(minShare, share);
      if (share <= 0.05) { claims++; if (g.every((x) => docs[x]!.answerLike.has(t))) answerLike = 1; }
    }
    const words = g.map((x) => docs[x]!.words); const mw = words.reduce((a, b) => a + b, 0) / g.length;
    const sd = Math.sqrt(words.reduce((a, b) => a + (b - mw) ** 2, 0) / g.length);
    const tokens = g.reduce((a, x) => a + docs[x]!.tokens.size, 0) / g.length || 1;
    // tightness, mean similarity, closure, gap, cohesion margin, smallest token share around, claims, shared tokens,
    // answer-like claim, word overlap (mean, max), copies, length CV, log words, shared and claim tokens per token.
    const base = [tight, sum / pairs, closure, gap, sum / pairs - (aroundN ? around / aroundN : 0), minShare, Math.min(claims, 5), Math.min(shared, 15), answerLike, jMean, jMax, copy, mw ? sd / mw : 0, Math.log(mw + 1), shared / tokens, claims / tokens];
    const x = [...base];
    for (let a = 0; a < base.length; a++) for (let b = a; b < base.length; b++) x.push(base[a]! * base[b]!);
    rows.push({ members: g, poisoned: g.filter((y) => s.poison[y]).length, x });
  }
  return rows;
}

/** Recall and flagged benign per 1k as groups are flagged in score order (each point = one more group). */
function flagCurve(rows: readonly GroupRow[], score: (r: GroupRow) => number, poison: readonly boolean[]) {
  const P = poison.filter(Boolean).length, n = poison.length;
  const flagged = new Set<number>();
  let tp = 0, fp = 0;
  return rows.map((r) => ({ r, s: score(r) })).sort((a, b) => b.s - a.s).map(({ r, s }) => {
    for (const m of r.members) if (!flagged.has(m)) { flagged.add(m); if (poison[m]) tp++; else fp++; }
    return { t: s, recall: tp / P, benign: (fp / n) * 1000 };
  });
}

async function learnedScore(names: string[]): Promise<void> {
  const files = names.map((name) => { const s = load(name); const rows = groupRows(s); process.stderr.write(`${name}: ${rows.length} groups\n`); return { name, poison: s.poison, rows }; });
  // Labelled groups: ≥ 4 of 5 planted (positive) or none (negative); mixed groups are left out of the fit.
  const fit = (rows: readonly GroupRow[]) => {
    const data = rows.filter((r) => r.poisoned >= 4 || r.poisoned === 0);
    const pos = data.filter((r) => r.poisoned >= 4).length, neg = data.length - pos;
    const f = fitLassoLogistic(data.map((r) => Float64Array.from(r.x)), data.map((r) => (r.poisoned >= 4 ? 1 : 0)), data.map((r) => (r.poisoned >= 4 ? 0.5 / pos : 0.5 / neg)), { lambda: 0, ridge: 1e-3 });
    return (r: GroupRow) => { let z = f.bias; for (let j = 0; j < r.x.length; j++) z += f.weights[j]! * r.x[j]!; return z; };
  };
  // The last point of a curve under `cap` benign/1k, with its score threshold (Infinity when none is).
  const atCap = (pts: { t: number; recall: number; benign: number }[], cap: number) => { let best = { t: Infinity, recall: 0, benign: 0 }; for (const p of pts) { if (p.benign > cap) break; best = p; } return best; };
  const fmt = (r: { recall: number; benign: number }) => `recall ${r.recall.toFixed(3)} at ${r.benign.toFixed(2)} benign/1k`;
  for (const held of files) {
    const train = files.filter((f) => f !== held);
    const score = fit(train.flatMap((f) => f.rows));
    // The threshold: the lowest score each training file can go down to under ≤ 1 benign/1k; the stricter of them.
    const t = Math.max(...train.map((f) => atCap(flagCurve(f.rows, score, f.poison), FIT_CAP).t));
    const pts = flagCurve(held.rows, score, held.poison);
    let at = { recall: 0, benign: 0 }; for (const p of pts) if (p.t >= t) at = p;
    const own = fit(held.rows);
    console.log(`${held.name}: held out ${fmt(at)} (best threshold for this file: ${fmt(atCap(pts, 1))}); fitted and measured on this file alone: ${fmt(atCap(flagCurve(held.rows, own, held.poison), 1))}`);
  }
}

/** The audit as the service runs it (in-memory repositories and store), default parameters. */
async function audit(file: string): Promise<void> {
  const records = loadEvalRecords(resolve(file));
  const { texts: all, planted: poisonSet } = oneCollection(records);
  const embedder = await CachedEmbedder.openDefault('.eval/cache');
  const auditRuns = new InMemoryAuditRunRepository();
  const uc = composeUseCases({ repos: createInMemoryRepositories(), store: new InMemoryVectorStore(), embedder, judge: new ScriptedJudge(() => 'NO'), auditRuns });
  const runs = uc.get(RunAuditUseCase);
  const ing = await uc.get(IngestCorpusUseCase).execute({ collection: 'scan', records: all.map((text) => ({ text })) });
  const isPoison = new Map(all.map((t, i) => [ing.ids[i]!, poisonSet.has(t)]));
  const t0 = Date.now();
  const run = await uc.get(StartAuditUseCase).execute({ kind: 'cluster-scan', collection: 'scan', trigger: 'cli', actor: 'research', enqueue: false, params: { maxGroups: 100_000 } });
  const out = (await runs.execute({ runId: run.id }))!.run;
  const seconds = (Date.now() - t0) / 1000;
  const findings = await auditRuns.listFindings(run.id, { limit: 100_000 });
  const flagged = new Set(findings.filter((f) => f.type === 'suspicious-group').flatMap((f) => f.documentIds));
  let tp = 0;
  for (const id of flagged) if (isPoison.get(id)) tp++;
  console.log(JSON.stringify({ data: dataName(file), texts: all.length, poisoned: poisonSet.size, status: out.status, recall: +(tp / poisonSet.size).toFixed(3), flaggedBenignPer1k: +(((flagged.size - tp) / all.length) * 1000).toFixed(2), groups: out.counts.groups, hubs: out.counts.hubs, seconds: +seconds.toFixed(1) }));
  await embedder.close();
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'audit') { for (const f of rest) await audit(f); return; }
  if (cmd === 'build') { for (const f of rest) await build(f); return; }
  if (cmd === 'learned') { await learnedScore(rest.length ? rest : [...SCAN_FILES]); return; }
  if (cmd === 'eval') { await evaluate(rest.length ? rest : [...SCAN_FILES]); return; }
  throw new Error('usage: scan-research.ts build FILE... | audit FILE... | eval [NAME...] | learned [NAME...]');
}

if (require.main === module || process.argv[1]?.endsWith('scan-research.ts')) void main().catch((e) => { console.error(e); process.exit(1); });
