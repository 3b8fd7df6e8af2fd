import type { NewDocument } from '../ports/repositories/records';
import { textHash } from './text-identity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `s` is a UUID (the form of every id the registry stores). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/**
 * The registry row of a vector-store point it does not know yet, as the store holds it: the point's id, its text
 * (identity = the text's hash), `externalId` from its payload, no metadata. Used where unknown points get registered:
 * the traceback (points it retrieves) and the reconcile audit (`register: true`).
 */
export function documentOfStorePoint(collection: string, point: { id: string; text: string; payload?: Readonly<Record<string, unknown>> | null }): NewDocument {
  const externalId = point.payload?.externalId;
  return { id: point.id, collection, externalId: typeof externalId === 'string' ? externalId : null, textHash: textHash(point.text), text: point.text, metadata: null };
}
