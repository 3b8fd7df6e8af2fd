import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..', '..', '..');

function running(pid: number): boolean {
  try { return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; }
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (cond()) return true; await new Promise((r) => setTimeout(r, 50)); }
  return cond();
}

/**
 * An owner process (node) starts a `sleep` as its "server", guards it, prints the server's pid and
 * then either dies by SIGKILL or releases the guard and exits.
 */
async function owner(dir: string, mode: 'killed' | 'released'): Promise<number> {
  const script = join(dir, `owner-${mode}.ts`);
  writeFileSync(script, `
    import { spawn } from 'node:child_process';
    import { guardService } from ${JSON.stringify(join(ROOT, 'libs/infra/src/runtime/service-guard.ts'))};
    const server = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const guard = guardService(server.pid!, [['SIGTERM', 2], ['SIGKILL', 1]]);
    console.log(server.pid);
    setTimeout(() => {
      if (${JSON.stringify(mode)} === 'released') { guard.release(); setTimeout(() => process.exit(0), 300); }
      else process.kill(process.pid, 'SIGKILL');
    }, 300);
  `);
  const c = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((r) => c.stdout!.once('data', (d: Buffer) => r(Number(String(d).trim()))));
  await new Promise((r) => c.once('exit', r));
  return pid;
}

describe('guardService', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'service-guard-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops the server when its owner is SIGKILLed', async () => {
    const server = await owner(dir, 'killed');
    expect(await until(() => !running(server), 5_000)).toBe(true);
  }, 30_000);

  it('leaves it alone once released (the owner stopped it, or hands it on)', async () => {
    const server = await owner(dir, 'released');
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      expect(running(server)).toBe(true);
    } finally {
      try { process.kill(server, 'SIGKILL'); } catch { /* gone */ }
    }
  }, 30_000);
});
