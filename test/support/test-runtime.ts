import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRuntime, loadConfig, type Runtime } from '@forensics/infra';

export const ROOT = resolve(__dirname, '..', '..');
export const TEST_API_KEY = 'test-key-0123456789';

export function requireServices(): { databaseUrl: string; redisUrl: string } {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error('TEST_DATABASE_URL / TEST_REDIS_URL missing: run through the jest integration project (its globalSetup starts Postgres and Redis)');
  return { databaseUrl, redisUrl };
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/** A runtime on the real test Postgres + Redis with a private on-disk vector store dir. */
export async function createTestRuntime(env: Record<string, string> = {}): Promise<Runtime & { dataDir: string }> {
  const { databaseUrl, redisUrl } = requireServices();
  const dataDir = mkdtempSync(join(tmpdir(), 'forensics-rt-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: dataDir, API_KEYS: TEST_API_KEY, QUEUE_BACKOFF_MS: '200', PROBE: 'none', QUEUE_PREFIX: uniqueName('q'), ...env }, ROOT);
  const rt = await createRuntime(config);
  const close = rt.close;
  return Object.assign(rt, {
    dataDir,
    close: async () => { await close(); rmSync(dataDir, { recursive: true, force: true }); },
  });
}

/** Polls `fn` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) { last = e; }
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
