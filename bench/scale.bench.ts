/**
 * A million texts in the embedded store (issue 15, item 2). Prints progress on stderr and ONE JSON line
 * on stdout:
 *   {"texts":N,"vectors":"random","ingestPerSec":..,"indexBuildSec":..,"searchP50Ms":..,"searchP99Ms":..,"searchP50AfterQuarantinesMs":..,
 *    "foreignWriteNextSearchMs":..,"rssMb":..,"recallAt10":..,"cores":2,"load1":..}
 *
 *   npm run bench:scale -- --texts 1000000 [--vectors random|clustered] [--queries 200] [--dir /tmp/x [--reuse]]
 *                          [--nprobes P --refine R]   (ANN knobs; default VECTOR_ANN_NPROBES / VECTOR_ANN_REFINE's)
 *                          [--index ivf_pq|hnsw_sq|ivf_rq]   (the ANN index, VECTOR_ANN_INDEX; with --reuse of a
 *                          directory indexed otherwise, the index is rebuilt first and indexBuildSec is that)
 * `--dir` keeps the data; `--reuse` then skips ingestion/indexing/truth (saved in the dir) and re-runs the
 * searches and foreign writes only (each foreign write is undone after its timed search, so the data
 * stay as ingested) — e.g. to measure again when the shared machine is quieter.
 *
 * Three processes, like the service:
 * - a WRITER child ("the API") generates N 384-d unit vectors (random by default — the hardest case
 *   for ANN recall, no structure; `--vectors clustered` = N/100 topics, cosine to the topic ≈ 0.7,
 *   closer to real embeddings), texts cycled from /work/shared/data/*.jsonl (synthetic text when
 *   absent), ~1 in 500 flagged quarantined; upserts them through LanceDbVectorStore (10k per call),
 *   then trains the ANN index (`buildIndex`; the service does this in the background by itself once
 *   VECTOR_INDEX_MIN_ROWS is reached) and computes the EXACT top-10 of every query (same quarantine
 *   filter and exclusions) with the store's exact kernel, streaming, so it never holds all vectors;
 * - this process ("the worker") opens the same directory and runs the traceback's query shape:
 *   top-K = 5..10, three excluded ids (the query's own text and two others), quarantine filter on.
 *   rssMb is this process's resident set after the searches (it never sees the whole table);
 * - FOREIGN children ("the API again") each upsert 100 texts (one of them = the next query's vector)
 *   and quarantine 10 rows, then exit; the next search here is timed and must see the new text.
 * Vectors are a pure function of (seed, row), so every process regenerates what it needs.
 *
 * `--store pgvector` (issue 36): the run above, then the same texts, queries and exact truth in pgvector
 * (PgVectorStore on a PostgreSQL 15 + pgvector cluster this process starts, test/support/pgvector-cluster.ts),
 * a SECOND JSON line with "store":"pgvector": bulk load (10k rows per upsert, no index), then the HNSW
 * build (m 16, ef_construction 64; maintenance_work_mem --pg-mwm, default 3GB; 1 parallel worker),
 * searches at hnsw.ef_search --ef (default: the adapter's, 200) with the quarantine filter and exclusions in
 * the query, recall@10 against the same exact top-10, and postgresPssMb = the proportional set size of all
 * the cluster's processes after the searches (shared buffers counted once; with --pg-huge-pages plus the
 * huge pages in use, which Pss leaves out). The foreign write is a second
 * PgVectorStore (its own connections) upserting 100 texts and quarantining 10 rows. `--ef-sweep 200,400`
 * adds recall@10 and p50/p99 of the same queries at other hnsw.ef_search values ("efSweep").
 * `--pg-shared-buffers 4GB` sizes Postgres' cache (default 1GB); `--pg-huge-pages` puts it in huge pages
 * (reserving them when root; see reserveHugePages), the setting docs/vector-stores.md recommends at 1M.
 * `--pg-dir DIR` keeps that cluster in DIR; run again with the same DIR (and `--dir D --reuse` for the
 * embedded part) and the load and index build are skipped ("reused": true, their times from the first
 * run), so the searches can be measured again on a quieter machine.
 */
