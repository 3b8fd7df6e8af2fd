import { ValidationError } from '../../../domain/errors';

/** Keyset cursor of the FAILED events (oldest failure first): the last row's updatedAt and id. */
export function encodeEventsCursor(r: { updatedAt: Date; id: string }): string {
  return Buffer.from(`${r.updatedAt.toISOString()}|${r.id}`).toString('base64url');
}

export function decodeEventsCursor(cursor: string): { updatedAt: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const updatedAt = new Date(iso ?? '');
  if (!id || !/^[0-9a-f-]{36}$/i.test(id) || Number.isNaN(updatedAt.getTime())) throw new ValidationError('eventsCursor is not a cursor this endpoint returned (pass nextEventsCursor unchanged)');
  return { updatedAt, id };
}

/** Position in the failed sets of the queues (queues in name order, each newest failure first). */
export function encodeJobsCursor(p: { queue: string; offset: number }): string {
  return Buffer.from(JSON.stringify([p.queue, p.offset])).toString('base64url');
}

export function decodeJobsCursor(cursor: string): { queue: string; offset: number } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'string' && Number.isInteger(v[1]) && v[1] >= 0) return { queue: v[0], offset: v[1] };
  } catch { /* below */ }
  throw new ValidationError('jobsCursor is not a cursor this endpoint returned (pass nextJobsCursor unchanged)');
}
