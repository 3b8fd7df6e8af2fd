/**
 * Cluster-scan speed (issue 12): `npm run -s bench:audit -- [--texts 10000,100000] [--dim 384] [--postgres]`
 *
 * For each size: a collection in the embedded store (LanceDB, on disk, the service's adapter) of
 * random unit vectors with planted groups of 5 near-duplicates (cos ≈ 0.9 to each other), texts
 * generated (groups share two made-up tokens). Then the scan's two phases, timed separately:
 *  1. reading every text with its vector (`listPage`),
 *  2. the k-NN graph as the audit builds it: one store query per text below LSH_MIN_TEXTS (20k), LSH
 *     over the listed vectors above (the store's ANN index answers ~46 queries/s here: 36 minutes for
 *     100k texts, measured before the switch),
 *  3. the grouping itself,
 * then the incremental run, as the audit runs it on a schedule: 1,000 new texts (200 more planted groups)
 * written to the store, and the scan again with the k-NN lists the first run kept (only the new texts are
 * searched and merged; listing and grouping are over the whole collection).
 * With `--postgres`, the lists are saved to and loaded from an embedded Postgres as the audit does
 * (`pgSaveFirstSec`, and the incremental run's load + save included in `incremental1kSec`, also
 * printed alone: `incrementalLoadSec`, `incrementalSaveSec`).
 * One JSON line per size. The default encoder (USE-lite) embeds ~20 texts/s here, so the scan is
 * measured on 384-d vectors only (embedding 100k real texts would take 1.5 hours); the scan's cost
 * does not depend on where the vectors came from, only on their dimension and number.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLUSTER_SCAN_PARAMS } from '../libs/forensics/src';
import { LSH_MIN_TEXTS, readKnnGraph, scanCollection, scanNeighbours } from '../libs/core/src';
import { LanceDbVectorStore } from '../libs/infra/src/vector-store/lancedb-vector-store.adapter';
import { applyMigrations } from '../libs/infra/src/prisma/migrator';
import { createPrismaClient } from '../libs/infra/src/prisma/prisma-client';
import { PrismaAuditRunRepository } from '../libs/infra/src/audits/prisma-audit-run.repository';
import { startEmbeddedPostgres } from '../libs/infra/src/runtime/embedded-services';

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

async function one(n: number, dim: number, repo: PrismaAuditRunRepository | null): Promise<void> {
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
  if (n >= 50_000) await store.buildIndex(C); // as the service does above VECTOR_INDEX_MIN_ROWS
  // First scan: exactly what the cluster-scan audit runs (listing, k-NN graph, grouping).
  const k = scanNeighbours(DEFAULT_CLUSTER_SCAN_PARAMS);
  const t1 = Date.now();
  const graph = await readKnnGraph(store, C, k);
  const graphSec = (Date.now() - t1) / 1000;
  const t2 = Date.now();
  const res = scanCollection(graph);
  const graphOnlySec = graphSec;
  const groupSec = (Date.now() - t2) / 1000;
  const firstSec = graphSec + groupSec;
  const path = n >= LSH_MIN_TEXTS ? 'lsh' : 'store search';
  const planted = new Set(Array.from({ length: groups * GROUP }, (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`));
  const flagged = res.groups.flatMap((g) => g.members.map((m) => graph.ids[m]!));
  let pgSaveFirstSec: number | null = null;
  if (repo) {
    const t = Date.now();
    await repo.replaceScanGraph(C, graph.scanGraph());
    pgSaveFirstSec = (Date.now() - t) / 1000;
  }
  // Incremental run: 1,000 new texts (200 more planted groups) written, then the scan with the lists the first run kept.
  const fresh = [];
  for (let g = 0; g < 200; g++) {
    const b = unit(Float32Array.from({ length: dim }, () => gauss(r)));
    for (let m = 0; m < GROUP; m++) {
      const i = n + g * GROUP + m;
      fresh.push({ id: `00000000-0000-4000-9000-${i.toString(16).padStart(12, '0')}`, vector: unit(Float32Array.from(b, (x) => x + 0.0165 * gauss(r))), text: `planted claim zq${groups + g}x kel${groups + g}m variant ${i}`, payload: {} });
    }
  }
  await store.upsert(C, fresh);
  const t3 = Date.now();
  const prior = repo ? await repo.loadScanGraph(C) : graph.scanGraph();
  const loadSec = (Date.now() - t3) / 1000;
  const inc = await readKnnGraph(store, C, k, undefined, 'auto', prior);
  const t4 = Date.now();
  if (repo) await repo.replaceScanGraph(C, inc.scanGraph());
  const saveSec = (Date.now() - t4) / 1000;
  const incGraphSec = (Date.now() - t3) / 1000;
  const incRes = scanCollection(inc, {}, inc.changed);
  const incSec = (Date.now() - t3) / 1000;
  const freshIds = new Set(fresh.map((f) => f.id));
  const incFlagged = incRes.groups.flatMap((g) => g.members.map((m) => inc.ids[m]!));
  console.log(JSON.stringify({
    texts: n, dim, knnPath: path, ingestSec: +ingestSec.toFixed(1), firstScanSec: +firstSec.toFixed(1), firstGraphSec: +graphOnlySec.toFixed(1), firstScanTextsPerSec: Math.round(n / firstSec),
    plantedGroups: groups, plantedFlagged: flagged.filter((id) => planted.has(id)).length, otherFlagged: flagged.filter((id) => !planted.has(id)).length,
    listsIn: repo ? 'postgres' : 'process', pgSaveFirstSec, incremental1kSec: +incSec.toFixed(2), incrementalGraphSec: +incGraphSec.toFixed(2), incrementalLoadSec: repo ? +loadSec.toFixed(2) : null, incrementalSaveSec: repo ? +saveSec.toFixed(2) : null, incrementalSearched: inc.searched, incrementalReused: inc.reused, incrementalNewFlagged: incFlagged.filter((id) => freshIds.has(id)).length,
    incrementalOtherFlagged: incFlagged.filter((id) => !freshIds.has(id) && !planted.has(id)).length,
    cores: os.cpus().length, load1: +os.loadavg()[0]!.toFixed(2),
  }));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const sizes = arg('texts', '10000,100000').split(',').map(Number);
  let repo: PrismaAuditRunRepository | null = null;
  let stop = async () => {};
  if (process.argv.includes('--postgres')) {
    const dir = mkdtempSync(join(os.tmpdir(), 'bench-audit-pg-'));
    const pg = await startEmbeddedPostgres(dir);
    await applyMigrations(pg.url, join(__dirname, '..', 'prisma', 'migrations'));
    const db = createPrismaClient(pg.url);
    repo = new PrismaAuditRunRepository(db);
    stop = async () => { await db.$disconnect(); await pg.stop(); rmSync(dir, { recursive: true, force: true }); };
  }
  try {
    for (const n of sizes) await one(n, Number(arg('dim', '384')), repo);
  } finally { await stop(); }
}
main().catch((e) => { console.error(e); process.exit(1); });