import { mulberry32 } from '@forensics/algorithms';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { VectorRecord, VectorStore } from '../libs/core/src/ports/vector-store.port';
import { ExactMatrix } from '../libs/infra/src/vector-store/exact-kernel';
import { LanceDbVectorStore } from '../libs/infra/src/vector-store/lancedb-vector-store.adapter';
import { DEFAULT_PGVECTOR_EF_SEARCH, PgVectorStore } from '../libs/infra/src/vector-store/pgvector-vector-store.adapter';
import { startPgVectorCluster } from '../test/support/pgvector-cluster';
import { ANN_INDEX_KINDS, DEFAULT_ANN_INDEX, type AnnIndexKind } from '../libs/infra/src/vector-store/vector-store.common';

const DIM = 384;
const COLLECTION = 'scale';
const CHUNK = 10_000;
const FLAG_EVERY = 500;
const FOREIGN_ROUNDS = 5;

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
}
const log = (msg: string): void => {
  process.stderr.write(`[scale ${process.argv.includes('--role') ? arg('role', '') : 'search'} ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};

const N = Number(arg('texts', '100000'));
const KIND = arg('vectors', 'random') as 'random' | 'clustered';
const QUERIES = Number(arg('queries', '200'));
const INDEX = arg('index', DEFAULT_ANN_INDEX) as AnnIndexKind;
if (!ANN_INDEX_KINDS.includes(INDEX)) throw new Error(`--index must be one of ${ANN_INDEX_KINDS.join(', ')}, got ${String(INDEX)}`);
if (!Number.isInteger(N) || N < 1000) throw new Error('--texts must be an integer ≥ 1000');
if (KIND !== 'random' && KIND !== 'clustered') throw new Error('--vectors must be random or clustered');

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const rowOf = (id: string): number => parseInt(id.slice(24), 16) - 1;
const flagged = (row: number): boolean => row % FLAG_EVERY === 7;

function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
}
const TOPICS = Math.max(1, Math.round(N / 100));
const topicCache = new Map<number, Float32Array>();
function topic(t: number): Float32Array {
  let v = topicCache.get(t);
  if (!v) {
    const rand = mulberry32(0x51ed ^ Math.imul(t + 1, 0x9e3779b1));
    v = Float32Array.from({ length: DIM }, () => gaussian(rand));
    if (topicCache.size < 20_000) topicCache.set(t, v);
  }
  return v;
}
/** The unit vector of `row` (pure function of the row: every process regenerates the same). */
function vectorOf(row: number, out = new Float32Array(DIM)): Float32Array {
  const rand = mulberry32(0xbe7c ^ Math.imul(row + 1, 0x85ebca6b));
  if (KIND === 'random') for (let d = 0; d < DIM; d++) out[d] = gaussian(rand);
  else {
    const c = topic(Math.floor(rand() * TOPICS));
    for (let d = 0; d < DIM; d++) out[d] = c[d] + 0.9 * gaussian(rand);
  }
  let s = 0;
  for (let d = 0; d < DIM; d++) s += out[d] * out[d];
  const inv = 1 / Math.sqrt(s);
  for (let d = 0; d < DIM; d++) out[d] *= inv;
  return out;
}

interface Query {
  row: number;
  k: number;
  exclude: number[];
}
/** The traceback's query shape: a stored text's vector, K = 5..10, itself and two others excluded. */
function queries(): Query[] {
  const rand = mulberry32(4242);
  return Array.from({ length: QUERIES }, (_, j) => {
    let row = Math.floor(rand() * N);
    while (flagged(row)) row = (row + 1) % N;
    return { row, k: 5 + (j % 6), exclude: [row, Math.floor(rand() * N), Math.floor(rand() * N)] };
  });
}

function loadTexts(): string[] {
  const dir = '/work/shared/data';
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];
  const texts: string[] = [];
  for (const f of files) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as Record<string, unknown>;
        for (const key of ['clean_texts', 'gold_texts', 'poisoned_texts']) {
          const v = r[key];
          if (Array.isArray(v)) for (const t of v) if (typeof t === 'string' && t.length > 0) texts.push(t);
        }
      } catch {
        /* a malformed line is skipped */
      }
    }
  }
  if (texts.length === 0) {
    log(`no texts under ${dir} (third-party data absent): using synthetic texts`);
    return Array.from({ length: 1000 }, (_, i) => `synthetic passage ${i}: ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 8))}`);
  }
  log(`${texts.length} texts from ${files.length} files in ${dir}, cycled`);
  return [...new Set(texts)];
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))];
};
const rssMb = (): number => Math.round(process.memoryUsage().rss / 1e6);

function runChild(role: string, dir: string, extra: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], '--role', role, '--dir', dir, '--texts', String(N), '--vectors', KIND, '--queries', String(QUERIES), '--index', INDEX, ...extra], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${role} child exited with ${code}`))));
  });
}

