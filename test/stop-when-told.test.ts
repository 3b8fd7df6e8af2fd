/**
 * A service that stops when told (issue 54): `npm start` backgrounded from a shell as
 * docs/getting-started.md does it (`npm start > log 2>&1 &`, `SERVICE_PID=$!`), then stopped the way
 * a user stops it — `kill $SERVICE_PID`, that one PID, no process group — and nothing of it may be
 * left: not the API, not a worker, not the embedded PostgreSQL or Redis. Also when the process that
 * owns them dies without a word (SIGKILL): its children notice and exit. Embedded defaults only (a
 * fresh DATA_DIR, a free PORT, no external URL), one data dir across the cases, so each start is
 * also a restart after the previous kind of stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forensics/infra';
import { processesOf, running } from './support/service-processes';
import { eventually, ROOT } from './support/test-runtime';

const STOP_WITHIN_MS = 10_000;
/** A SIGKILLed owner cannot stop anything itself: its children notice (≤ 1 s) and stop in order. */
const ORPHANS_GONE_WITHIN_MS = 15_000;

interface Started { shell: ChildProcess; servicePid: number; base: string; log: () => string }

/** What a process of the service is, in a word. */
function role(cmd: string): string {
  if (cmd.includes('apps/worker/')) return 'worker';
  if (cmd.includes('apps/cli/')) return 'serve';
  if (cmd.includes('service-guard')) return 'service guard';
  const name = cmd.split(' ')[0].replace(/^.*\//, '');
  return name.startsWith('postgres') ? 'postgres' : name;
}

async function healthAnswers(base: string): Promise<boolean> {
  try { return (await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) })).ok; } catch { return false; }
}

