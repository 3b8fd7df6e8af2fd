import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ReconcilePendingFeedbackUseCase } from '@forensics/core';
import { APP_CONFIG, rateLimitedErrorLog, type AppConfig } from '@forensics/infra';

/**
 * Runs the reconciler when the maintenance queue's job scheduler fires: every pending event with no
 * live job gets one (see ReconcilePendingFeedbackUseCase). The grace period leaves alone an event
 * whose request is still enqueueing (bounded by QUEUE_ENQUEUE_TIMEOUT_MS).
 */
@Injectable()
export class MaintenanceProcessor extends WorkerHost {
  private readonly log = new Logger('reconciler');
  private readonly connectionError = rateLimitedErrorLog((m) => this.log.warn(m), 'maintenance worker: redis connection error (BullMQ reconnects on its own)');

  constructor(
    @Inject(ReconcilePendingFeedbackUseCase) private readonly reconcile: ReconcilePendingFeedbackUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  /** The worker's Redis connection failing (an outage): one warn line per 30 s, not one per reconnect. */
  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.connectionError(err);
  }

  async process(): Promise<unknown> {
    const { sweepEveryMs, enqueueTimeoutMs } = this.config.queue;
    const graceMs = Math.max(2 * enqueueTimeoutMs, Math.min(5_000, sweepEveryMs));
    const out = await this.reconcile.execute({ graceMs });
    for (const id of out.dispatched) this.log.log(`enqueued feedback ${id} that was persisted but not queued`);
    for (const r of out.redriven) this.log.log(`re-drove feedback ${r.feedbackId}: job ${r.outcome}`);
    if (out.errors) this.log.warn(`${out.errors} pending event(s) could not be re-driven now; next run retries`);
    return { dispatched: out.dispatched.length, redriven: out.redriven.length, errors: out.errors };
  }
}
