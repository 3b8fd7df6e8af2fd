/**
 * The worker as a child process (`node --import tsx apps/worker/src/main.ts`), as deployed, so a
 * test can SIGKILL it or let a failpoint (FORENSICS_FAILPOINT) kill it at a persisted step.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../test-runtime';

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit signal (or code); rejects after `timeoutMs` with the output. */
  exited(timeoutMs?: number): Promise<NodeJS.Signals | number | null>;
  /** SIGTERM (finish the active job, then exit), waited for. */
  stop(): Promise<void>;
}

export function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'worker', 'src', 'main.ts')], {
    cwd: ROOT, env: { ...process.env, FORENSICS_DEBUG: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => { log += String(d); });
  child.stderr?.on('data', (d) => { log += String(d); });
  const exited = (timeoutMs = 120_000) => new Promise<NodeJS.Signals | number | null>((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.signalCode ?? child.exitCode);
    const timer = setTimeout(() => reject(new Error(`worker did not exit within ${timeoutMs} ms; output:\n${log.slice(-4000)}`)), timeoutMs);
    child.once('exit', (code, sig) => { clearTimeout(timer); resolve(sig ?? code); });
  });
  return {
    child,
    output: () => log,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited(60_000).catch(() => { child.kill('SIGKILL'); });
      }
    },
  };
}
