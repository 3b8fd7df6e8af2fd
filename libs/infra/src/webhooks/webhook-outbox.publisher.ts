import { Logger } from '@nestjs/common';
import type { DomainEvent, DomainEventPublisher, PublishWebhookEventUseCase } from '@forensics/core';
import type { WebhookMetrics } from './webhook-metrics';

/**
 * The DOMAIN_EVENTS adapter: hands each event to the webhook outbox (PublishWebhookEventUseCase).
 * Never throws into the publishing use case — the state change it reports is already committed —
 * a failure to write the outbox is logged and counted (forensics_webhook_publish_errors_total).
 */
export class WebhookOutboxPublisher implements DomainEventPublisher {
  private readonly log = new Logger('webhooks');

  constructor(private readonly outbox: PublishWebhookEventUseCase, private readonly metrics: WebhookMetrics) {}

  async publish(event: DomainEvent): Promise<void> {
    try {
      const out = await this.outbox.execute(event);
      if (!out.enqueued) this.log.warn(`${event.type}: ${out.deliveries.length} delivery(ies) saved, not queued now (${out.enqueueError}); the sweep enqueues them`);
    } catch (e) {
      this.metrics.publishErrors.inc();
      this.log.error(`${event.type}: could not write the webhook outbox: ${(e as Error).message}`);
    }
  }
}