// ---- writer: ingest, index, exact truth ---------------------------------------------------------

async function writer(dir: string): Promise<void> {
  const texts = loadTexts();
  const store = new LanceDbVectorStore({ dir, autoIndex: false, annIndex: INDEX });
  await store.ensureCollection(COLLECTION, DIM);
  const t0 = performance.now();
  for (let start = 0; start < N; start += CHUNK) {
    const records: (VectorRecord & { quarantined?: boolean })[] = [];
    for (let row = start; row < Math.min(N, start + CHUNK); row++) {
      records.push({
        id: uuid(row + 1),
        vector: vectorOf(row),
        text: texts[row % texts.length],
        payload: { externalId: `doc-${row}` },
        ...(flagged(row) ? { quarantined: true } : {}),
      });
    }
    await store.upsert(COLLECTION, records);
    if ((start / CHUNK) % 10 === 9 || start + CHUNK >= N) {
      log(`ingested ${Math.min(N, start + CHUNK)}/${N} (${Math.round(Math.min(N, start + CHUNK) / ((performance.now() - t0) / 1000))}/s, rss ${rssMb()} MB)`);
    }
  }
  const ingestSec = (performance.now() - t0) / 1000;
  await store.optimize(COLLECTION); // compaction of the 10k-row fragments, as the service does periodically
  log(`training the ANN index (${INDEX})…`);
  const t1 = performance.now();
  await store.buildIndex(COLLECTION);
  const indexBuildSec = (performance.now() - t1) / 1000;
  log(`index built in ${indexBuildSec.toFixed(1)} s`);
  await store.close();

  // Exact truth: top-10 of every query among non-quarantined, non-excluded rows, streaming the rows.
  const qs = queries();
  const qv = qs.map((q) => vectorOf(q.row));
  const best = qs.map(() => [] as [number, number][]); // [score, row], kept sorted desc, length ≤ 10
  const matrix = new ExactMatrix(DIM, CHUNK);
  const tmp = new Float32Array(DIM);
  for (let start = 0; start < N; start += CHUNK) {
    const n = Math.min(CHUNK, N - start);
    while (matrix.size > n) matrix.pop();
    for (let i = 0; i < n; i++) matrix.setRow(i, vectorOf(start + i, tmp));
    const scores = matrix.scores(qv);
    for (let j = 0; j < qs.length; j++) {
      const list = best[j];
      const excluded = new Set(qs[j].exclude);
      for (let i = 0; i < n; i++) {
        const row = start + i;
        const s = scores[j * n + i];
        if (list.length === 10 && s <= list[9][0]) continue;
        if (flagged(row) || excluded.has(row)) continue;
        list.push([s, row]);
        list.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
        if (list.length > 10) list.pop();
      }
    }
    if ((start / CHUNK) % 20 === 19) log(`exact truth ${start + n}/${N}`);
  }
  process.stdout.write(JSON.stringify({ ingestPerSec: Math.round(N / ingestSec), indexBuildSec: +indexBuildSec.toFixed(1), index: INDEX, truth: best.map((l) => l.map(([, r]) => r)) }));
}

