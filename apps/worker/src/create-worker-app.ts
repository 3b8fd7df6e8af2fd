import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Failpoints } from '@forensics/core';
import { createJsonLogger, InfrastructureModule, JsonLoggingModule, type AppConfig } from '@forensics/infra';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { WorkerModule } from './worker.module';

/** The worker as a Nest application (no HTTP): used by main.ts and by in-process tests. */
export async function createWorkerApp(config: AppConfig, opts: { logger?: boolean; failpoints?: Failpoints; logDestination?: DestinationStream } = {}): Promise<INestApplicationContext> {
  const infrastructure = InfrastructureModule.forRoot(config, { failpoints: opts.failpoints });
  // LOG_FORMAT=json: pino (feedback id and job id on every line of a job, see TracebackProcessor), else Nest's console logger.
  const json = opts.logger !== false && config.logFormat === 'json';
  const worker = WorkerModule.forRoot(config, infrastructure);
  const root = json ? { ...worker, imports: [...(worker.imports ?? []), JsonLoggingModule.forRoot(createJsonLogger({ name: 'worker', destination: opts.logDestination }))] } : worker;
  const app = await NestFactory.createApplicationContext(root, {
    logger: opts.logger === false ? false : ['error', 'warn', 'log'],
    bufferLogs: json,
    // Throw start-up errors to the caller (which reports them) instead of exiting the process.
    abortOnError: false,
  });
  if (json) app.useLogger(app.get(PinoNestLogger));
  return app.init();
}
