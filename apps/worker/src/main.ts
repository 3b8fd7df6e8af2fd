import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { Failpoints } from '@forensics/core';
import { judgeLabel, loadConfig, requireEmbeddedPrerequisites, startupFailureLine } from '@forensics/infra';
import { createWorkerApp } from './create-worker-app';

async function main(): Promise<void> {
  const log = new Logger('worker');
  const config = loadConfig(process.env);
  requireEmbeddedPrerequisites(config);
  // Crash-safety tests only: FORENSICS_FAILPOINT=<name> kills this process (SIGKILL) at that point.
  const failAt = process.env.FORENSICS_FAILPOINT;
  const failpoints: Failpoints | undefined = failAt
    ? { hit: (name) => { if (name === failAt) { log.warn(`failpoint ${name}: killing the worker`); process.kill(process.pid, 'SIGKILL'); } } }
    : undefined;
  const app = await createWorkerApp(config, { failpoints });
  log.log(`processing the traceback queue (concurrency ${config.queue.workerConcurrency}, judge ${judgeLabel(config.judge)})`);
  let closing = false;
  const shutdown = async (sig: string) => {
    if (closing) return;
    closing = true;
    log.log(`${sig}: finishing active jobs, then exiting`);
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  // eslint-disable-next-line no-console
  console.error(startupFailureLine('worker failed to start', e));
  process.exit(1);
});
