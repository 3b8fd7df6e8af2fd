import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DEV_API_KEY, judgeLabel, loadConfig, requireEmbeddedPrerequisites, startupFailureLine } from '@forensics/infra';
import { createApiApp, HttpDrain } from './create-api-app';

async function main(): Promise<void> {
  const log = new Logger('api');
  const config = loadConfig(process.env);
  requireEmbeddedPrerequisites(config);
  if (config.devApiKey) log.warn(`API_KEYS is not set: using the development key '${DEV_API_KEY}'. Set API_KEYS in production.`);
  const app = await createApiApp(config);
  await app.listen(config.port, config.host);
  const url = await app.getUrl();
  log.log(`listening on ${url} (OpenAPI at ${url}/docs), judge ${judgeLabel(config.judge)}, embedder=${config.embedder.kind}`);
  let closing = false;
  const shutdown = async (sig: string) => {
    if (closing) return;
    closing = true;
    // Drain first (no new connections, /health 503 draining, in-flight requests finish or are cut at
    // SHUTDOWN_DRAIN_MS), then Nest closes the queue, Postgres and Redis: no request runs without them.
    log.log(`${sig}: draining (no new connections, /health answers 503 draining, in-flight requests get up to ${config.shutdownDrainMs} ms)`);
    const d = await app.get(HttpDrain).drain(config.shutdownDrainMs);
    log.log(d.cut ? `drain timeout after ${d.ms} ms: ${d.finished} requests finished, ${d.cut} request${d.cut === 1 ? '' : 's'} cut` : `drained in ${d.ms} ms: ${d.finished} requests finished`);
    await app.close().catch((e: unknown) => log.error(`closing: ${e instanceof Error ? e.message : String(e)}`));
    log.log('closed');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  // eslint-disable-next-line no-console
  console.error(startupFailureLine('api failed to start', e));
  process.exit(1);
});
