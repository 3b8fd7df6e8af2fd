import type { Queue } from 'bullmq';
import type { WebhookDispatcher } from '@forensics/core';
import { WEBHOOK_BACKOFF_TYPE } from './backoff';

export const WEBHOOK_DELIVERY_JOB = 'DeliverWebhook';
export const WEBHOOK_REDRIVE_JOB = 'RedriveWebhookDeliveries';
export const WEBHOOK_REDRIVE_SCHEDULER_ID = 'redrive-webhook-deliveries';
export interface WebhookJobData { deliveryId: string }

/** One job per delivery (BullMQ custom ids may not contain ':'). */
export const webhookJobId = (deliveryId: string): string => `wh-${deliveryId}`;

/**
 * Producer side of the `webhooks` queue: one job per delivery id, `attempts` with the worker's
 * jittered exponential backoff. Enqueueing is bounded (`enqueueTimeoutMs`) like the traceback
 * queue's: a publishing use case never waits on an unreachable Redis; its PENDING rows are
 * re-driven by the sweep.
 */
export class BullMqWebhookDispatcher implements WebhookDispatcher {
  constructor(private readonly queue: Queue<WebhookJobData>, private readonly opts: { attempts: number; enqueueTimeoutMs: number }) {}

  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (!deliveryIds.length) return;
    const op = this.queue.addBulk(deliveryIds.map((id) => ({ name: WEBHOOK_DELIVERY_JOB, data: { deliveryId: id }, opts: this.jobOpts(id) })));
    op.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`queue unreachable: webhook enqueue did not complete within ${this.opts.enqueueTimeoutMs} ms`)), this.opts.enqueueTimeoutMs);
      timer.unref();
    });
    await Promise.race([op, timeout]).finally(() => clearTimeout(timer));
  }

  async redrive(deliveryId: string): Promise<'added' | 'live'> {
    const job = await this.queue.getJob(webhookJobId(deliveryId));
    if (job) {
      const state = await job.getState();
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return 'live';
      await job.remove().catch(() => {});
    }
    await this.queue.add(WEBHOOK_DELIVERY_JOB, { deliveryId }, this.jobOpts(deliveryId));
    return 'added';
  }

  private jobOpts(deliveryId: string) {
    return {
      jobId: webhookJobId(deliveryId), attempts: this.opts.attempts, backoff: { type: WEBHOOK_BACKOFF_TYPE },
      removeOnComplete: { age: 24 * 3600, count: 10_000 }, removeOnFail: { age: 7 * 24 * 3600 },
    };
  }
}

/** Processes without a queue (ingest CLI, eval): rows stay PENDING for a worker's sweep. */
export const NO_WEBHOOK_QUEUE: WebhookDispatcher = {
  enqueue: async () => { throw new Error('this process runs without the webhook queue; the worker\'s sweep enqueues the deliveries'); },
  redrive: async () => { throw new Error('this process runs without the webhook queue'); },
};
