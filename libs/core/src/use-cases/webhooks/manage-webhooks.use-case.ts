import { randomUUID } from 'node:crypto';
import { ConflictError, echoInput, NotFoundError } from '../../domain/errors';
import { assertStorable } from '../../domain/request-schema';
import type { DomainEventType } from '../../ports/domain-events.port';
import {
  WEBHOOK_DISPATCHER, WEBHOOK_SETTINGS, WEBHOOK_TRANSPORT, WEBHOOK_URL_GUARD, WEBHOOKS,
  type WebhookDeliveryPage, type WebhookDeliveryRow, type WebhookDispatcher, type WebhookEndpointRow, type WebhookRepository, type WebhookSettings, type WebhookTransport, type WebhookUrlGuard,
} from '../../ports/repositories/webhook.port';
import type { Clock } from '../../ports/runtime.port';
import { CLOCK } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';
import { newWebhookSecret, signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from './webhook-signature';

/** Admin management of webhook endpoints (issue 14). The API allows these to `manage` only. */

export interface WebhookAdminDeps { webhooks: WebhookRepository }
export interface WebhookUrlDeps extends WebhookAdminDeps { guard: WebhookUrlGuard }

async function mustGet(webhooks: WebhookRepository, id: string): Promise<WebhookEndpointRow> {
  assertStorable('id', id);
  const e = await webhooks.getEndpoint(id);
  if (!e) throw new NotFoundError(`webhook ${echoInput(id)} does not exist`);
  return e;
}

/** Registers an endpoint after the outbound URL rules; returns the signing secret (the only time it is shown). */
export class CreateWebhookUseCase {
  static readonly inject: InjectMap<WebhookUrlDeps> = { webhooks: WEBHOOKS, guard: WEBHOOK_URL_GUARD };
  constructor(private readonly deps: WebhookUrlDeps) {}

  async execute(cmd: { url: string; events: DomainEventType[]; description?: string; actor: string }): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
    await this.deps.guard.check(cmd.url, 'url');
    const secret = newWebhookSecret();
    const endpoint = await this.deps.webhooks.createEndpoint({ url: cmd.url, events: cmd.events, description: cmd.description ?? null, secret, createdBy: cmd.actor });
    return { endpoint, secret };
  }
}

export class ListWebhooksUseCase {
  static readonly inject: InjectMap<WebhookAdminDeps> = { webhooks: WEBHOOKS };
  constructor(private readonly deps: WebhookAdminDeps) {}
  execute(): Promise<WebhookEndpointRow[]> { return this.deps.webhooks.listEndpoints(); }
}

export class GetWebhookUseCase {
  static readonly inject: InjectMap<WebhookAdminDeps> = { webhooks: WEBHOOKS };
  constructor(private readonly deps: WebhookAdminDeps) {}
  execute(cmd: { id: string }): Promise<WebhookEndpointRow> { return mustGet(this.deps.webhooks, cmd.id); }
}

/** Changes url (checked again), events, description or active; `active: true` re-enables and resets the failure count. */
export class UpdateWebhookUseCase {
  static readonly inject: InjectMap<WebhookUrlDeps> = { webhooks: WEBHOOKS, guard: WEBHOOK_URL_GUARD };
  constructor(private readonly deps: WebhookUrlDeps) {}

  async execute(cmd: { id: string; url?: string; events?: DomainEventType[]; description?: string | null; active?: boolean; actor: string }): Promise<WebhookEndpointRow> {
    await mustGet(this.deps.webhooks, cmd.id);
    if (cmd.url !== undefined) await this.deps.guard.check(cmd.url, 'url');
    const { id, actor, ...patch } = cmd;
    return this.deps.webhooks.updateEndpoint(id, patch, actor);
  }
}

export class DeleteWebhookUseCase {
  static readonly inject: InjectMap<WebhookAdminDeps> = { webhooks: WEBHOOKS };
  constructor(private readonly deps: WebhookAdminDeps) {}

  async execute(cmd: { id: string; actor: string }): Promise<void> {
    await mustGet(this.deps.webhooks, cmd.id);
    await this.deps.webhooks.deleteEndpoint(cmd.id, cmd.actor);
  }
}

/** A new signing secret (the old one stops working at once); returned once. */
export class RotateWebhookSecretUseCase {
  static readonly inject: InjectMap<WebhookAdminDeps> = { webhooks: WEBHOOKS };
  constructor(private readonly deps: WebhookAdminDeps) {}

