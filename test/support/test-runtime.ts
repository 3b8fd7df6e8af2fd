/** Shared helpers of the integration tests; the service itself is composed by ./test-app.ts (createTestApp). */
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

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
