/**
 * Dependencies a fault-injection test owns alone, so it can stop, kill and restart them without
 * disturbing any other test: an embedded PostgreSQL in its own data dir (through
 * ./postgres-process.ts) and a `redis-server` process, each on a fixed port across restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, portOpen, waitForPort } from '@forensics/infra';
import { eventually, ROOT } from '../test-runtime';

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
  });
}

export class DedicatedPostgres {
  private child: ChildProcess | null = null;
  url = '';
  port = 0;
  private constructor(readonly dir: string) {}

  /** Initialises a fresh data dir and starts PostgreSQL on a free port (≤ 90 s). */
  static async start(): Promise<DedicatedPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'forensics-fault-pg-'));
    // As root, PostgreSQL runs as the 'postgres' system user, which must be able to enter the dir.
    chmodSync(dir, 0o755);
    const pg = new DedicatedPostgres(dir);
    await pg.launch(90_000);
    return pg;
  }

  private async launch(timeoutMs: number): Promise<void> {
    const args = ['--import', 'tsx', join(__dirname, 'postgres-process.ts'), this.dir, ...(this.port ? [String(this.port)] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (d) => { err += String(d); });
    const info = await new Promise<{ url: string; port: number }>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`dedicated postgres did not start within ${timeoutMs} ms: ${err}`)), timeoutMs);
      child.stdout?.on('data', (d) => {
        buf += String(d);
        const nl = buf.indexOf('\n');
        if (nl >= 0) { clearTimeout(timer); try { resolve(JSON.parse(buf.slice(0, nl))); } catch (e) { reject(e); } }
      });
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`dedicated postgres exited with ${code}: ${err}`)); });
    });
    child.removeAllListeners('exit');
    this.child = child;
    this.url = info.url;
    this.port = info.port;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Stops PostgreSQL (fast shutdown: open connections are terminated); the port closes. */
  async stop(): Promise<void> {
    if (!this.child) return;
    const child = this.child;
    this.child = null;
    child.kill('SIGTERM');
    await exited(child, 30_000);
    await eventually(async () => !(await portOpen(this.port)), 10_000, 50);
  }

  /** Starts it again on the same port with the same data. */
  async restart(): Promise<void> {
    if (this.running) return;
    await this.launch(60_000);
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A redis-server without persistence: a restart comes back empty (the harsher case: every queued job is gone). */
export class DedicatedRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<DedicatedRedis> {
    const r = new DedicatedRedis(await freePort());
    await r.restart();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async restart(): Promise<void> {
    if (this.running) return;
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
    await waitForPort(this.port, 10_000);
  }

  /** SIGSTOP: a Redis that stalls — connections stay open, nothing is answered until `resume` (`pause(ms)` does both). */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT: the stalled Redis answers again (what was sent meanwhile included). */
  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /**
   * SIGSTOP for `ms`, then SIGCONT: Redis answers nothing meanwhile but keeps its connections and its data
   * (a paused VM, a long fork); keys whose TTL passes meanwhile have expired when it goes on.
   */
  async pause(ms: number): Promise<{ from: number; to: number }> {
    if (!this.child) throw new Error('redis is not running');
    const child = this.child;
    child.kill('SIGSTOP');
    const from = Date.now();
    try {
      await new Promise((r) => setTimeout(r, ms));
    } finally {
      child.kill('SIGCONT');
    }
    return { from, to: Date.now() };
  }

  /** SIGKILL: no shutdown, connections dropped. */
  async kill(): Promise<void> {
    if (!this.child) return;
    const child = this.child;
    this.child = null;
    child.kill('SIGKILL');
    await exited(child, 10_000);
    await eventually(async () => !(await portOpen(this.port)), 10_000, 50);
  }
}