// ---- foreign writer: another process's upsert + quarantine --------------------------------------

const foreignFlagged = (round: number): number[] => Array.from({ length: 10 }, (_, i) => (round * 7919 + i * 104729) % N);
const foreignIds = (round: number): string[] => Array.from({ length: 100 }, (_, i) => uuid(N + 1000 + round * 1000 + i));

async function foreign(dir: string): Promise<void> {
  const round = Number(arg('round', '0'));
  const target = Number(arg('target', '0'));
  const store = new LanceDbVectorStore({ dir, autoIndex: false });
  const base = N + 1000 + round * 1000;
  const records: VectorRecord[] = Array.from({ length: 100 }, (_, i) => ({
    id: uuid(base + i),
    vector: i === 0 ? vectorOf(target) : vectorOf(base + i),
    text: `foreign write ${round}.${i}`,
    payload: { externalId: `foreign-${round}-${i}` },
  }));
  await store.upsert(COLLECTION, records);
  await store.setQuarantined(COLLECTION, foreignFlagged(round).map((r) => uuid(r + 1)), true);
  await store.close();
  process.stdout.write(JSON.stringify({ newId: uuid(base) }));
}

// ---- pgvector, beside the embedded store ---------------------------------------------------------

/** Proportional set size (MB) of the postmaster and its children (Pss counts shared buffers once). */
function pssMb(rootPid: number): number {
  const pids = [rootPid];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === rootPid) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      /* gone */
    }
  }
  return Math.round(kb / 1024);
}

/** Huge pages in use system-wide (MB): Pss leaves hugetlb mappings out, so with --pg-huge-pages shared buffers are counted here. */
function hugePagesInUseMb(): number {
  const info = fs.readFileSync('/proc/meminfo', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return Math.round(((field('HugePages_Total') - field('HugePages_Free')) * field('Hugepagesize')) / 1024);
}

/**
 * The timed searches both stores are measured with: 5 warm-up searches (open the table, load index
 * metadata), then each query timed at its own k, counting quarantined and excluded rows returned, and
 * the same query at k = 10 (untimed) against the exact top-10 for recall@10.
 */
async function measureSearches(
  store: Pick<VectorStore, 'search'>, qs: readonly Query[], truth: readonly number[][],
): Promise<{ lat: number[]; found: number; flaggedReturned: number; excludedReturned: number }> {
  for (let i = 0; i < 5; i++) await store.search(COLLECTION, { vector: vectorOf(qs[i].row), k: qs[i].k, excludeIds: qs[i].exclude.map((r) => uuid(r + 1)) });
  const lat: number[] = [];
  let found = 0;
  let flaggedReturned = 0;
  let excludedReturned = 0;
  for (let j = 0; j < qs.length; j++) {
    const q = qs[j];
    const vector = vectorOf(q.row);
    const excludeIds = q.exclude.map((r) => uuid(r + 1));
    const t = performance.now();
    const hits = await store.search(COLLECTION, { vector, k: q.k, excludeIds });
    lat.push(performance.now() - t);
    const rows = hits.map((h) => rowOf(h.id));
    flaggedReturned += rows.filter(flagged).length;
    excludedReturned += rows.filter((r) => q.exclude.includes(r)).length;
    const ten = await store.search(COLLECTION, { vector, k: 10, excludeIds });
    const exact = new Set(truth[j]);
    found += ten.filter((h) => exact.has(rowOf(h.id))).length;
  }
  return { lat, found, flaggedReturned, excludedReturned };
}

async function pgIndexExists(url: string): Promise<boolean> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(`SELECT 1 FROM pg_indexes WHERE indexname LIKE '%\\_hnsw'`);
    return (r.rowCount ?? 0) > 0;
  } finally {
    await c.end();
  }
}

