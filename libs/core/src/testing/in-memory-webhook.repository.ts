import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../domain/errors';
import type { DomainEventType } from '../ports/domain-events.port';
import type {
  NewWebhookEndpoint, PendingCursor, WebhookAttemptRecord, WebhookAttemptRow, WebhookDeliveryPage, WebhookDeliveryRow, WebhookEndpointPatch, WebhookEndpointRow,
  WebhookPayload, WebhookRepository,
} from '../ports/repositories/webhook.port';
import { auditedWebhookPatch, auditedWebhookUrl, decodeWebhookCursor, encodeWebhookCursor, webhookDisabledReason } from '../use-cases/webhooks/webhook-cursor';
import { byTimeThenId, ConstraintViolation, copy, emptyState, InMemoryRepository, isUuid, type InMemoryState } from './in-memory-state';

interface StoredEndpoint extends WebhookEndpointRow { secret: string }

/**
 * Webhook endpoints, deliveries and attempts in memory, with the Prisma adapter's semantics
 * (contract: test/repositories.contract.test.ts): the secret never leaves except through
 * getSecret, deliveries need an existing endpoint and are deleted with it, attempts change only
 * PENDING deliveries, N consecutive failed deliveries disable the endpoint. Audits into `state`.
 */
export class InMemoryWebhookRepository extends InMemoryRepository implements WebhookRepository {
  private readonly endpoints = new Map<string, StoredEndpoint>();
  private readonly deliveries = new Map<string, WebhookDeliveryRow>();
  private readonly attempts: WebhookAttemptRow[] = [];

  constructor(state: InMemoryState = emptyState(), now: () => Date = () => new Date()) {
    super(state, now);
  }

  private view(e: StoredEndpoint): WebhookEndpointRow {
    const { secret: _secret, ...row } = e;
    return copy(row);
  }

  async createEndpoint(e: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
    const at = this.now();
    const row: StoredEndpoint = {
      id: randomUUID(), url: e.url, events: [...e.events], description: e.description ?? null, secret: e.secret, active: true, disabledReason: null, disabledAt: null,
      consecutiveFailures: 0, createdBy: e.createdBy, createdAt: at, updatedAt: at,
    };
    this.endpoints.set(row.id, row);
    this.log({ actor: e.createdBy, action: 'webhook.created', entityType: 'WebhookEndpoint', entityId: row.id, details: { url: auditedWebhookUrl(e.url), events: [...e.events] } });
    return this.view(row);
  }

  async getEndpoint(id: string): Promise<WebhookEndpointRow | null> {
    const e = this.endpoints.get(id);
    return e ? this.view(e) : null;
  }

  async listEndpoints(): Promise<WebhookEndpointRow[]> {
    return [...this.endpoints.values()].sort(byTimeThenId((e) => e.createdAt)).map((e) => this.view(e));
  }

  async updateEndpoint(id: string, patch: WebhookEndpointPatch, actor: string): Promise<WebhookEndpointRow> {
    const e = this.endpoints.get(id);
    if (!e) throw new NotFoundError(`webhook ${id} does not exist`);
    if (patch.url !== undefined) e.url = patch.url;
    if (patch.events !== undefined) e.events = [...patch.events];
    if (patch.description !== undefined) e.description = patch.description;
    if (patch.active === true && !e.active) Object.assign(e, { active: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0 });
    if (patch.active === false && e.active) Object.assign(e, { active: false, disabledReason: `disabled by ${actor}`, disabledAt: this.now() });
    e.updatedAt = this.now();
    this.log({ actor, action: 'webhook.updated', entityType: 'WebhookEndpoint', entityId: id, details: auditedWebhookPatch(patch) });
    return this.view(e);
  }

  async deleteEndpoint(id: string, actor: string): Promise<boolean> {
    if (!this.endpoints.delete(id)) return false;
    for (const d of [...this.deliveries.values()]) if (d.endpointId === id) this.deliveries.delete(d.id);
    for (let i = this.attempts.length - 1; i >= 0; i--) if (!this.deliveries.has(this.attempts[i].deliveryId)) this.attempts.splice(i, 1);
    this.log({ actor, action: 'webhook.deleted', entityType: 'WebhookEndpoint', entityId: id });
    return true;
  }

  async getSecret(id: string): Promise<string | null> {
    return this.endpoints.get(id)?.secret ?? null;
  }

  async setSecret(id: string, secret: string, actor: string): Promise<void> {
    const e = this.endpoints.get(id);
    if (!e) throw new NotFoundError(`webhook ${id} does not exist`);
    e.secret = secret;
    e.updatedAt = this.now();
    this.log({ actor, action: 'webhook.secret-rotated', entityType: 'WebhookEndpoint', entityId: id });
  }

  async subscribedTo(type: DomainEventType): Promise<WebhookEndpointRow[]> {
    return (await this.listEndpoints()).filter((e) => e.active && e.events.includes(type));
  }

