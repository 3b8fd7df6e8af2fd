import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, Stripe-style: header `Webhook-Signature: t=<unix seconds>,v1=<hex>` where
 * hex = HMAC-SHA256(secret, `${t}.${body}`). Receivers recompute it over the raw body, compare in
 * constant time and refuse a `t` outside their replay window (README: 5 minutes).
 */
export const WEBHOOK_SIGNATURE_HEADER = 'Webhook-Signature';
export const WEBHOOK_ID_HEADER = 'Webhook-Id';
export const WEBHOOK_REPLAY_WINDOW_SEC = 300;

/** A new signing secret: `whsec_` + 32 random bytes (base64url). Shown to the admin once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signWebhook(secret: string, timestampSec: number, body: string): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSec}.${body}`).digest('hex');
  return `t=${timestampSec},v1=${v1}`;
}

/**
 * The receiver's check (the README's snippet does the same): well-formed header, `t` within
 * `toleranceSec` of `nowSec`, and a `v1` equal (constant time) to the HMAC of `t.body`.
 */
export function verifyWebhookSignature(secret: string, header: string, body: string, nowSec: number, toleranceSec = WEBHOOK_REPLAY_WINDOW_SEC): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSec - t) > toleranceSec || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
