/**
 * Worker throughput benchmark (issue 15, item 3).
 *
 *   npm run -s bench:worker -- [--texts 100000] [--events 50] [--workers 1,2] [--data-dir DIR] [--cpu-prof DIR] [--env KEY=VALUE ...]
 *   npm run -s bench:worker -- --shape production [--workers 2] [--events 60] [--after-ingest 30]
 *
 * `--shape production` (issue 57 item 5) is the shape docs/operations.md describes for production: pgvector in the
 * embedded PostgreSQL 15 (VECTOR_STORE=pgvector), the embedded Redis with AOF, evidence and judge at their defaults,
 * only PoisonedRAG NQ questions with every clean and planted text of theirs (`--dataset poisonedrag_nq
 * --clean-per-question all --texts 0`: no filler), 60 events, two worker processes. The file has 100 questions, so run
 * `--workers 1` and `--workers 2` as two invocations (each a fresh cluster). After the runs, `--after-ingest N`
 * more questions' texts are ingested into the traced collection with the admission check on (the traced events'
 * questions watched), and a JSON line gives that ingest's rate and what the check held; `--holds FILE` writes each hold
 * (planted or genuine, the reason recorded, the text) as a JSON line.
 *
 * 1. A collection of `--texts` texts on embedded Postgres + Redis + the embedded vector store.
 *    Embedding 100k texts with the default embedder (USE-lite, TF.js wasm) is out of reach on 2
 *    shared cores (measured here: 4–20 texts/s, i.e. 1.5–7 hours), so the collection is built in
 *    two parts, and the output says which is which:
 *    - real: the questions' poisoned texts and their first `--clean-per-question` clean passages,
 *      ingested through the IngestCorpus use case (`npm run ingest`'s path) with the configured
 *      embedder; the ingest rate is printed;
 *    - filler: the other passages of ../shared/data/*.jsonl, cycled into distinct variants
 *      (sentences rotated, a revision note) up to `--texts`, registered in Postgres and written
 *      to the store directly in batches of 5,000 with RANDOM unit vectors of the embedder's
 *      dimension (not embedded). They make every search scan 100k vectors, but, being unrelated
 *      to the queries, they do not enter the top-K: the traceback's work is the real part's.
 *    `--data-dir` keeps the collection for the next run (a second run only checks it).
 * 2. For each worker count W: W worker processes (bench/worker-timed.ts = the production worker with
 *    per-event timing wrappers, WORKER_CONCURRENCY as configured, offline judge), then `--events`
 *    feedback events submitted at once through SubmitFeedback (PoisonedRAG NQ / HotpotQA questions
 *    with their target wrong answers; each worker count gets questions of its own, so the
 *    cross-event verdict cache does not hand it the previous run's verdicts), and the time until
 *    every event is terminal. One JSON line per worker count:
 *    {"workers","events","eventsPerMin","p50Ms","p95Ms","judgeConcurrencyMax","timeShare":{…},"cores","load1",…}
 *    latency = received (createdAt) → terminal (updatedAt of TRACED/BOUNDED/FAILED); timeShare =
 *    each kind's wall time over the events' processing time, summed over events (bench/worker-timed.ts);
 *    steps = where an event's time goes by traceback step (load, retrieve, judge, evidence, decide, topUp,
 *    persist, verify, enhance, other): mean self milliseconds per event and share of the events' processing time.
 * `--cpu-prof DIR` runs each worker process under `node --cpu-prof` and leaves its .cpuprofile in DIR.
 * Needs ../shared/data (exits with a message when it is absent).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { DOCUMENTS, documentIdFor, EMBEDDER, IngestCorpusUseCase, SubmitFeedbackUseCase, textHash, VECTOR_STORE, type DocumentRepository, type Embedder, type VectorStore } from '../libs/core/src';
import { CoreModule, InfrastructureModule, loadConfig } from '../libs/infra/src';
import { startEmbeddedPostgres, startEmbeddedRedis } from '../libs/infra/src/runtime/embedded-services';
import { startPgVectorCluster, type PgVectorCluster } from '../test/support/pgvector-cluster';

const ROOT = resolve(__dirname, '..');
const DATA_DIR = resolve(ROOT, '..', 'shared', 'data');
const COLLECTION = 'bench100k';
const log = (m: string) => process.stderr.write(`[bench:worker] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Args {
  texts: number; events: number; cleanPerQuestion: number; workers: number[]; dataDir: string | null; cpuProf: string | null; env: Record<string, string>; timeoutS: number;
  shape: 'bench' | 'production'; dataset: string | null; afterIngest: number; holdsFile: string | null;
}
function parseArgs(argv: string[]): Args {
  const a: Args = { texts: 100_000, events: 50, cleanPerQuestion: 10, workers: [1, 2], dataDir: null, cpuProf: null, env: {}, timeoutS: 3600, shape: 'bench', dataset: null, afterIngest: 0, holdsFile: null };
  // The production shape's defaults first, so flags after it override them.
  if (argv.some((x, i) => x === '--shape=production' || (x === '--shape' && argv[i + 1] === 'production'))) {
    Object.assign(a, { shape: 'production', texts: 0, events: 60, workers: [2], cleanPerQuestion: Number.POSITIVE_INFINITY, dataset: 'poisonedrag_nq', afterIngest: 30 });
    a.env = { VECTOR_STORE: 'pgvector' };
  }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => inline ?? argv[++i];
    switch (flag) {
      case '--texts': a.texts = Number(val()); break;
      case '--events': a.events = Number(val()); break;
      case '--clean-per-question': { const v = val(); a.cleanPerQuestion = v === 'all' ? Number.POSITIVE_INFINITY : Number(v); break; }
      case '--shape': { const v = val(); if (v !== 'production' && v !== 'bench') throw new Error(`--shape is 'production' or 'bench', not '${v}'`); break; }
      case '--dataset': a.dataset = val(); break;
      case '--after-ingest': a.afterIngest = Number(val()); break;
      case '--holds': a.holdsFile = resolve(val()); break;
      case '--workers': a.workers = val().split(',').map(Number); break;
      case '--data-dir': a.dataDir = resolve(val()); break;
      case '--cpu-prof': a.cpuProf = resolve(val()); break;
      case '--timeout-s': a.timeoutS = Number(val()); break;
      case '--env': { const [k, v] = val().split(/=(.*)/s, 2); a.env[k] = v ?? ''; break; }
      default: throw new Error(`unknown argument ${argv[i]} (see the header of bench/worker.bench.ts)`);
    }
  }
  if (!(a.texts >= 0 && a.events > 0 && a.workers.every((w) => w >= 1) && a.afterIngest >= 0 && a.cleanPerQuestion >= 0)) {
    throw new Error('--events and --workers must be positive; --texts, --after-ingest and --clean-per-question at least 0');
  }
  return a;
}

interface Row { question: string; incorrect_answer: string; dataset?: string; poisoned_texts?: string[]; clean_texts?: string[]; clean_texts_bge?: string[]; gold_texts?: string[] }

interface Question { query: string; wrongAnswer: string; poisoned: string[]; clean: string[] }

function loadData(dataset: string | null): { texts: string[]; questions: Question[] } {
  const seen = new Set<string>();
  const texts: string[] = [];
  const questions: Question[] = [];
  for (const f of readdirSync(DATA_DIR).filter((n) => n.endsWith('.jsonl')).sort()) {
    for (const line of readFileSync(join(DATA_DIR, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as Row;
      for (const t of [...(r.poisoned_texts ?? []), ...(r.gold_texts ?? []), ...(r.clean_texts ?? []), ...(r.clean_texts_bge ?? [])]) {
        if (typeof t === 'string' && t.trim() && !seen.has(t)) { seen.add(t); texts.push(t); }
      }
      if ((dataset ? f === `${dataset}.jsonl` : f.startsWith('poisonedrag_')) && r.question && r.incorrect_answer) {
        questions.push({ query: r.question, wrongAnswer: r.incorrect_answer, poisoned: r.poisoned_texts ?? [], clean: r.clean_texts ?? [] });
      }
    }
  }
  return { texts, questions };
}

/** Random unit vector (deterministic per index: mulberry32). */
function randomUnit(dim: number, seed: number): Float32Array {
  let a = seed >>> 0;
  const rand = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) { v[i] = rand() * 2 - 1; n += v[i] * v[i]; }
  n = Math.sqrt(n);
  for (let i = 0; i < dim; i++) v[i] /= n;
  return v;
}

