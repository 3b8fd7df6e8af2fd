import { Counter, Histogram } from 'prom-client';
import type { ForensicsMetrics } from '../metrics/metrics';
import type { PrismaClient } from '../prisma/prisma-client';

export const WEBHOOK_OUTCOMES = ['delivered', 'retried', 'failed', 'disabled'] as const;

/**
 * Webhook series (issue 14):
 * - forensics_webhook_deliveries_total{outcome}: delivery attempts by outcome, read on scrape from
 *   the delivery log in Postgres (so the API's /metrics counts the workers' attempts);
 * - forensics_webhook_delivery_duration_seconds{outcome}: attempt latency in this process (workers);
 * - forensics_webhook_publish_errors_total: events that could not be written to the outbox.
 */
export class WebhookMetrics {
  readonly duration: Histogram<'outcome'>;
  readonly publishErrors: Counter;

  constructor(metrics: ForensicsMetrics, prisma: PrismaClient) {
    metrics.collectedCounter('forensics_webhook_deliveries_total', 'Webhook delivery attempts by outcome (delivered | retried | failed | disabled = failed for good and the endpoint was disabled), from the delivery log', ['outcome'], async () => {
      const rows = await prisma.webhookDeliveryAttempt.groupBy({ by: ['outcome'], _count: { _all: true } });
      const by = new Map(rows.map((r) => [r.outcome, r._count._all]));
      return WEBHOOK_OUTCOMES.map((o) => [{ outcome: o }, by.get(o) ?? 0] as [{ outcome: string }, number]);
    });
    this.duration = new Histogram({
      name: 'forensics_webhook_delivery_duration_seconds', help: 'Webhook delivery attempt latency (this process) by outcome',
      labelNames: ['outcome'] as const, buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [metrics.registry],
    });
    this.publishErrors = new Counter({ name: 'forensics_webhook_publish_errors_total', help: 'Domain events that could not be written to the webhook outbox', registers: [metrics.registry] });
  }
}
