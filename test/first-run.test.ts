/**
 * A fresh machine without redis-server: every entry point that needs the embedded Redis stops at
 * once with ONE line naming the Debian package and the command that installs it — no stack trace,
 * nothing started. The machine here has redis-server, so the test builds a PATH that has every
 * program of the real PATH except redis-server (symlinks in a temp dir) and runs the real commands
 * with it: `npm run demo` and `npm start`, as a new user types them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

function pathWithout(program: string, into: string): string {
  mkdirSync(into, { recursive: true });
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name === program || existsSync(join(into, name))) continue;
      try { symlinkSync(join(dir, name), join(into, name)); } catch { /* a race with another entry of the same name */ }
    }
  }
  return into;
}

const children = new Set<number>();

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const c = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    if (c.pid) children.add(c.pid);
    c.on('exit', () => { if (c.pid) children.delete(c.pid); });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => { stdout += String(d); });
    c.stderr.on('data', (d: Buffer) => { stderr += String(d); });
    c.on('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('first run on a machine without redis-server', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'first-run-'));
    env = { ...process.env, PATH: pathWithout('redis-server', join(dir, 'bin')), DATA_DIR: join(dir, 'data') };
    for (const k of ['REDIS_URL', 'DATABASE_URL', 'npm_config_loglevel']) delete env[k];
  });
  afterAll(() => {
    // A run that timed out: stop what it started (its own process group).
    for (const pid of children) { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }
    rmSync(dir, { recursive: true, force: true });
  });

  it('the test PATH really lacks redis-server and still has node and npm', async () => {
    const r = await run('sh', ['-c', 'command -v redis-server; command -v node; command -v npm'], env);
    expect(r.stdout).not.toMatch(/redis-server/);
    expect(r.stdout).toMatch(/node/);
    expect(r.stdout).toMatch(/npm/);
  });

  for (const script of ['demo', 'start']) {
    it(`npm run ${script}: one line naming the package and the install command, exit 1, nothing started`, async () => {
      const r = await run('npm', ['run', script], env);
      expect(r.code).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines).toEqual([expect.stringContaining('redis-server not found')]);
      expect(lines[0]).toContain('Debian package redis-server');
      expect(lines[0]).toContain('sudo apt-get install -y redis-server');
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(existsSync(join(dir, 'data', 'postgres'))).toBe(false);
    }, 600_000); // loading the app's modules alone takes minutes on a loaded 2-core machine
  }
});