/**
 * `--pg-huge-pages`: Postgres' shared buffers in 2 MB huge pages (huge_pages=on), reserving them first
 * (vm.nr_hugepages; needs root) when fewer are reserved. Without them every new backend takes a page
 * fault on each 4 kB of shared memory it touches for the first time: on this VM a fresh connection's
 * search over a 1M-row HNSW index measured p50 15-18 ms against 3-4 ms once the same pages had been
 * touched by that backend, and 4.2 ms with huge pages from the first query (docs/results.md).
 */
function reserveHugePages(sharedBuffers: string): void {
  const m = /^(\d+)\s*(MB|GB)$/i.exec(sharedBuffers);
  if (!m) throw new Error(`--pg-huge-pages needs --pg-shared-buffers in MB or GB, got ${sharedBuffers}`);
  const need = Math.ceil((Number(m[1]) * (m[2].toUpperCase() === 'GB' ? 1024 : 1)) / 2) + 64; // + Postgres' other shared memory
  const file = '/proc/sys/vm/nr_hugepages';
  const have = Number(fs.readFileSync(file, 'utf8').trim());
  if (have >= need) return;
  try {
    fs.writeFileSync(file, String(need));
  } catch (e) {
    throw new Error(`--pg-huge-pages: ${have} huge pages reserved, ${need} needed, and ${file} cannot be written (${(e as Error).message}); run as root or: sysctl vm.nr_hugepages=${need}`);
  }
  const got = Number(fs.readFileSync(file, 'utf8').trim());
  if (got < need) throw new Error(`--pg-huge-pages: asked the kernel for ${need} huge pages, got ${got} (memory too fragmented or too small)`);
  log(`reserved ${got} huge pages (vm.nr_hugepages, was ${have})`);
}

/** Reads the table and its HNSW index into shared buffers / the OS cache (contrib pg_prewarm). */
async function pgPrewarm(url: string): Promise<void> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    const r = await c.query<{ idx: string; tbl: string }>(`SELECT schemaname || '.' || indexname AS idx, schemaname || '.' || tablename AS tbl
      FROM pg_indexes WHERE indexname LIKE '%\\_hnsw'`);
    // The table into the OS cache only, then the index into shared buffers (the other order would evict the index).
    for (const { idx, tbl } of r.rows) {
      await c.query(`SELECT pg_prewarm($1::regclass, 'read')`, [tbl]);
      await c.query(`SELECT pg_prewarm($1::regclass, 'read')`, [idx]);
      await c.query(`SELECT pg_prewarm($1::regclass)`, [idx]);
    }
  } finally {
    await c.end();
  }
}

