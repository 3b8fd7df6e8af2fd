import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalLlmParams } from '../local-llm/local-llm.params';
import type { EmbeddedService } from './embedded-services';
import { pidAlive, portOpen } from './free-port';
import { guardService } from './service-guard';

/** Model load at most: tsx's start, the GGUF mapped (the 1.5B: ~3 s on 2 cores), the context allocated. */
export const LOCAL_LLM_START_TIMEOUT_MS = 180_000;

interface LocalLlmRecord { ownerPid: number; port: number; pid: number; params: LocalLlmParams }

const ENTRY = join(__dirname, '..', 'local-llm', 'local-llm.main.ts');

/**
 * The embedded mode's local LLM (LOCAL_LLM): the GGUF served on a free loopback port by a process of its own
 * (../local-llm/local-llm.main.ts), whose URL the OpenAI judge and generator are given. Shared like the embedded
 * Postgres and Redis: the first process of an installation starts it and writes `dataDir/run/local-llm.json`; later
 * ones (API, worker, CLI) reuse it when its owner is alive, the port answers and it serves the same model with the
 * same settings. Only the owner stops it; if the owner dies without stopping it, the guard (and the server's own
 * parent watch) does.
 */
export async function startEmbeddedLocalLlm(dataDir: string, params: LocalLlmParams, projectRoot: string, log: (m: string) => void = () => {}): Promise<EmbeddedService> {
  const runDir = join(dataDir, 'run');
  mkdirSync(runDir, { recursive: true });
  const runFile = join(runDir, 'local-llm.json');
  const existing = readRecord(runFile);
  if (existing && pidAlive(existing.ownerPid) && JSON.stringify(existing.params) === JSON.stringify(params) && (await portOpen(existing.port))) {
    return { url: `http://127.0.0.1:${existing.port}/v1`, owned: false, stop: async () => {} };
  }
  const t0 = performance.now();
  log(`local LLM: loading ${params.model} (${params.modelPath})`);
  // Detached (its own process group), like the embedded Redis: a Ctrl-C to the group must not stop it under a worker
  // still finishing its jobs; the owner stops it after them.
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, JSON.stringify({ ...params, port: 0 })], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const guard = guardService(child.pid!, [['SIGTERM', 10], ['SIGKILL', 1]]);
  const exited = new Promise<void>((r) => child.once('exit', () => { guard.release(); r(); }));
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr = (stderr + String(d)).slice(-4000); });
  let ready: { url: string; port: number; loadMs: number };
  try {
    ready = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`did not load within ${LOCAL_LLM_START_TIMEOUT_MS} ms`)), LOCAL_LLM_START_TIMEOUT_MS);
      child.stdout!.on('data', (d) => {
        out += String(d);
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (!line || !out.includes('\n')) return;
        clearTimeout(timer);
        const msg = JSON.parse(line) as { ready: boolean; url: string; port: number; loadMs: number; error?: string };
        if (msg.ready) resolve(msg); else reject(new Error(msg.error));
      });
      child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`its process exited (${signal ?? code}) before it was ready${stderr ? `: ${stderr.trim().split('\n').pop()}` : ''}`)); });
    });
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`local LLM ${params.model} (${params.modelPath}) could not start: ${e instanceof Error ? e.message : String(e)}`);
  }
  child.stdout!.resume();
  writeFileSync(runFile, JSON.stringify({ ownerPid: process.pid, port: ready.port, pid: child.pid!, params } satisfies LocalLlmRecord));
  log(`local LLM ${params.model} on ${ready.url} (loaded in ${(ready.loadMs / 1000).toFixed(1)} s, ${((performance.now() - t0) / 1000).toFixed(1)} s with its process's start)`);
  return {
    url: ready.url,
    owned: true,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
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

function readRecord(file: string): LocalLlmRecord | null {
  try { return JSON.parse(readFileSync(file, 'utf8')) as LocalLlmRecord; } catch { return null; }
}
