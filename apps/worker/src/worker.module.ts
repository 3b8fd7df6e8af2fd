import { Processor } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { CoreModule, TRACEBACK_QUEUE_NAME, type AppConfig } from '@forensics/infra';
import { FeedbackSweeper } from './feedback-sweeper';
import { TracebackProcessor } from './processors/traceback.processor';

/**
 * The worker: @nestjs/bullmq runs TracebackProcessor on the traceback queue; FeedbackSweeper does
 * the housekeeping. `infrastructure` is the process's one InfrastructureModule.forRoot(config).
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, infrastructure: DynamicModule): DynamicModule {
    // Worker options come from configuration, so they are attached to a per-module subclass
    // (the @Processor decorator is static metadata on its class).
    const lockDuration = config.queue.lockMs;
    class ConfiguredTracebackProcessor extends TracebackProcessor {}
    Processor(TRACEBACK_QUEUE_NAME, {
      concurrency: config.queue.workerConcurrency,
      lockDuration,
      stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
      maxStalledCount: 3,
    })(ConfiguredTracebackProcessor);
    return {
      module: WorkerModule,
      imports: [infrastructure, CoreModule],
      providers: [ConfiguredTracebackProcessor, FeedbackSweeper],
    };
  }
}
