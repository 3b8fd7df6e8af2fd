import { ValidationError } from '../../domain/errors';
import type { WebhookAttemptRecord } from '../../ports/repositories/webhook.port';

/** Keyset cursor of the delivery log (newest first): the last item's createdAt and id. */
export function encodeWebhookCursor(d: { createdAt: Date; id: string }): string {
  return Buffer.from(`${d.createdAt.toISOString()}|${d.id}`).toString('base64url');
}

export function decodeWebhookCursor(cursor: string): { at: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(iso ?? '');
  if (!id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(at.getTime())) throw new ValidationError('cursor is not a cursor this endpoint returned');
  return { at, id };
}

/** Why an endpoint was disabled (stored on it, shown to admins). */
export function webhookDisabledReason(consecutive: number, last: Pick<WebhookAttemptRecord, 'statusCode' | 'error'>): string {
  return `disabled after ${consecutive} consecutive failed deliveries; last error: ${(last.error ?? (last.statusCode !== null ? `HTTP ${last.statusCode}` : 'unknown')).slice(0, 200)}`;
}
