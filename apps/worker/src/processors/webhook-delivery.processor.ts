import { InjectQueue, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { z } from 'zod';
import { DeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase } from '@forensics/core';
import {
  APP_CONFIG, RecurringJob, REDIS_CONNECTION, WEBHOOK_DELIVERY_JOB, WEBHOOK_METRICS, WEBHOOK_QUEUE_NAME, WEBHOOK_REDRIVE_JOB, WEBHOOK_REDRIVE_SCHEDULER_ID, webhookRetryDelayMs,
  withLogContext, type AppConfig, type WebhookJobData, type WebhookMetrics,
} from '@forensics/infra';

const Payload = z.object({ deliveryId: z.uuid() });

/** A failed attempt that the queue retries after `delayMs` (read by the backoff strategy, see backoffStrategy below). */
export class WebhookRetry extends Error {
  constructor(message: string, readonly delayMs: number) {
    super(message);
    this.name = 'WebhookRetry';
  }
}

/**
 * BullMQ custom backoff of the webhooks queue: the delay the processor already chose and recorded
 * as the delivery's nextAttemptAt (WebhookRetry), else the same jittered exponential formula
 * (an attempt that threw, e.g. Postgres unreachable).
 */
export function webhookBackoffStrategy(baseMs: number) {
  return (attemptsMade: number, _type?: string, err?: Error): number =>
    err instanceof WebhookRetry || (err as WebhookRetry | undefined)?.delayMs !== undefined ? (err as WebhookRetry).delayMs : webhookRetryDelayMs(attemptsMade, baseMs);
}

/**
 * The webhooks queue: `DeliverWebhook` jobs (one per delivery: one signed attempt through
 * DeliverWebhookUseCase; a failure that has attempts left is thrown as WebhookRetry so BullMQ
 * retries it after the recorded delay) and the outbox sweep `RedriveWebhookDeliveries`, fired by a
 * job scheduler (one id) every SWEEP_EVERY_MS, which enqueues PENDING deliveries that have no live
 * job (written while Redis was away, or whose job was lost). Options are attached in WorkerModule.
 */
@Injectable()
export class WebhookDeliveryProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('webhooks');
  private readonly outboxSweep: RecurringJob;

  constructor(
    @Inject(DeliverWebhookUseCase) private readonly deliver: DeliverWebhookUseCase,
    @Inject(RedriveWebhookDeliveriesUseCase) private readonly redrive: RedriveWebhookDeliveriesUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_METRICS) private readonly metrics: WebhookMetrics,
    @InjectQueue(WEBHOOK_QUEUE_NAME) queue: Queue,
    @Inject(REDIS_CONNECTION) redis: IORedis,
  ) {
    super();
    this.outboxSweep = new RecurringJob(queue, redis, {
      schedulerId: WEBHOOK_REDRIVE_SCHEDULER_ID, jobName: WEBHOOK_REDRIVE_JOB, everyMs: config.queue.sweepEveryMs, what: 'the webhook sweep',
    }, (m) => this.log.warn(m));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.outboxSweep.start();
  }

  onModuleDestroy(): void {
    this.outboxSweep.stop();
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
    const lastAttempt = attemptNo >= (job.opts.attempts ?? 1);
    const retryDelayMs = webhookRetryDelayMs(attemptNo, this.config.webhooks.backoffMs);
    const res = await this.deliver.execute({ deliveryId: payload.data.deliveryId, lastAttempt, retryDelayMs });
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