async function pgvectorRun(truth: number[][]): Promise<Record<string, unknown>> {
  const texts = loadTexts();
  const ef = Number(arg('ef', String(DEFAULT_PGVECTOR_EF_SEARCH)));
  const mwm = arg('pg-mwm', '3GB');
  const pgDir = arg('pg-dir', '') || undefined;
  const sharedBuffers = arg('pg-shared-buffers', '1GB');
  const hugePages = process.argv.includes('--pg-huge-pages');
  if (hugePages) reserveHugePages(sharedBuffers);
  const cluster = await startPgVectorCluster({
    settings: {
      shared_buffers: sharedBuffers, max_parallel_maintenance_workers: '1', max_wal_size: '8GB', checkpoint_timeout: '30min',
      ...(hugePages ? { huge_pages: 'on' } : {}),
    },
    ...(pgDir ? { dir: pgDir } : {}),
  });
  log(`pgvector cluster on port ${cluster.port} (shared_buffers ${sharedBuffers}${hugePages ? ' in huge pages' : ''}, maintenance_work_mem ${mwm}, ef_search ${ef})${pgDir ? `, kept in ${pgDir}` : ''}`);
  const store = new PgVectorStore({ url: cluster.url, indexOnCreate: false, efSearch: ef });
  try {
    await store.ensureCollection(COLLECTION, DIM);
    // --pg-dir with a finished load of the same size (the index is built last): measure the searches again only.
    const pgReused = pgDir !== undefined && (await store.count(COLLECTION)) === N && (await pgIndexExists(cluster.url));
    const pgSaved = pgDir ? path.join(pgDir, 'load.json') : '';
    if (pgReused) log(`pgvector: reusing the ${N} rows and the HNSW index in ${pgDir}`);
    else if (pgDir && (await store.count(COLLECTION)) > 0) throw new Error(`--pg-dir ${pgDir} holds a different or unfinished load: remove the directory`);
    const t0 = performance.now();
    for (let start = 0; start < (pgReused ? 0 : N); start += CHUNK) {
      const records: (VectorRecord & { quarantined?: boolean })[] = [];
      for (let row = start; row < Math.min(N, start + CHUNK); row++) {
        records.push({ id: uuid(row + 1), vector: vectorOf(row), text: texts[row % texts.length], payload: { externalId: `doc-${row}` }, ...(flagged(row) ? { quarantined: true } : {}) });
      }
      await store.upsert(COLLECTION, records);
      if ((start / CHUNK) % 10 === 9 || start + CHUNK >= N) log(`pgvector ingested ${Math.min(N, start + CHUNK)}/${N} (${Math.round(Math.min(N, start + CHUNK) / ((performance.now() - t0) / 1000))}/s)`);
    }
    let ingestSec = (performance.now() - t0) / 1000;
    let indexBuildSec = 0;
    if (pgReused) {
      ({ ingestSec, indexBuildSec } = JSON.parse(fs.readFileSync(pgSaved, 'utf8')) as { ingestSec: number; indexBuildSec: number });
      await pgPrewarm(cluster.url); // a restarted server starts cold; a serving one has its index in memory
    } else {
      log('pgvector: building the HNSW index…');
      const t1 = performance.now();
      await store.buildIndex(COLLECTION, { maintenanceWorkMem: mwm, parallelWorkers: 1 });
      indexBuildSec = (performance.now() - t1) / 1000;
      log(`pgvector: index built in ${indexBuildSec.toFixed(1)} s`);
      if (pgDir) fs.writeFileSync(pgSaved, JSON.stringify({ ingestSec, indexBuildSec }));
    }
    const qs = queries();
    const { lat, found, flaggedReturned, excludedReturned } = await measureSearches(store, qs, truth);
    const recallAt10 = found / (qs.length * 10);
    log(`pgvector searches: p50 ${percentile(lat, 0.5).toFixed(1)} ms, p99 ${percentile(lat, 0.99).toFixed(1)} ms, recall@10 ${recallAt10.toFixed(4)}`);
    const pss = pssMb(cluster.pid()) + (hugePages ? hugePagesInUseMb() : 0);
    const other = new PgVectorStore({ url: cluster.url, efSearch: ef });
    const foreignMs: number[] = [];
    let seen = 0;
    for (let round = 0; round < FOREIGN_ROUNDS; round++) {
      const q = qs[round];
      const base = N + 1000 + round * 1000;
      await other.upsert(COLLECTION, Array.from({ length: 100 }, (_, i) => ({ id: uuid(base + i), vector: i === 0 ? vectorOf(q.row) : vectorOf(base + i), text: `foreign write ${round}.${i}` })));
      await other.setQuarantined(COLLECTION, foreignFlagged(round).map((r) => uuid(r + 1)), true);
      const t = performance.now();
      const hits = await store.search(COLLECTION, { vector: vectorOf(q.row), k: q.k, excludeIds: q.exclude.map((r) => uuid(r + 1)) });
      foreignMs.push(performance.now() - t);
      if (hits.some((h) => h.id === uuid(base))) seen++;
      await other.delete(COLLECTION, foreignIds(round));
      await other.setQuarantined(COLLECTION, foreignFlagged(round).filter((r) => !flagged(r)).map((r) => uuid(r + 1)), false);
    }
    await other.close();
    // --ef-sweep 200,400: recall@10 and latency of the same queries at other hnsw.ef_search values (same index).
    const sweep: Record<string, { p50Ms: number; p99Ms: number; recallAt10: number }> = {};
    for (const e of arg('ef-sweep', '').split(',').filter(Boolean).map(Number)) {
      const s2 = new PgVectorStore({ url: cluster.url, efSearch: e });
      const l2: number[] = [];
      let f2 = 0;
      for (let j = 0; j < qs.length; j++) {
        const q = qs[j];
        const excludeIds = q.exclude.map((r) => uuid(r + 1));
        const t = performance.now();
        await s2.search(COLLECTION, { vector: vectorOf(q.row), k: q.k, excludeIds });
        l2.push(performance.now() - t);
        const ten = await s2.search(COLLECTION, { vector: vectorOf(q.row), k: 10, excludeIds });
        const set = new Set(truth[j]);
        f2 += ten.filter((h) => set.has(rowOf(h.id))).length;
      }
      await s2.close();
      sweep[String(e)] = { p50Ms: +percentile(l2, 0.5).toFixed(1), p99Ms: +percentile(l2, 0.99).toFixed(1), recallAt10: +(f2 / (qs.length * 10)).toFixed(4) };
      log(`pgvector ef_search ${e}: ${JSON.stringify(sweep[String(e)])}`);
    }
    return {
      store: 'pgvector', texts: N, vectors: KIND, ingestPerSec: Math.round(N / ingestSec), index: 'hnsw(m=16,ef_construction=64)', indexBuildSec: +indexBuildSec.toFixed(1), reused: pgReused,
      maintenanceWorkMem: mwm, sharedBuffers, hugePages, efSearch: ef,
      searchP50Ms: +percentile(lat, 0.5).toFixed(1), searchP99Ms: +percentile(lat, 0.99).toFixed(1),
      foreignWriteNextSearchMs: +percentile(foreignMs, 0.5).toFixed(1), foreignWriteSeen: `${seen}/${FOREIGN_ROUNDS}`,
      postgresPssMb: pss, recallAt10: +recallAt10.toFixed(4), quarantinedReturned: flaggedReturned, excludedReturned, efSweep: sweep,
      cores: os.cpus().length, load1: +os.loadavg()[0].toFixed(2),
    };
  } finally {
    await store.close();
    await cluster.stop();
  }
}

