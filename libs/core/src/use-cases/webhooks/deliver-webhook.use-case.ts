import {
  WEBHOOK_SETTINGS, WEBHOOK_TRANSPORT, WEBHOOKS, type WebhookAttemptOutcome, type WebhookRepository, type WebhookSettings, type WebhookTransport,
} from '../../ports/repositories/webhook.port';
import type { Clock } from '../../ports/runtime.port';
import { CLOCK } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';
import { signWebhook, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from './webhook-signature';

export interface DeliverWebhookDeps { webhooks: WebhookRepository; transport: WebhookTransport; settings: WebhookSettings; clock: Clock }

export interface DeliverWebhookCommand {
  deliveryId: string;
  /** No attempt follows this one (the queue's last attempt). */
  lastAttempt: boolean;
  /** Delay before the next attempt when this one fails (recorded as nextAttemptAt). */
  retryDelayMs: number;
}

export interface DeliverWebhookResult {
  /** skipped: not PENDING (already delivered / failed); dead: its endpoint is gone or disabled. */
  outcome: WebhookAttemptOutcome | 'skipped' | 'dead';
  attempt?: number;
  statusCode?: number | null;
  error?: string | null;
  durationMs?: number;
}

/** The error a 2xx-less attempt reports, bounded. */
const ERROR_MAX = 500;

/**
 * One delivery attempt: POST the stored payload, signed (`Webhook-Signature: t=…,v1=…`) at send
 * time, with a timeout; 2xx = delivered (the endpoint's failure count resets). A failure is
 * recorded as `retried` (the queue tries again after `retryDelayMs`), or on the last attempt as
 * `failed`: the delivery is FAILED and the endpoint's consecutive failures grow; at
 * `settings.disableAfter` the endpoint is disabled with the reason (`disabled`). Every attempt is
 * written to the delivery log with its status code, error and duration. A delivery whose endpoint
 * was deleted or disabled meanwhile becomes DEAD without a request.
 */
export class DeliverWebhookUseCase {
  static readonly inject: InjectMap<DeliverWebhookDeps> = { webhooks: WEBHOOKS, transport: WEBHOOK_TRANSPORT, settings: WEBHOOK_SETTINGS, clock: CLOCK };
  constructor(private readonly deps: DeliverWebhookDeps) {}

  async execute(cmd: DeliverWebhookCommand): Promise<DeliverWebhookResult> {
    const { webhooks, transport, settings, clock } = this.deps;
    const delivery = await webhooks.getDelivery(cmd.deliveryId);
    if (!delivery || delivery.status !== 'PENDING') return { outcome: 'skipped' };
    const endpoint = await webhooks.getEndpoint(delivery.endpointId);
    let secret: string | null = null;
    let unreadable: string | null = null;
    try {
      secret = endpoint?.active ? await webhooks.getSecret(endpoint.id) : null;
    } catch (e) {
      // The stored secret cannot be decrypted (WEBHOOK_SECRETS_KEY changed): an attempt that fails
      // like an unreachable receiver, written to the delivery log, instead of a job that throws and
      // leaves the row PENDING for the sweep to re-drive forever.
      unreadable = `the endpoint's signing secret cannot be decrypted with this WEBHOOK_SECRETS_KEY (${(e as Error).message}); rotate the secret or restore the key`;
    }
    if (!endpoint || !endpoint.active || (!secret && !unreadable)) {
      await webhooks.markDead(delivery.id, endpoint ? `endpoint disabled: ${endpoint.disabledReason ?? 'inactive'}` : 'endpoint deleted');
      return { outcome: 'dead' };
    }
    const body = JSON.stringify(delivery.payload);
    const t = Math.floor(clock.now().getTime() / 1000);
    const res = !secret ? { statusCode: null, error: unreadable, durationMs: 0 } : await transport.send({
      url: endpoint.url, body, timeoutMs: settings.timeoutMs,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'rag-forensics-webhooks/1',
        [WEBHOOK_ID_HEADER]: delivery.id,
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, t, body),
      },
    });
    const ok = res.statusCode !== null && res.statusCode >= 200 && res.statusCode < 300;
    const error = ok ? null : (res.error ?? `HTTP ${res.statusCode}`).slice(0, ERROR_MAX);
    const outcome: WebhookAttemptOutcome = ok ? 'delivered' : cmd.lastAttempt ? 'failed' : 'retried';
    const recorded = await webhooks.recordAttempt(delivery.id, {
      outcome, statusCode: res.statusCode, error, durationMs: res.durationMs,
      nextAttemptAt: outcome === 'retried' ? new Date(clock.now().getTime() + cmd.retryDelayMs) : null,
      disableAfter: settings.disableAfter,
    });
    if (!recorded) return { outcome: 'skipped' };
    return { outcome: recorded.outcome, attempt: recorded.delivery.attempts, statusCode: res.statusCode, error, durationMs: res.durationMs };
  }
}
