import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { EMBEDDER, SyncQuarantinesUseCase, type Embedder } from '@forensics/core';
import { APP_CONFIG, MAINTENANCE_QUEUE_NAME, RECONCILE_JOB, RECONCILE_SCHEDULER_ID, RecurringJob, REDIS_CONNECTION, type AppConfig } from '@forensics/infra';

/**
 * Worker start and housekeeping: completes quarantines left half-done by a crash, loads the
 * encoder before the first job, and registers the reconciler's job scheduler on the maintenance
 * queue (MaintenanceProcessor runs it every SWEEP_EVERY_MS). One scheduler id: a restart or a
 * second worker updates the same scheduler. It is registered again whenever the Redis connection
 * becomes ready, so a Redis that came back empty (no persistence) gets it back.
 */
@Injectable()
export class FeedbackSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('worker');
  private readonly reconciler: RecurringJob;

  constructor(
    @Inject(SyncQuarantinesUseCase) private readonly syncQuarantines: SyncQuarantinesUseCase,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectQueue(MAINTENANCE_QUEUE_NAME) maintenance: Queue,
    @Inject(REDIS_CONNECTION) redis: IORedis,
  ) {
    this.reconciler = new RecurringJob(maintenance, redis, {
      schedulerId: RECONCILE_SCHEDULER_ID, jobName: RECONCILE_JOB, everyMs: config.queue.sweepEveryMs, what: 'the reconciler',
    }, (m) => this.log.warn(m));
  }

  async onApplicationBootstrap(): Promise<void> {
    const synced = await this.syncQuarantines.execute();
    if (synced) this.log.log(`reconciled ${synced} quarantine record(s) with the vector store`);
    await this.embedder.init();
    await this.reconciler.start();
  }

  onModuleDestroy(): void {
    this.reconciler.stop();
  }
}
