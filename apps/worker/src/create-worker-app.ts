import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Failpoints } from '@forensics/core';
import { InfrastructureModule, type AppConfig } from '@forensics/infra';
import { WorkerModule } from './worker.module';

/** The worker as a Nest application (no HTTP): used by main.ts and by in-process tests. */
export async function createWorkerApp(config: AppConfig, opts: { logger?: boolean; failpoints?: Failpoints } = {}): Promise<INestApplicationContext> {
  const infrastructure = InfrastructureModule.forRoot(config, { failpoints: opts.failpoints });
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, infrastructure), {
    logger: opts.logger === false ? false : ['error', 'warn', 'log'],
    // Throw start-up errors to the caller (which reports them) instead of exiting the process.
    abortOnError: false,
  });
  return app.init();
}
