import type { DomainEventType } from '../domain-events.port';
import type { Token } from '../token';
import type { JsonObject } from './records';

/**
 * Webhooks (issue 14): subscriptions, the delivery outbox (one row per event and endpoint: Postgres
 * is the source of truth, a queue job only carries the delivery id) and the log of every attempt.
 * Implemented by Prisma (libs/infra/src/webhooks, the secret encrypted at rest) and by an in-memory
 * fake (@forensics/core/testing); both pass the webhook cases of test/repositories.contract.test.ts.
 */

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'DEAD';
/** What one attempt came to: delivered; failed and retried; failed for good; failed for good and the endpoint was disabled. */
export type WebhookAttemptOutcome = 'delivered' | 'retried' | 'failed' | 'disabled';

/** An endpoint as shown to admins: never the secret. */
export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: DomainEventType[];
  description: string | null;
  active: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  consecutiveFailures: number;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewWebhookEndpoint { url: string; events: DomainEventType[]; description?: string | null; secret: string; createdBy: string }
export interface WebhookEndpointPatch { url?: string; events?: DomainEventType[]; description?: string | null; active?: boolean }

/** The JSON body a receiver gets: `{ id, type, createdAt, data }` (id = the event's id). */
export interface WebhookPayload { id: string; type: DomainEventType; createdAt: string; data: JsonObject }

export interface WebhookDeliveryRow {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: DomainEventType;
  payload: WebhookPayload;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface WebhookAttemptRow {
  deliveryId: string;
  attempt: number;
  outcome: WebhookAttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
}

/** One attempt's result, recorded with the delivery's new state in one transaction. */
export interface WebhookAttemptRecord {
  outcome: WebhookAttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** retried: when the next attempt is due. */
  nextAttemptAt?: Date | null;
  /** Consecutive failed deliveries at which the endpoint is disabled (failed outcomes only). */
  disableAfter?: number;
}

/** A page of the delivery log: newest first, each delivery with its attempts (oldest first). */
export interface WebhookDeliveryPage { items: Array<WebhookDeliveryRow & { attemptLog: WebhookAttemptRow[] }>; nextCursor: string | null }

export interface WebhookRepository {
  /** Audited ('webhook.created'; url and events, never the secret). */
  createEndpoint(e: NewWebhookEndpoint): Promise<WebhookEndpointRow>;
  getEndpoint(id: string): Promise<WebhookEndpointRow | null>;
  /** Oldest first. */
  listEndpoints(): Promise<WebhookEndpointRow[]>;
  /**
   * Audited ('webhook.updated'). Re-enabling (`active: true` on a disabled endpoint) clears
   * disabledReason/disabledAt and consecutiveFailures; `active: false` by an admin sets the reason
   * 'disabled by <actor>'. Unknown id → NotFoundError.
   */
  updateEndpoint(id: string, patch: WebhookEndpointPatch, actor: string): Promise<WebhookEndpointRow>;
  /** Deletes the endpoint and its delivery log (audited 'webhook.deleted'); false when unknown. */
  deleteEndpoint(id: string, actor: string): Promise<boolean>;
  /** The signing secret (decrypted); null for an unknown endpoint. */
  getSecret(id: string): Promise<string | null>;
  /** Replaces the signing secret (audited 'webhook.secret-rotated'). Unknown id → NotFoundError. */
  setSecret(id: string, secret: string, actor: string): Promise<void>;
  /** Active endpoints subscribed to `type`. */
  subscribedTo(type: DomainEventType): Promise<WebhookEndpointRow[]>;

