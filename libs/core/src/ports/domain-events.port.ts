/**
 * What happened, for the outside world (webhooks, later other sinks). Use cases publish after the
 * state change is committed; a publisher must never make the use case fail (it records and retries
 * delivery on its own), and must not block on slow receivers.
 */
export type DomainEventType =
  | 'quarantine.created'
  | 'review.needed'
  | 'review.decided'
  | 'feedback.failed'
  | 'audit.finished'
  | 'enhancement.created'
  | 'enhancement.proposed';

export const DOMAIN_EVENT_TYPES: readonly DomainEventType[] = [
  'quarantine.created', 'review.needed', 'review.decided', 'feedback.failed', 'audit.finished', 'enhancement.created', 'enhancement.proposed',
];

export interface DomainEvent {
  type: DomainEventType;
  /** Ids and short facts only (no full texts, no secrets): e.g. { quarantineId, documentId, feedbackId, collection }. */
  data: Record<string, unknown>;
}

export interface DomainEventPublisher {
  publish(event: DomainEvent): Promise<void>;
}

/** Publishes nowhere (the default until an adapter is bound). */
export const NO_DOMAIN_EVENTS: DomainEventPublisher = { publish: async () => {} };