describe('npm start stops when told', () => {
  let dir: string;
  let dataDir: string;
  const shells: ChildProcess[] = [];
  const timings: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stop-when-told-'));
    // As root, the embedded PostgreSQL runs as the 'postgres' user, which must be able to enter it.
    chmodSync(dir, 0o755);
    dataDir = join(dir, 'data');
  });
  afterAll(() => {
    console.log(`stop-when-told timings: ${timings.join('; ')}`);
    // After a failure: whatever is left, by pid (the checks above said what it was).
    for (const p of processesOf(dataDir)) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page's start, word for word but for the PORT and DATA_DIR it is given; the shell stays, as a user's would. */
  async function start(): Promise<Started> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir };
    for (const k of ['API_KEYS', 'DATABASE_URL', 'REDIS_URL', 'QDRANT_URL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'JUDGE', 'GENERATOR', 'NODE_ENV']) delete env[k];
    const script = 'mkdir -p "$DATA_DIR"\nnpm start > "$DATA_DIR/service.log" 2>&1 &\nSERVICE_PID=$!\necho "$SERVICE_PID"\nwait $SERVICE_PID';
    // Its own session: the test's signals go to the one pid named, never to a group it shares with jest.
    const shell = spawn('bash', ['-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    shells.push(shell);
    const servicePid = await new Promise<number>((resolve, reject) => {
      shell.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
      shell.once('exit', (code) => reject(new Error(`the shell exited with ${code} before npm started`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const log = () => { try { return readFileSync(join(dataDir, 'service.log'), 'utf8').slice(-3000); } catch { return '-'; } };
    // /health answers before the worker has started (a child process of the API); stopped here, it has a queue to close.
    await eventually(async () => (await healthAnswers(base)) && /processing the traceback queue/.test(log()), 300_000, 500)
      .catch((e: Error) => { throw new Error(`${e.message}\nservice log:\n${log()}`); });
    return { shell, servicePid, base, log };
  }

  /** Polls until /health is gone and no process of the data dir is left (or `withinMs`); the shell itself is the user's. */
  async function watchStop(s: Started, label: string, withinMs: number): Promise<{ healthGoneMs: number; npmGoneMs: number; allGoneMs: number }> {
    const t0 = Date.now();
    let healthGoneMs = -1;
    let npmGoneMs = -1;
    let allGoneMs = -1;
    let left = processesOf(dataDir, [s.shell.pid!]);
    // The last process to go, for the timings line.
    let last = '';
    while (Date.now() - t0 < withinMs + 5_000) {
      if (healthGoneMs < 0 && !(await healthAnswers(s.base))) healthGoneMs = Date.now() - t0;
      if (npmGoneMs < 0 && !running(s.servicePid)) npmGoneMs = Date.now() - t0;
      const now = processesOf(dataDir, [s.shell.pid!]);
      if (now.length === 0 && left.length) last = [...new Set(left.map((p) => role(p.cmd)))].join(', ');
      left = now;
      if (allGoneMs < 0 && healthGoneMs >= 0 && left.length === 0) allGoneMs = Date.now() - t0;
      if (allGoneMs >= 0 && npmGoneMs >= 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sec = (ms: number) => (ms < 0 ? `not within ${(withinMs + 5_000) / 1000} s` : `${(ms / 1000).toFixed(1)} s`);
    timings.push(`${label}: /health gone ${sec(healthGoneMs)}, npm gone ${sec(npmGoneMs)}, nothing left ${sec(allGoneMs)}${last ? ` (last: ${last})` : ''}`);
    if (left.length) {
      const list = left.map((p) => `  ${p.pid} ${p.cmd.slice(0, 160)}`).join('\n');
      // Stop them here so the next case starts on a free data dir.
      for (const p of left) { try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ } }
      await eventually(async () => processesOf(dataDir, [s.shell.pid!]).length === 0, 10_000, 200).catch(() => {
        for (const p of processesOf(dataDir, [s.shell.pid!])) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
      });
      throw new Error(`${label}: still running ${(withinMs + 5_000) / 1000} s later:\n${list}\nservice log:\n${s.log()}`);
    }
    return { healthGoneMs, npmGoneMs, allGoneMs };
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`kill ${signal === 'SIGTERM' ? '' : '-INT '}$SERVICE_PID: the API, the worker, PostgreSQL and Redis are gone within 10 s`, async () => {
      const s = await start();
      // What `kill $SERVICE_PID` does: this one signal to npm's pid.
      process.kill(s.servicePid, signal);
      const t = await watchStop(s, `${signal} to npm`, STOP_WITHIN_MS);
      expect(t.allGoneMs).toBeLessThanOrEqual(STOP_WITHIN_MS);
      // npm exits only once the service has stopped (so `wait $SERVICE_PID` means stopped).
      expect(t.npmGoneMs).toBeGreaterThanOrEqual(0);
      // In order: the worker closed its queue, then the API and the servers were stopped.
      expect(s.log()).toMatch(new RegExp(`${signal}: stopping the worker[^]*SIGTERM: taking no new jobs[^]*stopped in`));
    }, 420_000);
  }

  it('SIGTERM to the whole process group (`kill -- -PGID`): stopped in order, no worker left waiting for Redis', async () => {
    const s = await start();
    // The group reaches the worker and PostgreSQL (smart shutdown: it waits for their sessions) directly;
    // Redis, in a group of its own, is stopped by the serve process once the worker has closed its queue.
    process.kill(-s.shell.pid!, 'SIGTERM');
    const t = await watchStop(s, 'SIGTERM to the group', STOP_WITHIN_MS);
    expect(t.allGoneMs).toBeLessThanOrEqual(STOP_WITHIN_MS);
    expect(s.log()).toMatch(/SIGTERM: stopping the worker[^]*stopped in/);
  }, 420_000);

  it('SIGKILL to the serve process (the owner of everything): the worker, PostgreSQL and Redis notice and exit', async () => {
    const s = await start();
    const owner = (JSON.parse(readFileSync(join(dataDir, 'run', 'redis.json'), 'utf8')) as { ownerPid: number }).ownerPid;
    expect(owner).not.toBe(s.servicePid);
    process.kill(owner, 'SIGKILL');
    const t = await watchStop(s, 'SIGKILL to serve', ORPHANS_GONE_WITHIN_MS);
    expect(t.allGoneMs).toBeLessThanOrEqual(ORPHANS_GONE_WITHIN_MS);
    expect(s.log()).toMatch(/supervisor gone: taking no new jobs/);
  }, 420_000);

  it('SIGKILL to npm: the serve process notices its parent is gone and stops everything', async () => {
    const s = await start();
    process.kill(s.servicePid, 'SIGKILL');
    const t = await watchStop(s, 'SIGKILL to npm', ORPHANS_GONE_WITHIN_MS);
    expect(t.allGoneMs).toBeLessThanOrEqual(ORPHANS_GONE_WITHIN_MS);
    expect(s.log()).toMatch(/npm is gone: stopping the worker[^]*SIGTERM: taking no new jobs[^]*stopped in/);
  }, 420_000);
});
