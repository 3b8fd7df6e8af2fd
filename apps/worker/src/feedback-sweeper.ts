import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { EMBEDDER, SyncQuarantinesUseCase, type Embedder } from '@forensics/core';
import { APP_CONFIG, MAINTENANCE_QUEUE_NAME, RECONCILE_JOB, RECONCILE_SCHEDULER_ID, REDIS_CONNECTION, type AppConfig } from '@forensics/infra';

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
  private readonly onReady = () => void this.register();
  private closed = false;

  constructor(
    @Inject(SyncQuarantinesUseCase) private readonly syncQuarantines: SyncQuarantinesUseCase,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(MAINTENANCE_QUEUE_NAME) private readonly maintenance: Queue,
    @Inject(REDIS_CONNECTION) private readonly redis: IORedis,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const synced = await this.syncQuarantines.execute();
    if (synced) this.log.log(`reconciled ${synced} quarantine record(s) with the vector store`);
    await this.embedder.init();
    await this.register();
    this.redis.on('ready', this.onReady);
  }

  onModuleDestroy(): void {
    this.closed = true;
    this.redis.off('ready', this.onReady);
  }

  private async register(): Promise<void> {
    if (this.closed) return;
    try {
      await this.maintenance.upsertJobScheduler(RECONCILE_SCHEDULER_ID, { every: this.config.queue.sweepEveryMs }, {
        name: RECONCILE_JOB, data: {}, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 50 } },
      });
    } catch (e) {
      this.log.warn(`could not register the reconciler's scheduler (registered again when Redis is ready): ${(e as Error).message}`);
    }
  }
}