  async createDeliveries(rows: ReadonlyArray<{ id: string; endpointId: string; payload: WebhookPayload }>): Promise<WebhookDeliveryRow[]> {
    for (const r of rows) {
      if (!isUuid(r.id) || !isUuid(r.payload.id)) throw new ConstraintViolation('delivery and event ids must be uuids');
      if (!this.endpoints.has(r.endpointId)) throw new ConstraintViolation(`foreign key: webhook ${r.endpointId} does not exist`);
      if (this.deliveries.has(r.id)) throw new ConstraintViolation(`unique constraint: delivery ${r.id} exists`);
    }
    const at = this.now();
    return rows.map((r) => {
      const row: WebhookDeliveryRow = {
        id: r.id, endpointId: r.endpointId, eventId: r.payload.id, eventType: r.payload.type, payload: copy(r.payload), status: 'PENDING', attempts: 0,
        lastStatusCode: null, lastError: null, nextAttemptAt: null, createdAt: at, deliveredAt: null,
      };
      this.deliveries.set(row.id, row);
      return copy(row);
    });
  }

  async getDelivery(id: string): Promise<WebhookDeliveryRow | null> {
    const d = this.deliveries.get(id);
    return d ? copy(d) : null;
  }

  async recordAttempt(deliveryId: string, a: WebhookAttemptRecord) {
    const d = this.deliveries.get(deliveryId);
    if (!d || d.status !== 'PENDING') return null;
    const e = this.endpoints.get(d.endpointId)!;
    const at = this.now();
    let outcome = a.outcome;
    d.attempts += 1;
    d.lastStatusCode = a.statusCode;
    d.lastError = a.error;
    if (outcome === 'delivered') {
      Object.assign(d, { status: 'DELIVERED', deliveredAt: at, nextAttemptAt: null });
      e.consecutiveFailures = 0;
    } else if (outcome === 'retried') {
      d.nextAttemptAt = a.nextAttemptAt ?? null;
    } else {
      Object.assign(d, { status: 'FAILED', nextAttemptAt: null });
      e.consecutiveFailures += 1;
      if (e.active && a.disableAfter && e.consecutiveFailures >= a.disableAfter) {
        Object.assign(e, { active: false, disabledAt: at, disabledReason: webhookDisabledReason(e.consecutiveFailures, a) });
        outcome = 'disabled';
        this.log({ actor: 'webhook-worker', action: 'webhook.disabled', entityType: 'WebhookEndpoint', entityId: e.id, details: { reason: e.disabledReason } });
      }
    }
    e.updatedAt = at;
    this.attempts.push({ deliveryId, attempt: d.attempts, outcome, statusCode: a.statusCode, error: a.error, durationMs: Math.round(a.durationMs), at });
    return { delivery: copy(d), endpoint: this.view(e), outcome };
  }

  async markDead(deliveryId: string, reason: string): Promise<boolean> {
    const d = this.deliveries.get(deliveryId);
    if (!d || d.status !== 'PENDING') return false;
    Object.assign(d, { status: 'DEAD', lastError: reason, nextAttemptAt: null });
    return true;
  }

  async requeueDelivery(deliveryId: string, actor: string): Promise<WebhookDeliveryRow | null> {
    const d = this.deliveries.get(deliveryId);
    if (!d || (d.status !== 'FAILED' && d.status !== 'DEAD')) return null;
    Object.assign(d, { status: 'PENDING', nextAttemptAt: null });
    this.log({ actor, action: 'webhook.redelivered', entityType: 'WebhookDelivery', entityId: deliveryId, details: { endpointId: d.endpointId } });
    return copy(d);
  }

  async listPending(createdBefore: Date, limit: number, after?: PendingCursor | null): Promise<WebhookDeliveryRow[]> {
    const later = (d: WebhookDeliveryRow) => !after || d.createdAt.getTime() > after.createdAt.getTime() || (d.createdAt.getTime() === after.createdAt.getTime() && d.id > after.id);
    return [...this.deliveries.values()].filter((d) => d.status === 'PENDING' && d.createdAt < createdBefore && later(d)).sort(byTimeThenId((d) => d.createdAt)).slice(0, limit).map(copy);
  }

  async listDeliveries(endpointId: string, opts: { limit: number; cursor?: string }): Promise<WebhookDeliveryPage> {
    const after = opts.cursor ? decodeWebhookCursor(opts.cursor) : null;
    const newestFirst = [...this.deliveries.values()].filter((d) => d.endpointId === endpointId).sort(byTimeThenId((d) => d.createdAt)).reverse();
    const rest = after ? newestFirst.filter((d) => d.createdAt.getTime() < after.at.getTime() || (d.createdAt.getTime() === after.at.getTime() && d.id < after.id)) : newestFirst;
    const page = rest.slice(0, opts.limit);
    return {
      items: page.map((d) => ({ ...copy(d), attemptLog: this.attempts.filter((x) => x.deliveryId === d.id).sort((x, y) => x.attempt - y.attempt).map(copy) })),
      nextCursor: rest.length > opts.limit ? encodeWebhookCursor(page[page.length - 1]) : null,
    };
  }
}
