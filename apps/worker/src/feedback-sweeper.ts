import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EMBEDDER, SweepUnqueuedFeedbackUseCase, SyncQuarantinesUseCase, type Embedder } from '@forensics/core';
import { APP_CONFIG, type AppConfig } from '@forensics/infra';

/**
 * Worker start and housekeeping: completes quarantines left half-done by a crash, loads the
 * encoder before the first job, and periodically dispatches feedback that was persisted while the
 * queue was unreachable.
 */
@Injectable()
export class FeedbackSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('worker');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(SweepUnqueuedFeedbackUseCase) private readonly sweep: SweepUnqueuedFeedbackUseCase,
    @Inject(SyncQuarantinesUseCase) private readonly syncQuarantines: SyncQuarantinesUseCase,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const synced = await this.syncQuarantines.execute();
    if (synced) this.log.log(`reconciled ${synced} quarantine record(s) with the vector store`);
    await this.embedder.init();
    await this.runSweep();
    this.timer = setInterval(() => void this.runSweep(), this.config.queue.sweepEveryMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async runSweep(): Promise<void> {
    try {
      for (const id of await this.sweep.execute()) this.log.log(`enqueued feedback ${id} that was persisted but not queued`);
    } catch (e) {
      this.log.warn(`sweep: ${(e as Error).message}`);
    }
  }
}