  /** One PENDING delivery per endpoint, with the given ids, in one transaction. */
  createDeliveries(rows: ReadonlyArray<{ id: string; endpointId: string; payload: WebhookPayload }>): Promise<WebhookDeliveryRow[]>;
  getDelivery(id: string): Promise<WebhookDeliveryRow | null>;
  /**
   * Records an attempt (numbered attempts + 1) and applies it, in one transaction:
   * delivered → DELIVERED, deliveredAt, the endpoint's consecutiveFailures = 0;
   * retried → stays PENDING with nextAttemptAt;
   * failed / disabled → FAILED; the endpoint's consecutiveFailures + 1, and once it reaches
   * `disableAfter` the endpoint is disabled with a reason (then the attempt's outcome is 'disabled').
   * Only a PENDING delivery is changed; anything else returns null (nothing written).
   */
  recordAttempt(deliveryId: string, a: WebhookAttemptRecord): Promise<{ delivery: WebhookDeliveryRow; endpoint: WebhookEndpointRow; outcome: WebhookAttemptOutcome } | null>;
  /** PENDING → DEAD with a reason (the endpoint was disabled or deleted meanwhile); false when not PENDING. */
  markDead(deliveryId: string, reason: string): Promise<boolean>;
  /**
   * FAILED or DEAD → PENDING again (an admin's redelivery after fixing the receiver; audited
   * 'webhook.redelivered'); the attempt log is kept and numbering continues. Null when the delivery
   * is unknown or not FAILED / DEAD (nothing written).
   */
  requeueDelivery(deliveryId: string, actor: string): Promise<WebhookDeliveryRow | null>;
  /**
   * PENDING deliveries created before `createdBefore`, oldest first (the re-drive sweep); with
   * `after`, only those after that (createdAt, id) key, so the sweep can page past rows that have live jobs.
   */
  listPending(createdBefore: Date, limit: number, after?: PendingCursor | null): Promise<WebhookDeliveryRow[]>;
  /** The delivery log of one endpoint; `cursor` from the previous page. */
  listDeliveries(endpointId: string, opts: { limit: number; cursor?: string }): Promise<WebhookDeliveryPage>;
}

/** Where the re-drive sweep stopped: the last (createdAt, id) it looked at. */
export interface PendingCursor { createdAt: Date; id: string }

export const WEBHOOKS = Symbol('WebhookRepository') as Token<WebhookRepository>;

/** The outbound request of one attempt, signed by the caller. */
export interface WebhookRequest { url: string; body: string; headers: Record<string, string>; timeoutMs: number }
export interface WebhookResponse { statusCode: number | null; error: string | null; durationMs: number }

/**
 * Sends one webhook request (libs/infra: node http/https with the outbound URL guard applied to the
 * address actually connected to). Never throws: a network error or timeout is `statusCode: null`
 * with the error.
 */
export interface WebhookTransport {
  send(req: WebhookRequest): Promise<WebhookResponse>;
}
export const WEBHOOK_TRANSPORT = Symbol('WebhookTransport') as Token<WebhookTransport>;

/** Outbound URL rules (no loopback / private ranges unless allowed): throws ValidationError naming `field`. */
export interface WebhookUrlGuard {
  check(url: string, field: string): Promise<void>;
}
export const WEBHOOK_URL_GUARD = Symbol('WebhookUrlGuard') as Token<WebhookUrlGuard>;

/** Enqueues delivery jobs (bounded; a failure leaves the PENDING row to the re-drive sweep). */
export interface WebhookDispatcher {
  enqueue(deliveryIds: readonly string[]): Promise<void>;
  /** A PENDING delivery with no live job gets one; returns what was done. */
  redrive(deliveryId: string): Promise<'added' | 'live'>;
}
export const WEBHOOK_DISPATCHER = Symbol('WebhookDispatcher') as Token<WebhookDispatcher>;

export interface WebhookSettings {
  /** Per attempt. */
  timeoutMs: number;
  /** Attempts per delivery (the queue's attempts). */
  attempts: number;
  /** Consecutive failed deliveries that disable an endpoint. */
  disableAfter: number;
}
export const WEBHOOK_SETTINGS = Symbol('WebhookSettings') as Token<WebhookSettings>;
