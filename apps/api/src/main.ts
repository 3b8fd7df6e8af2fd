import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { DEV_API_KEY, judgeLabel, loadConfig, requireEmbeddedPrerequisites, startupFailureLine } from '@forensics/infra';
import { createApiApp } from './create-api-app';

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
    log.log(`${sig}: shutting down`);
    await app.close().catch(() => {});
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
