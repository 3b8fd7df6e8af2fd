import { getQueueToken } from '@nestjs/bullmq';
import type { Provider } from '@nestjs/common';
import type { Queue } from 'bullmq';
import {
  CORE_SETTINGS, DOMAIN_EVENTS, PublishWebhookEventUseCase, WEBHOOK_DISPATCHER, WEBHOOK_SETTINGS, WEBHOOK_TRANSPORT, WEBHOOK_URL_GUARD, WEBHOOKS,
  type CoreSettings, type WebhookDispatcher, type WebhookRepository, type WebhookSettings,
} from '@forensics/core';
import type { AppConfig } from '../config/app-config';
import { METRICS, PRISMA } from '../nest/infra.tokens';
import type { ForensicsMetrics } from '../metrics/metrics';
import type { PrismaClient } from '../prisma/prisma-client';
import { WEBHOOK_QUEUE_NAME } from '../queue/queue.constants';
import { BullMqWebhookDispatcher, NO_WEBHOOK_QUEUE } from './bullmq-webhook-dispatcher';
import { HttpWebhookTransport } from './http-webhook-transport';
import { PrismaWebhookRepository } from './prisma-webhook.repository';
import { SecretBox } from './secret-box';
import { DnsWebhookUrlGuard } from './url-guard';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookOutboxPublisher } from './webhook-outbox.publisher';

/** The webhook series of this process (delivery duration observed by the worker's processor). */
export const WEBHOOK_METRICS = Symbol('WebhookMetrics');

/** Tokens InfrastructureModule exports for webhooks. */
export const WEBHOOK_TOKENS = [WEBHOOKS, WEBHOOK_SETTINGS, WEBHOOK_URL_GUARD, WEBHOOK_TRANSPORT, WEBHOOK_DISPATCHER, WEBHOOK_METRICS] as const;

const SYSTEM_CLOCK = { now: () => new Date() };

/**
 * Webhook adapters (issue 14): the Prisma repository (secrets sealed with a key from
 * WEBHOOK_SECRETS_KEY, else the feedback-token secret), the DNS URL guard and the guarded http(s)
 * transport (both relaxed by WEBHOOK_ALLOW_PRIVATE), the metrics, and DOMAIN_EVENTS = the outbox.
 */
export function WEBHOOK_PROVIDERS(config: AppConfig): Provider[] {
  const w = config.webhooks;
  return [
    {
      provide: WEBHOOKS, inject: [PRISMA, CORE_SETTINGS],
      useFactory: (prisma: PrismaClient, core: CoreSettings) => new PrismaWebhookRepository(prisma, new SecretBox(w.secretsKey ?? core.feedbackTokens.secret)),
    },
    { provide: WEBHOOK_SETTINGS, useValue: { timeoutMs: w.timeoutMs, attempts: w.attempts, disableAfter: w.disableAfter } satisfies WebhookSettings },
    { provide: WEBHOOK_URL_GUARD, useValue: new DnsWebhookUrlGuard(w.allowPrivate) },
    { provide: WEBHOOK_TRANSPORT, useValue: new HttpWebhookTransport(w.allowPrivate) },
    { provide: WEBHOOK_METRICS, inject: [METRICS, PRISMA], useFactory: (m: ForensicsMetrics, prisma: PrismaClient) => new WebhookMetrics(m, prisma) },
    {
      provide: DOMAIN_EVENTS, inject: [WEBHOOKS, WEBHOOK_DISPATCHER, WEBHOOK_METRICS],
      useFactory: (webhooks: WebhookRepository, dispatcher: WebhookDispatcher, metrics: WebhookMetrics) =>
        new WebhookOutboxPublisher(new PublishWebhookEventUseCase({ webhooks, dispatcher, clock: SYSTEM_CLOCK }), metrics),
    },
  ];
}

/** The dispatcher: the BullMQ `webhooks` queue, or (no queue in this process) one that leaves rows to the worker's sweep. */
export function webhookDispatcherProvider(config: AppConfig, withQueue: boolean): Provider {
  if (!withQueue) return { provide: WEBHOOK_DISPATCHER, useValue: NO_WEBHOOK_QUEUE };
  return {
    provide: WEBHOOK_DISPATCHER, inject: [getQueueToken(WEBHOOK_QUEUE_NAME)],
    useFactory: (q: Queue) => new BullMqWebhookDispatcher(q as never, { attempts: config.webhooks.attempts, enqueueTimeoutMs: config.queue.enqueueTimeoutMs }),
  };
}
