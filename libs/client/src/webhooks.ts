import { createHmac, timingSafeEqual } from 'node:crypto';

/** Event types the service publishes (README "Webhooks"). */
export type WebhookEventType = 'quarantine.created' | 'review.needed' | 'review.decided' | 'feedback.failed' | 'enhancement.created' | 'enhancement.proposed' | 'audit.finished' | 'ping';

/** A delivery's JSON body: ids and short facts, never texts. */
export interface WebhookEvent<D = Record<string, unknown>> {
  id: string;
  type: WebhookEventType | (string & {});
  createdAt: string;
  data: D;
}

export interface VerifyOptions {
  /** Refuse a timestamp further than this from now (replays); default 300 s. */
  toleranceSec?: number;
  /** Clock, ms since the epoch (tests). */
  now?: number;
}

/**
 * True when `Webhook-Signature: t=<unix seconds>,v1=<hex>` is the HMAC-SHA256, keyed with the
 * endpoint's secret, of `t + "." + rawBody`, and `t` is within the tolerance. `rawBody` must be the
 * body exactly as received (before JSON.parse). Constant-time comparison.
 */
export function verifyWebhookSignature(secret: string, rawBody: string | Buffer, signatureHeader: string | null | undefined, opts: VerifyOptions = {}): boolean {
  if (!signatureHeader) return false;
  const parts = new Map(signatureHeader.split(',').map((p) => { const i = p.indexOf('='); return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const; }));
  const t = Number(parts.get('t'));
  const now = (opts.now ?? Date.now()) / 1000;
  if (!Number.isInteger(t) || Math.abs(now - t) > (opts.toleranceSec ?? 300)) return false;
  const v1 = parts.get('v1') ?? '';
  if (!/^[0-9a-f]{64}$/i.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(v1, 'hex'), expected);
}

/** Verifies, then parses: the event, or null when the signature does not hold. */
export function readWebhookEvent<D = Record<string, unknown>>(secret: string, rawBody: string | Buffer, signatureHeader: string | null | undefined, opts?: VerifyOptions): WebhookEvent<D> | null {
  if (!verifyWebhookSignature(secret, rawBody, signatureHeader, opts)) return null;
  return JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as WebhookEvent<D>;
}
