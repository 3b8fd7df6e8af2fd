/**
 * Cluster-scan speed (issue 12): `npm run -s bench:audit -- [--texts 10000,100000] [--sample 3000] [--dim 384]`
 *
 * For each size: a collection in the embedded store (LanceDB, on disk, the service's adapter) of
 * random unit vectors with planted groups of 5 near-duplicates (cos ≈ 0.9 to each other), texts
 * generated (groups share two made-up tokens). Then the scan's two phases, timed separately:
 *  1. reading every text with its vector (`listPage`),
 *  2. the k-NN graph: one `searchBatch` query per text (the store's own search: the exact in-process
 *     kernel below VECTOR_INDEX_MIN_ROWS, the IVF_PQ index above, built first as the service does),
 *     timed on a sample of `--sample` texts when the collection is larger (texts/s is a rate; the full
 *     graph time is extrapolated and says so),
 *  3. the grouping itself (pure, on the sampled graph).
 * One JSON line per size. The default encoder (USE-lite) embeds ~20 texts/s here, so the scan is
 * measured on 384-d vectors only (embedding 100k real texts would take 1.5 hours); the scan's cost
 * does not depend on where the vectors came from, only on their dimension and number.
 * The incremental scan (new texts only) is not built in this version: printed as null.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { clusterScan, scanTokens } from '../libs/forensics/src';
import { LanceDbVectorStore } from '../libs/infra/src/vector-store/lancedb-vector-store.adapter';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}
function gauss(r: () => number): number { return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r()); }
function unit(v: Float32Array): Float32Array { let n = 0; for (const x of v) n += x * x; n = Math.sqrt(n) || 1; for (let i = 0; i < v.length; i++) v[i]! /= n; return v; }

async function one(n: number, dim: number, sampleMax: number): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-audit-'));
  const store = new LanceDbVectorStore({ dir, autoIndex: false });
  const C = 'scan';
  const r = rng(n);
  await store.ensureCollection(C, dim);
  const GROUP = 5, groups = Math.floor(n / 1000);
  let base: Float32Array | null = null;
  const t0 = Date.now();
  for (let start = 0; start < n; start += 5000) {
    const recs = [];
    for (let i = start; i < Math.min(n, start + 5000); i++) {
      const g = i < groups * GROUP ? Math.floor(i / GROUP) : -1;
      let v: Float32Array;
      if (g >= 0) {
        if (i % GROUP === 0) base = unit(Float32Array.from({ length: dim }, () => gauss(r)));
        v = unit(Float32Array.from(base!, (x) => x + 0.0165 * gauss(r)));
      } else v = unit(Float32Array.from({ length: dim }, () => gauss(r)));
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      recs.push({ id, vector: v, text: g >= 0 ? `planted claim zq${g}x kel${g}m variant ${i}` : `ordinary passage ${i} topic t${i % 97}`, payload: {} });
    }
    await store.upsert(C, recs);
  }
  const ingestSec = (Date.now() - t0) / 1000;
  const path = n >= 50_000 ? 'ann' : 'exact';
  if (path === 'ann') await store.buildIndex(C);
  const t1 = Date.now();
  const vectors: Float32Array[] = [];
  const ids: string[] = [];
  const texts: string[] = [];
  for (let after: string | null = null; ;) {
    const page = await store.listPage(C, { after, limit: 5000, withVectors: true, withText: true });
    for (const x of page.records) { ids.push(x.id); vectors.push(x.vector!); texts.push(x.text!); }
    after = page.next;
    if (after === null) break;
  }
  const listSec = (Date.now() - t1) / 1000;
  const sample = Math.min(n, sampleMax);
  const index = new Map(ids.map((id, i) => [id, i]));
  const knn = new Array(sample);
  const t2 = Date.now();
  for (let s = 0; s < sample; s += 64) {
    const part = Array.from({ length: Math.min(64, sample - s) }, (_, x) => s + x);
    const hits = await store.searchBatch(C, part.map((i) => ({ vector: vectors[i]!, k: 9, excludeIds: [ids[i]!] })));
    hits.forEach((list, x) => { knn[part[x]!] = { j: list.map((h) => index.get(h.id)!).slice(0, 8), s: list.map((h) => h.score).slice(0, 8) }; });
  }
  const knnSec = (Date.now() - t2) / 1000;
  const knnPerSec = sample / knnSec;
  const t3 = Date.now();
  // Grouping on the sampled part of the graph (lists pointing outside the sample are fine: tokens exist for all).
  const res = clusterScan(knn.map((l) => ({ j: l.j.filter((j: number) => j < sample), s: l.s.filter((_: number, q: number) => l.j[q] < sample) })), texts.slice(0, sample).map(scanTokens), { minSharedRare: 2 });
  const groupSec = (Date.now() - t3) / 1000;
  const fullSec = listSec + n / knnPerSec + groupSec * (n / sample);
  console.log(JSON.stringify({
    texts: n, dim, path, sampled: sample, ingestSec: +ingestSec.toFixed(1), listSec: +listSec.toFixed(1), knnTextsPerSec: +knnPerSec.toFixed(0),
    firstScanSec: +fullSec.toFixed(0), firstScanTextsPerSec: +(n / fullSec).toFixed(0), extrapolated: sample < n, groupsFoundInSample: res.groups.length,
    plantedGroupsInSample: Math.min(groups, Math.floor(sample / GROUP)), incremental: null, cores: os.cpus().length, load1: +os.loadavg()[0]!.toFixed(2),
  }));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const sizes = arg('texts', '10000,100000').split(',').map(Number);
  for (const n of sizes) await one(n, Number(arg('dim', '384')), Number(arg('sample', '3000')));
}
main().catch((e) => { console.error(e); process.exit(1); });
