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

/**
 * What the audit log keeps of a webhook URL: scheme and host only. Receiver URLs often carry a
 * secret in their path or query (e.g. chat-app incoming hooks), and the audit log is readable by
 * more people than the admins who manage webhooks.
 */
export function auditedWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(invalid url)';
  }
}

/** Audit details of an endpoint change (the URL reduced as above). */
export function auditedWebhookPatch(patch: { url?: string; events?: readonly string[]; description?: string | null; active?: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (patch.url !== undefined) out.url = auditedWebhookUrl(patch.url);
  if (patch.events !== undefined) out.events = [...patch.events];
  if (patch.description !== undefined) out.description = patch.description;
  if (patch.active !== undefined) out.active = patch.active;
  return out;
}