// ---- the searching process ----------------------------------------------------------------------

async function main(): Promise<void> {
  const dir = arg('dir', '') || fs.mkdtempSync(path.join(os.tmpdir(), 'scale-bench-'));
  const keep = process.argv.includes('--keep');
  log(`${N} texts, ${KIND} ${DIM}-d vectors, ${QUERIES} queries, dir ${dir}, ${os.cpus().length} cores`);
  try {
    const saved = path.join(dir, 'writer.json');
    const reuse = process.argv.includes('--reuse') && fs.existsSync(saved);
    if (reuse) log(`reusing the ingested data and exact truth in ${dir}`);
    const w = JSON.parse(reuse ? fs.readFileSync(saved, 'utf8') : await runChild('writer', dir)) as { ingestPerSec: number; indexBuildSec: number; index?: string; truth: number[][] };
    const nprobes = arg('nprobes', '') ? Number(arg('nprobes', '')) : undefined; // default: the store's (VECTOR_ANN_NPROBES)
    const refineFactor = arg('refine', '') ? Number(arg('refine', '')) : undefined;
    const store = new LanceDbVectorStore({ dir, nprobes, refineFactor, annIndex: INDEX });
    if (reuse && (w.index ?? 'ivf_pq') !== INDEX) {
      log(`rebuilding the index as ${INDEX} (the directory has ${w.index ?? 'ivf_pq'})…`);
      const t = performance.now();
      await store.buildIndex(COLLECTION);
      w.indexBuildSec = +((performance.now() - t) / 1000).toFixed(1);
      w.index = INDEX;
      log(`index built in ${w.indexBuildSec} s`);
    }
    if (arg('dir', '')) fs.writeFileSync(saved, JSON.stringify(w));
    const qs = queries();
    const path0 = await store.servingPath(COLLECTION);
    log(`serving path: ${path0}`);
    const { lat, found, flaggedReturned, excludedReturned } = await measureSearches(store, qs, w.truth);
    const recallAt10 = found / (qs.length * 10);
    log(`searches: p50 ${percentile(lat, 0.5).toFixed(1)} ms, p99 ${percentile(lat, 0.99).toFixed(1)} ms, recall@10 ${recallAt10.toFixed(4)}, quarantined returned ${flaggedReturned}, excluded returned ${excludedReturned}`);
    const rss = rssMb();

    const foreignMs: number[] = [];
    let foreignSeen = 0;
    for (let round = 0; round < FOREIGN_ROUNDS; round++) {
      const q = qs[round];
      const { newId } = JSON.parse(await runChild('foreign', dir, ['--round', String(round), '--target', String(q.row)])) as { newId: string };
      const t = performance.now();
      const hits = await store.search(COLLECTION, { vector: vectorOf(q.row), k: q.k, excludeIds: q.exclude.map((r) => uuid(r + 1)) });
      foreignMs.push(performance.now() - t);
      if (hits.some((h) => h.id === newId)) foreignSeen++;
      log(`foreign write ${round}: next search ${foreignMs[round].toFixed(1)} ms, new text ${hits.some((h) => h.id === newId) ? 'seen' : 'NOT seen'}`);
      // undo it (untimed), so the data stay as ingested (--reuse) and the next round is alike
      await store.delete(COLLECTION, foreignIds(round));
      await store.setQuarantined(COLLECTION, foreignFlagged(round).filter((r) => !flagged(r)).map((r) => uuid(r + 1)), false);
    }
    // The same searches again, now that the foreign writes' quarantines and restores are in (when they
    // were LanceDB updates of the indexed rows, every later search paid for them).
    const latAfter: number[] = [];
    for (const q of qs.slice(0, 100)) {
      const t = performance.now();
      await store.search(COLLECTION, { vector: vectorOf(q.row), k: q.k, excludeIds: q.exclude.map((r) => uuid(r + 1)) });
      latAfter.push(performance.now() - t);
    }
    log(`searches after the foreign writes' quarantines: p50 ${percentile(latAfter, 0.5).toFixed(1)} ms`);
    const line = {
      texts: N,
      vectors: KIND,
      ingestPerSec: w.ingestPerSec,
      index: INDEX,
      indexBuildSec: w.indexBuildSec,
      reused: reuse,
      servingPath: path0,
      nprobes: nprobes ?? 'default',
      refine: refineFactor ?? 'default',
      searchP50Ms: +percentile(lat, 0.5).toFixed(1),
      searchP99Ms: +percentile(lat, 0.99).toFixed(1),
      searchP50AfterQuarantinesMs: +percentile(latAfter, 0.5).toFixed(1),
      foreignWriteNextSearchMs: +percentile(foreignMs, 0.5).toFixed(1),
      foreignWriteNextSearchMaxMs: +Math.max(...foreignMs).toFixed(1),
      foreignWriteSeen: `${foreignSeen}/${FOREIGN_ROUNDS}`,
      rssMb: rss,
      recallAt10: +recallAt10.toFixed(4),
      quarantinedReturned: flaggedReturned,
      excludedReturned,
      cores: os.cpus().length,
      load1: +os.loadavg()[0].toFixed(2),
    };
    await store.close();
    process.stdout.write(`${JSON.stringify(arg('store', 'lancedb') === 'pgvector' ? { store: 'lancedb', ...line } : line)}\n`);
    if (arg('store', 'lancedb') === 'pgvector') process.stdout.write(`${JSON.stringify(await pgvectorRun(w.truth))}\n`);
  } finally {
    if (!keep && !arg('dir', '')) fs.rmSync(dir, { recursive: true, force: true });
  }
}

const role = arg('role', '');
const run = role === 'writer' ? writer(arg('dir', '')) : role === 'foreign' ? foreign(arg('dir', '')) : main();
run.catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
