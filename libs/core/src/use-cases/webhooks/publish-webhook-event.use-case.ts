import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../../ports/domain-events.port';
import { WEBHOOK_DISPATCHER, WEBHOOKS, type WebhookDeliveryRow, type WebhookDispatcher, type WebhookRepository } from '../../ports/repositories/webhook.port';
import type { Clock } from '../../ports/runtime.port';
import { CLOCK } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';

export interface PublishWebhookEventDeps { webhooks: WebhookRepository; dispatcher: WebhookDispatcher; clock: Clock }

/**
 * The webhook outbox: one PENDING delivery row per active endpoint subscribed to the event's type
 * (one transaction; Postgres is the source of truth), then one queue job per delivery. Enqueueing
 * is bounded by the dispatcher; when it fails the rows stay PENDING and the re-drive sweep
 * (RedriveWebhookDeliveriesUseCase) enqueues them later — nothing is lost while Redis is away.
 * Throws only when the rows could not be written (the caller — the DOMAIN_EVENTS adapter — logs
 * and counts that, and never fails the use case that published).
 */
export class PublishWebhookEventUseCase {
  static readonly inject: InjectMap<PublishWebhookEventDeps> = { webhooks: WEBHOOKS, dispatcher: WEBHOOK_DISPATCHER, clock: CLOCK };
  constructor(private readonly deps: PublishWebhookEventDeps) {}

  async execute(event: DomainEvent): Promise<{ deliveries: WebhookDeliveryRow[]; enqueued: boolean; enqueueError?: string }> {
    const endpoints = await this.deps.webhooks.subscribedTo(event.type);
    if (!endpoints.length) return { deliveries: [], enqueued: true };
    const payload = { id: randomUUID(), type: event.type, createdAt: this.deps.clock.now().toISOString(), data: event.data };
    const deliveries = await this.deps.webhooks.createDeliveries(endpoints.map((e) => ({ id: randomUUID(), endpointId: e.id, payload })));
    try {
      await this.deps.dispatcher.enqueue(deliveries.map((d) => d.id));
      return { deliveries, enqueued: true };
    } catch (e) {
      return { deliveries, enqueued: false, enqueueError: (e as Error).message };
    }
  }
}