/** n distinct texts: the real ones, then variants (sentence order rotated, a revision note). */
function corpus(base: string[], n: number): string[] {
  const out: string[] = [];
  for (let c = 0; out.length < n; c++) {
    for (const t of base) {
      if (out.length >= n) break;
      if (c === 0) { out.push(t); continue; }
      const s = t.split(/(?<=[.!?])\s+/);
      const r = s.length > 1 ? [...s.slice(c % s.length), ...s.slice(0, c % s.length)].join(' ') : t;
      out.push(`${r} (revision ${c})`);
    }
  }
  return out;
}

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0; };

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(DATA_DIR)) { console.error(`bench:worker needs ../shared/data (${DATA_DIR} is absent)`); process.exit(2); }
  const cores = os.cpus().length;
  const dataDir = args.dataDir ?? mkdtempSync(join(os.tmpdir(), 'worker-bench-'));
  mkdirSync(dataDir, { recursive: true });
  if (args.cpuProf) mkdirSync(args.cpuProf, { recursive: true });
  log(`${args.shape === 'production' ? 'production shape: ' : ''}data dir ${dataDir}; ${args.texts} texts, ${args.events} events, workers ${args.workers.join(',')}; load ${os.loadavg()[0].toFixed(2)} on ${cores} cores`);
  // The production shape: one PostgreSQL 15 with pgvector (Debian's server, as the pgvector tests start it) holding
  // both the service's tables and the vectors, durable writes on (the test clusters turn fsync off).
  if (args.shape === 'production') chmodSync(dataDir, 0o755); // the cluster runs as the postgres user when we are root
  const pg = args.shape === 'production'
    ? await startPgVectorCluster({ settings: { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' }, dir: join(dataDir, 'pgvector') })
    : await startEmbeddedPostgres(dataDir, log);
  if (args.shape === 'production') log(`PostgreSQL 15 with pgvector on 127.0.0.1:${(pg as PgVectorCluster).port} (fsync on)`);
  const redis = await startEmbeddedRedis(dataDir, log);
  const env: Record<string, string> = {
    DATA_DIR: dataDir, DATABASE_URL: pg.url, REDIS_URL: redis.url, JUDGE: 'offline', API_KEYS: 'bench-key-0123456789abcdef', FEEDBACK_TOKEN_SECRET: 'bench-secret-0123456789abcdef0123456789', ...args.env,
  };
  const config = loadConfig({ ...process.env, ...env }, ROOT);
  const children: ChildProcess[] = [];
  const app = await NestFactory.createApplicationContext({ module: class WorkerBenchModule {}, imports: [InfrastructureModule.forRoot(config), CoreModule] }, { logger: ['error', 'warn'] });
  const db = new Client({ connectionString: pg.url });
  await db.connect();
  try {
    const { texts: all, questions } = loadData(args.dataset);
    if (args.dataset && !questions.length) throw new Error(`--dataset ${args.dataset}: no ${args.dataset}.jsonl with questions in ${DATA_DIR}`);
    // Each worker count gets questions of its own (the verdict cache is shared across events).
    const shuffled = questions.map((q, i) => ({ q, k: (i * 2654435761) % 4294967291 })).sort((a, b) => a.k - b.k).map((x) => x.q);
    const runsNeed = args.events * args.workers.length;
    if (shuffled.length < runsNeed + args.afterIngest) throw new Error(`only ${shuffled.length} questions for ${args.events} events × ${args.workers.length} runs and ${args.afterIngest} ingested after`);
    const used = shuffled.slice(0, runsNeed);
    const real = [...new Set(used.flatMap((q) => [...q.poisoned, ...q.clean.slice(0, args.cleanPerQuestion)]))];
    const embedder = app.get<Embedder>(EMBEDDER);
    const store = app.get<VectorStore>(VECTOR_STORE);
    const documents = app.get<DocumentRepository>(DOCUMENTS);
    // Ingest through the service's use case, a progress line every 15 s; the result and its seconds.
    const ingestTimed = async (label: string, texts: readonly string[]) => {
      const t0 = performance.now();
      let lastLog = 0;
      const res = await app.get(IngestCorpusUseCase).execute({
        collection: COLLECTION, records: texts.map((text) => ({ text })),
        onProgress: (p) => { if (performance.now() - lastLog > 15_000) { lastLog = performance.now(); log(`${label} ${p.done}/${p.total} (${p.skipped} already present), ${(p.done / ((performance.now() - t0) / 1000)).toFixed(1)} texts/s; load ${os.loadavg()[0].toFixed(2)}`); } },
      });
      return { res, seconds: (performance.now() - t0) / 1000 };
    };
    const { res: ing, seconds: ingestS } = await ingestTimed('ingest', real);
    // Filler: distinct texts not in the real part, random vectors, written in big batches.
    const realSet = new Set(real);
    const fillerCount = Math.max(0, args.texts - real.length);
    const filler = corpus(all.filter((t) => !realSet.has(t)), fillerCount);
    await embedder.init();
    const t1 = performance.now();
    let fillerInserted = 0;
    for (let i = 0; i < filler.length; i += 5000) {
      const part = filler.slice(i, i + 5000).map((text) => { const hash = textHash(text); return { id: documentIdFor(COLLECTION, hash), hash, text }; });
      const fresh = new Set((await documents.findByHashes(COLLECTION, part.map((p) => p.hash))).map((d) => d.textHash));
      const missing = part.filter((p) => !fresh.has(p.hash));
      if (!missing.length) continue;
      fillerInserted += await documents.insert(missing.map((p) => ({ id: p.id, collection: COLLECTION, externalId: null, textHash: p.hash, text: p.text, metadata: { filler: true } })));
      await store.upsert(COLLECTION, missing.map((p) => ({ id: p.id, vector: randomUnit(embedder.dimension, Number.parseInt(p.hash.slice(0, 8), 16)), text: p.text, payload: { externalId: null, metadata: { filler: true } } })));
      log(`filler ${Math.min(i + 5000, filler.length)}/${filler.length}; load ${os.loadavg()[0].toFixed(2)}`);
    }
    const ingest = {
      real: { texts: real.length, inserted: ing.inserted, seconds: +ingestS.toFixed(1), perSec: ing.inserted ? +(ing.inserted / ingestS).toFixed(1) : null, embedder: embedder.id },
      filler: { texts: filler.length, inserted: fillerInserted, seconds: +((performance.now() - t1) / 1000).toFixed(1), vectors: 'random unit, not embedded' },
      store: store.kind, count: await store.count(COLLECTION), load1: +os.loadavg()[0].toFixed(2),
    };
    console.log(JSON.stringify({ ingest }));

    for (const [runIdx, workers] of args.workers.entries()) {
      const timings = join(dataDir, `timings-${Date.now()}-w${workers}.jsonl`);
      const procs: ChildProcess[] = [];
      for (let w = 0; w < workers; w++) {
        const c = spawn(process.execPath, ['--import', 'tsx', ...(args.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', args.cpuProf] : []), join(ROOT, 'bench', 'worker-timed.ts')], { cwd: ROOT, env: { ...process.env, ...env, TIMINGS_FILE: timings }, stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(c); procs.push(c);
        await new Promise<void>((res, rej) => {
          c.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) res(); });
          c.once('exit', (code) => rej(new Error(`worker exited with ${code} during start`)));
        });
      }
      log(`${workers} worker process(es) ready; submitting ${args.events} events; load ${os.loadavg()[0].toFixed(2)}`);
      const submit = app.get(SubmitFeedbackUseCase);
      const mine = shuffled.slice(runIdx * args.events, (runIdx + 1) * args.events);
      const start = Date.now();
      const ids = (await Promise.all(mine.map((q) => submit.execute({ collection: COLLECTION, query: q.query, wrongAnswer: q.wrongAnswer, reporter: 'bench', idempotencyKey: null })))).map((r) => r.event.id);
      const until = Date.now() + args.timeoutS * 1000;
      let rows: { id: string; status: string; createdAt: Date; updatedAt: Date }[] = [];
      let loadMax = 0;
      for (;;) {
        rows = (await db.query('SELECT id, status, "createdAt", "updatedAt" FROM "FeedbackEvent" WHERE id = ANY($1::uuid[])', [ids])).rows;
        loadMax = Math.max(loadMax, os.loadavg()[0]);
        const done = rows.filter((r) => ['TRACED', 'BOUNDED', 'FAILED'].includes(r.status)).length;
        if (done === ids.length) break;
        if (Date.now() > until) throw new Error(`${ids.length - done} events not terminal after ${args.timeoutS} s`);
        await sleep(500);
      }
      const load1 = os.loadavg()[0];
      for (const c of procs) c.kill('SIGTERM');
      await Promise.all(procs.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))));
      // Postgres stores timestamps without zone, in UTC: read them as UTC.
      const utc = (d: Date) => d.getTime() - d.getTimezoneOffset() * 60_000;
      const latencies = rows.map((r) => utc(r.updatedAt) - utc(r.createdAt));
      const spanMs = Math.max(...rows.map((r) => utc(r.updatedAt))) - start;
      const recs = readFileSync(timings, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { totalMs: number; ms: Record<string, number>; steps: Record<string, number>; calls?: Record<string, [number, number]>; judgeCalls: number; judgeInFlightMaxProcess: number });
      const total = recs.reduce((a, r) => a + r.totalMs, 0);
      const share = (k: string) => +(recs.reduce((a, r) => a + r.ms[k], 0) / total).toFixed(3);
      // Mean per event of each timed port method: [calls, ms] (wall time; calls of one event may overlap).
      const byCall: Record<string, [number, number]> = {};
      for (const r of recs) for (const [k, [n, ms]] of Object.entries(r.calls ?? {})) { const c = (byCall[k] ??= [0, 0]); c[0] += n; c[1] += ms; }
      const callsPerEvent = Object.fromEntries(Object.entries(byCall).sort((a, b) => b[1][1] - a[1][1]).map(([k, [n, ms]]) => [k, [+(n / recs.length).toFixed(1), Math.round(ms / recs.length)]]));
      const timeShare = { retrieval: share('retrieval'), judge: share('judge'), evidence: share('evidence'), postgres: share('postgres') };
      // Where an event's time goes, step by step (self times, bench/worker-timed.ts): mean ms per event and share.
      const stepMs: Record<string, number> = {};
      for (const r of recs) for (const [k, v] of Object.entries(r.steps ?? {})) stepMs[k] = (stepMs[k] ?? 0) + v;
      stepMs.other = Math.max(0, total - Object.values(stepMs).reduce((a, b) => a + b, 0));
      const steps = Object.fromEntries(Object.entries(stepMs).map(([k, v]) => [k, { ms: Math.round(v / Math.max(1, recs.length)), share: +(v / Math.max(1, total)).toFixed(3) }]));
      console.log(JSON.stringify({
        workers, events: ids.length, eventsPerMin: +((ids.length / spanMs) * 60_000).toFixed(1), p50Ms: Math.round(pct(latencies, 0.5)), p95Ms: Math.round(pct(latencies, 0.95)),
        judgeConcurrencyMax: Math.max(0, ...recs.map((r) => r.judgeInFlightMaxProcess)), // other = verify/enhance/loop code outside the timed calls (≥ 0; a Postgres call straddling the evidence stretch's edge counts twice).
        timeShare: { ...timeShare, other: Math.max(0, +(1 - Object.values(timeShare).reduce((a, b) => a + b, 0)).toFixed(3)) },
        steps,
        perEventMs: { mean: Math.round(total / Math.max(1, recs.length)), judgeCalls: +(recs.reduce((a, r) => a + r.judgeCalls, 0) / Math.max(1, recs.length)).toFixed(1), calls: callsPerEvent },
        evidence: config.evidence.enabled, statuses: rows.reduce<Record<string, number>>((a, r) => ({ ...a, [r.status]: (a[r.status] ?? 0) + 1 }), {}),
        shape: args.shape, timed: recs.length, texts: ingest.count, realTexts: real.length, workerConcurrency: config.queue.workerConcurrency, judge: config.judge.kind, embedder: embedder.id, store: store.kind, cores, load1: +load1.toFixed(2), load1Max: +loadMax.toFixed(2),
      }));
    }
    if (args.afterIngest > 0) {
      // New questions' texts into the traced collection: the admission check watches the traced events' questions.
      const after = shuffled.slice(runsNeed, runsNeed + args.afterIngest);
      const planted = new Set(after.flatMap((q) => q.poisoned));
      const texts = [...new Set(after.flatMap((q) => [...q.poisoned, ...q.clean.slice(0, args.cleanPerQuestion)]))].filter((t) => !realSet.has(t));
      log(`ingesting ${texts.length} texts of ${after.length} new questions after the traces (admission check ${!config.audits.admission.enabled ? 'off' : 'on'}); load ${os.loadavg()[0].toFixed(2)}`);
      const { res, seconds } = await ingestTimed('after-trace ingest', texts);
      // Every hold with the reason the check recorded (--holds: for reading why a genuine text was kept out).
      const held = (await db.query('SELECT d.text, q.reason FROM "QuarantineRecord" q JOIN "Document" d ON d.id = q."documentId" WHERE q."documentId" = ANY($1::uuid[])', [res.admission.heldIds])).rows as { text: string; reason: string }[];
      const heldPlanted = held.filter((h) => planted.has(h.text)).length;
      if (args.holdsFile) {
        writeFileSync(args.holdsFile, held.map((h) => `${JSON.stringify({ planted: planted.has(h.text), reason: h.reason, text: h.text })}\n`).join(''));
        log(`${held.length} holds with their reasons in ${args.holdsFile}`);
      }
      console.log(JSON.stringify({
        ingestAfterTrace: {
          questions: after.length, texts: texts.length, inserted: res.inserted, seconds: +seconds.toFixed(1), perSec: +(res.inserted / seconds).toFixed(1),
          admission: { watched: res.admission.watched, judged: res.admission.judged, held: res.admission.held, heldGenuine: res.admission.held - heldPlanted, heldPlanted },
          embedder: embedder.id, store: store.kind, cores, load1: +os.loadavg()[0].toFixed(2),
        },
      }));
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await db.end().catch(() => {});
    await app.close().catch(() => {});
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
    if (!args.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack ?? e.message : String(e));
  process.exit(1);
});