  async execute(cmd: { id: string; actor: string }): Promise<{ secret: string }> {
    await mustGet(this.deps.webhooks, cmd.id);
    const secret = newWebhookSecret();
    await this.deps.webhooks.setSecret(cmd.id, secret, cmd.actor);
    return { secret };
  }
}

/** The delivery log of one endpoint, newest first, every attempt with status code, error and duration. */
export class ListWebhookDeliveriesUseCase {
  static readonly inject: InjectMap<WebhookAdminDeps> = { webhooks: WEBHOOKS };
  constructor(private readonly deps: WebhookAdminDeps) {}

  async execute(cmd: { id: string; limit: number; cursor?: string }): Promise<WebhookDeliveryPage> {
    await mustGet(this.deps.webhooks, cmd.id);
    return this.deps.webhooks.listDeliveries(cmd.id, { limit: cmd.limit, cursor: cmd.cursor });
  }
}

export interface PingWebhookDeps extends WebhookUrlDeps { transport: WebhookTransport; settings: WebhookSettings; clock: Clock }

/**
 * POST /v1/webhooks/:id/test: sends one signed `ping` now (`{id, type: "ping", createdAt, data: {endpointId}}`)
 * and reports what the receiver answered. Not queued, not retried, not counted against the endpoint.
 */
export class PingWebhookUseCase {
  static readonly inject: InjectMap<PingWebhookDeps> = { webhooks: WEBHOOKS, guard: WEBHOOK_URL_GUARD, transport: WEBHOOK_TRANSPORT, settings: WEBHOOK_SETTINGS, clock: CLOCK };
  constructor(private readonly deps: PingWebhookDeps) {}

  async execute(cmd: { id: string }): Promise<{ ok: boolean; statusCode: number | null; error: string | null; durationMs: number }> {
    const e = await mustGet(this.deps.webhooks, cmd.id);
    await this.deps.guard.check(e.url, 'url');
    const secret = (await this.deps.webhooks.getSecret(e.id))!;
    const body = JSON.stringify({ id: randomUUID(), type: 'ping', createdAt: this.deps.clock.now().toISOString(), data: { endpointId: e.id } });
    const t = Math.floor(this.deps.clock.now().getTime() / 1000);
    const res = await this.deps.transport.send({
      url: e.url, body, timeoutMs: this.deps.settings.timeoutMs,
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'rag-forensics-webhooks/1', [WEBHOOK_ID_HEADER]: randomUUID(), [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, t, body) },
    });
    const ok = res.statusCode !== null && res.statusCode >= 200 && res.statusCode < 300;
    return { ok, statusCode: res.statusCode, error: ok ? null : (res.error ?? `HTTP ${res.statusCode}`).slice(0, 500), durationMs: res.durationMs };
  }
}

export interface RedeliverWebhookDeps extends WebhookAdminDeps { dispatcher: WebhookDispatcher }

/**
 * Re-drive after the cause is fixed: a FAILED (or DEAD) delivery of an active endpoint becomes PENDING
 * and gets a fresh job (a full set of attempts); idempotent — redelivering one that is already
 * PENDING again is a no-op that returns it. A DELIVERED one is a conflict (nothing to re-drive).
 */
export class RedeliverWebhookUseCase {
  static readonly inject: InjectMap<RedeliverWebhookDeps> = { webhooks: WEBHOOKS, dispatcher: WEBHOOK_DISPATCHER };
  constructor(private readonly deps: RedeliverWebhookDeps) {}

  async execute(cmd: { id: string; deliveryId: string; actor: string }): Promise<WebhookDeliveryRow> {
    const e = await mustGet(this.deps.webhooks, cmd.id);
    assertStorable('deliveryId', cmd.deliveryId);
    const d = await this.deps.webhooks.getDelivery(cmd.deliveryId);
    if (!d || d.endpointId !== e.id) throw new NotFoundError(`delivery ${echoInput(cmd.deliveryId)} of webhook ${e.id} does not exist`);
    if (d.status === 'DELIVERED') throw new ConflictError(`delivery ${d.id} was delivered; nothing to re-drive`);
    if (!e.active) throw new ConflictError(`webhook ${e.id} is disabled (${e.disabledReason ?? 'inactive'}): re-enable it first (PATCH {"active": true})`);
    const row = d.status === 'PENDING' ? d : await this.deps.webhooks.requeueDelivery(d.id, cmd.actor);
    await this.deps.dispatcher.redrive(d.id);
    return row ?? (await this.deps.webhooks.getDelivery(d.id))!;
  }
}
