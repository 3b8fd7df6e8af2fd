import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRuntime, loadConfig } from '@forensics/infra';
import { startTracebackWorker } from './worker';

@Module({})
class WorkerModule {}

async function main(): Promise<void> {
  const log = new Logger('worker');
  // Nest standalone context (no HTTP): logger and lifecycle; the BullMQ worker is wired below.
  const ctx = await NestFactory.createApplicationContext(WorkerModule, { logger: ['error', 'warn', 'log'] });
  const config = loadConfig(process.env);
  const runtime = await createRuntime(config, { log: (m) => log.log(m) });
  const lockDurationMs = process.env.WORKER_LOCK_MS ? Number(process.env.WORKER_LOCK_MS) : undefined;
  // Crash-safety tests only: FORENSICS_FAILPOINT=<name> kills this process (SIGKILL) at that point.
  const failAt = process.env.FORENSICS_FAILPOINT;
  const failpoint = failAt ? (name: string) => { if (name === failAt) { log.warn(`failpoint ${name}: killing the worker`); process.kill(process.pid, 'SIGKILL'); } } : undefined;
  const worker = await startTracebackWorker(runtime, { lockDurationMs, failpoint });
  let closing = false;
  const shutdown = async (sig: string) => {
    if (closing) return;
    closing = true;
    log.log(`${sig}: finishing active jobs, then exiting`);
    await worker.close();
    await runtime.close();
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  // eslint-disable-next-line no-console
  console.error(`worker failed to start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
