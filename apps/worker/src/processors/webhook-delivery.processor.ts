import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import { DeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase } from '@forensics/core';
import { APP_CONFIG, WEBHOOK_METRICS, WEBHOOK_REDRIVE_JOB, webhookRetryDelayMs, withLogContext, type AppConfig, type WebhookJobData, type WebhookMetrics } from '@forensics/infra';
import { WebhookRetry } from './webhook-retry';

export { WebhookRetry, webhookBackoffStrategy } from './webhook-retry';

const Payload = z.object({ deliveryId: z.uuid() });

/**
 * The webhooks queue: `DeliverWebhook` jobs (one per delivery: one signed attempt through
 * DeliverWebhookUseCase; a failure that has attempts left is thrown as WebhookRetry so BullMQ
 * retries it after the recorded delay) and the outbox sweep `RedriveWebhookDeliveries`, whose
 * scheduler is WebhookOutboxSweep (recurring-jobs.ts). Options are attached in WorkerModule.
 */
@Injectable()
export class WebhookDeliveryProcessor extends WorkerHost {
  private readonly log = new Logger('webhooks');

  constructor(
    @Inject(DeliverWebhookUseCase) private readonly deliver: DeliverWebhookUseCase,
    @Inject(RedriveWebhookDeliveriesUseCase) private readonly redrive: RedriveWebhookDeliveriesUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_METRICS) private readonly metrics: WebhookMetrics,
  ) {
    super();
  }

  async process(job: Job<WebhookJobData>): Promise<unknown> {
    if (job.name === WEBHOOK_REDRIVE_JOB) return this.sweep();
    return withLogContext({ jobId: job.id }, () => this.attempt(job));
  }

  private async sweep(): Promise<unknown> {
    const { sweepEveryMs, enqueueTimeoutMs } = this.config.queue;
    const out = await this.redrive.execute({ graceMs: Math.max(2 * enqueueTimeoutMs, Math.min(5_000, sweepEveryMs)) });
    if (out.added.length) this.log.log(`re-enqueued ${out.added.length} pending webhook delivery(ies)`);
    if (out.errors) this.log.warn(`${out.errors} pending webhook delivery(ies) could not be re-enqueued now; next sweep retries`);
    return { added: out.added.length, live: out.live, errors: out.errors };
  }

  private async attempt(job: Job<WebhookJobData>): Promise<unknown> {
    const payload = Payload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError('invalid payload: deliveryId must be a UUID');
    const attemptNo = job.attemptsMade + 1;
    const retryDelayMs = webhookRetryDelayMs(attemptNo, this.config.webhooks.backoffMs);
    const res = await this.deliver.execute({ deliveryId: payload.data.deliveryId, lastAttempt: attemptNo >= (job.opts.attempts ?? 1), retryDelayMs });
    if (res.durationMs !== undefined && res.outcome !== 'skipped' && res.outcome !== 'dead') this.metrics.duration.observe({ outcome: res.outcome }, res.durationMs / 1000);
    const id = payload.data.deliveryId;
    if (res.outcome === 'retried') {
      this.log.warn(`delivery ${id}: attempt ${res.attempt} failed (${res.error}); retry in ${retryDelayMs} ms`);
      throw new WebhookRetry(`attempt ${res.attempt} failed: ${res.error}`, retryDelayMs);
    }
    if (res.outcome === 'failed' || res.outcome === 'disabled') this.log.warn(`delivery ${id}: failed after ${res.attempt} attempt(s) (${res.error})${res.outcome === 'disabled' ? '; endpoint disabled' : ''}`);
    return res;
  }
}
