import {
  auditedWebhookPatch, auditedWebhookUrl, decodeWebhookCursor, encodeWebhookCursor, NotFoundError, webhookDisabledReason,
  type DomainEventType, type NewWebhookEndpoint, type PendingCursor, type WebhookAttemptOutcome, type WebhookAttemptRecord, type WebhookAttemptRow, type WebhookDeliveryPage,
  type WebhookDeliveryRow, type WebhookEndpointPatch, type WebhookEndpointRow, type WebhookPayload, type WebhookRepository,
} from '@forensics/core';
import type { PrismaClient, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../prisma/generated/client';
import { isUuid } from '../prisma/repositories/prisma-json';
import type { SecretBox } from './secret-box';

const endpointRow = (e: WebhookEndpoint): WebhookEndpointRow => ({
  id: e.id, url: e.url, events: e.events as DomainEventType[], description: e.description, active: e.active, disabledReason: e.disabledReason, disabledAt: e.disabledAt,
  consecutiveFailures: e.consecutiveFailures, createdBy: e.createdBy, createdAt: e.createdAt, updatedAt: e.updatedAt,
});
const deliveryRow = (d: WebhookDelivery): WebhookDeliveryRow => ({
  id: d.id, endpointId: d.endpointId, eventId: d.eventId, eventType: d.eventType as DomainEventType, payload: d.payload as unknown as WebhookPayload, status: d.status,
  attempts: d.attempts, lastStatusCode: d.lastStatusCode, lastError: d.lastError, nextAttemptAt: d.nextAttemptAt, createdAt: d.createdAt, deliveredAt: d.deliveredAt,
});
const attemptRow = (a: WebhookDeliveryAttempt): WebhookAttemptRow => ({
  deliveryId: a.deliveryId, attempt: a.attempt, outcome: a.outcome as WebhookAttemptOutcome, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs, at: a.at,
});

/** Webhooks on Postgres; the signing secret encrypted with `box` (never returned except by getSecret). Audited like the other aggregates. */
export class PrismaWebhookRepository implements WebhookRepository {
  constructor(private readonly db: PrismaClient, private readonly box: SecretBox) {}

  async createEndpoint(e: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
    return this.db.$transaction(async (tx) => {
      const row = await tx.webhookEndpoint.create({ data: { url: e.url, events: [...e.events], description: e.description ?? null, secretCipher: this.box.seal(e.secret), createdBy: e.createdBy } });
      await tx.auditLog.create({ data: { actor: e.createdBy, action: 'webhook.created', entityType: 'WebhookEndpoint', entityId: row.id, details: { url: auditedWebhookUrl(e.url), events: [...e.events] } } });
      return endpointRow(row);
    });
  }

  async getEndpoint(id: string): Promise<WebhookEndpointRow | null> {
    if (!isUuid(id)) return null;
    const e = await this.db.webhookEndpoint.findUnique({ where: { id } });
    return e ? endpointRow(e) : null;
  }

  async listEndpoints(): Promise<WebhookEndpointRow[]> {
    return (await this.db.webhookEndpoint.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 })).map(endpointRow);
  }

  async updateEndpoint(id: string, patch: WebhookEndpointPatch, actor: string): Promise<WebhookEndpointRow> {
    if (!isUuid(id)) throw new NotFoundError(`webhook ${id} does not exist`);
    return this.db.$transaction(async (tx) => {
      const cur = await tx.webhookEndpoint.findUnique({ where: { id } });
      if (!cur) throw new NotFoundError(`webhook ${id} does not exist`);
      const data: Record<string, unknown> = {};
      if (patch.url !== undefined) data.url = patch.url;
      if (patch.events !== undefined) data.events = [...patch.events];
      if (patch.description !== undefined) data.description = patch.description;
      if (patch.active === true && !cur.active) Object.assign(data, { active: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0 });
      if (patch.active === false && cur.active) Object.assign(data, { active: false, disabledReason: `disabled by ${actor}`, disabledAt: new Date() });
      const row = await tx.webhookEndpoint.update({ where: { id }, data });
      await tx.auditLog.create({ data: { actor, action: 'webhook.updated', entityType: 'WebhookEndpoint', entityId: id, details: auditedWebhookPatch(patch) as never } });
      return endpointRow(row);
    });
  }

  async deleteEndpoint(id: string, actor: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.deleteMany({ where: { id } });
      if (count) await tx.auditLog.create({ data: { actor, action: 'webhook.deleted', entityType: 'WebhookEndpoint', entityId: id } });
      return count > 0;
    });
  }

  async getSecret(id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const e = await this.db.webhookEndpoint.findUnique({ where: { id }, select: { secretCipher: true } });
    return e ? this.box.open(e.secretCipher) : null;
  }

  async setSecret(id: string, secret: string, actor: string): Promise<void> {
    if (!isUuid(id)) throw new NotFoundError(`webhook ${id} does not exist`);
    await this.db.$transaction(async (tx) => {
      const { count } = await tx.webhookEndpoint.updateMany({ where: { id }, data: { secretCipher: this.box.seal(secret) } });
      if (!count) throw new NotFoundError(`webhook ${id} does not exist`);
      await tx.auditLog.create({ data: { actor, action: 'webhook.secret-rotated', entityType: 'WebhookEndpoint', entityId: id } });
    });
  }

  async subscribedTo(type: DomainEventType): Promise<WebhookEndpointRow[]> {
    return (await this.db.webhookEndpoint.findMany({ where: { active: true, events: { has: type } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(endpointRow);
  }

  async createDeliveries(rows: ReadonlyArray<{ id: string; endpointId: string; payload: WebhookPayload }>): Promise<WebhookDeliveryRow[]> {
    if (!rows.length) return [];
    const created = await this.db.webhookDelivery.createManyAndReturn({
      data: rows.map((r) => ({ id: r.id, endpointId: r.endpointId, eventId: r.payload.id, eventType: r.payload.type, payload: r.payload as never })),
    });
    const byId = new Map(created.map((d) => [d.id, d]));
    return rows.map((r) => deliveryRow(byId.get(r.id)!));
  }

  async getDelivery(id: string): Promise<WebhookDeliveryRow | null> {
    if (!isUuid(id)) return null;
    const d = await this.db.webhookDelivery.findUnique({ where: { id } });
    return d ? deliveryRow(d) : null;
  }

  async recordAttempt(deliveryId: string, a: WebhookAttemptRecord) {
    if (!isUuid(deliveryId)) return null;
    return this.db.$transaction(async (tx) => {
      const now = new Date();
      const status = a.outcome === 'delivered' ? 'DELIVERED' : a.outcome === 'retried' ? 'PENDING' : 'FAILED';
      // Compare-and-set on PENDING: a late or duplicate attempt changes nothing.
      const [d] = await tx.webhookDelivery.updateManyAndReturn({
        where: { id: deliveryId, status: 'PENDING' },
        data: {
          status, attempts: { increment: 1 }, lastStatusCode: a.statusCode, lastError: a.error,
          nextAttemptAt: a.outcome === 'retried' ? a.nextAttemptAt ?? null : null, ...(a.outcome === 'delivered' ? { deliveredAt: now } : {}),
        },
      });
      if (!d) return null;
      let outcome = a.outcome;
      let endpoint: WebhookEndpoint;
      if (a.outcome === 'delivered') {
        endpoint = await tx.webhookEndpoint.update({ where: { id: d.endpointId }, data: { consecutiveFailures: 0 } });
      } else if (a.outcome === 'retried') {
        endpoint = (await tx.webhookEndpoint.findUnique({ where: { id: d.endpointId } }))!;
      } else {
        endpoint = await tx.webhookEndpoint.update({ where: { id: d.endpointId }, data: { consecutiveFailures: { increment: 1 } } });
        if (endpoint.active && a.disableAfter && endpoint.consecutiveFailures >= a.disableAfter) {
          const reason = webhookDisabledReason(endpoint.consecutiveFailures, a);
          const [off] = await tx.webhookEndpoint.updateManyAndReturn({ where: { id: endpoint.id, active: true }, data: { active: false, disabledAt: now, disabledReason: reason } });
          if (off) {
            endpoint = off;
            outcome = 'disabled';
            await tx.auditLog.create({ data: { actor: 'webhook-worker', action: 'webhook.disabled', entityType: 'WebhookEndpoint', entityId: endpoint.id, details: { reason } } });
          }
        }
      }
      await tx.webhookDeliveryAttempt.create({ data: { deliveryId, attempt: d.attempts, outcome, statusCode: a.statusCode, error: a.error, durationMs: Math.round(a.durationMs) } });
      return { delivery: deliveryRow(d), endpoint: endpointRow(endpoint), outcome };
    });
  }

  async markDead(deliveryId: string, reason: string): Promise<boolean> {
    if (!isUuid(deliveryId)) return false;
    const { count } = await this.db.webhookDelivery.updateMany({ where: { id: deliveryId, status: 'PENDING' }, data: { status: 'DEAD', lastError: reason, nextAttemptAt: null } });
    return count > 0;
  }

  async requeueDelivery(deliveryId: string, actor: string): Promise<WebhookDeliveryRow | null> {
    if (!isUuid(deliveryId)) return null;
    return this.db.$transaction(async (tx) => {
      const [d] = await tx.webhookDelivery.updateManyAndReturn({ where: { id: deliveryId, status: { in: ['FAILED', 'DEAD'] } }, data: { status: 'PENDING', nextAttemptAt: null } });
      if (!d) return null;
      await tx.auditLog.create({ data: { actor, action: 'webhook.redelivered', entityType: 'WebhookDelivery', entityId: deliveryId, details: { endpointId: d.endpointId } } });
      return deliveryRow(d);
    });
  }

  async listPending(createdBefore: Date, limit: number, after?: PendingCursor | null): Promise<WebhookDeliveryRow[]> {
    const later = after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {};
    return (await this.db.webhookDelivery.findMany({ where: { status: 'PENDING', createdAt: { lt: createdBefore }, ...later }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: limit })).map(deliveryRow);
  }

  async listDeliveries(endpointId: string, opts: { limit: number; cursor?: string }): Promise<WebhookDeliveryPage> {
    if (!isUuid(endpointId)) return { items: [], nextCursor: null };
    const after = opts.cursor ? decodeWebhookCursor(opts.cursor) : null;
    const rows = await this.db.webhookDelivery.findMany({
      where: { endpointId, ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: opts.limit + 1,
      include: { attemptLog: { orderBy: { attempt: 'asc' } } },
    });
    const page = rows.slice(0, opts.limit);
    return {
      items: page.map(({ attemptLog, ...d }) => ({ ...deliveryRow(d), attemptLog: attemptLog.map(attemptRow) })),
      nextCursor: rows.length > opts.limit ? encodeWebhookCursor(page[page.length - 1]) : null,
    };
  }
}
