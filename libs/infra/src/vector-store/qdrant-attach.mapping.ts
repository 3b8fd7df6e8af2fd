/**
 * Attach mode (an existing Qdrant collection owned by the RAG app): how the app's points map to the
 * service's records. Pure functions, unit-tested without a server (qdrant-attach.mapping.spec.ts).
 *
 * Ids. The service's document ids are UUIDs (Postgres `Document.id`, `VectorRecord.id`). Qdrant point
 * ids are either UUIDs or unsigned integers:
 * - `uuid`: identity (lower-case, as Qdrant returns them);
 * - `integer`: a DETERMINISTIC, reversible mapping, so no mapping table is needed and every process
 *   (API, worker) computes the same document id for the same point:
 *     point 0x0123456789abcdef  ↔  00000000-0000-8012-8345-006789abcdef
 *   i.e. the 16 hex digits of the integer spread over the last three groups behind a fixed
 *   all-zero prefix and the UUID version/variant nibbles `8` (RFC 9562 "custom" UUIDv8). The zero
 *   prefix makes mapped ids recognisable (`pointIdOf` refuses any other UUID in integer mode).
 *   The JSON the Qdrant REST API returns is parsed as IEEE doubles, so integer ids above
 *   Number.MAX_SAFE_INTEGER (2^53 − 1) cannot be represented exactly and are refused.
 */
export type AttachIdType = 'uuid' | 'integer';

export interface QdrantAttachConfig {
  /** The app's Qdrant collection (read, searched, flagged — never otherwise written). */
  collection: string;
  /** Payload key holding the text; a dotted path reaches into nested objects ('doc.text'). Default 'text'. */
  textKey?: string;
  /** Named vector to search (collections with several named vectors); unset = the default (unnamed) vector. */
  vectorName?: string;
  /** Type of the app's point ids. Default 'uuid'. */
  idType?: AttachIdType;
  /** Payload flag set to true on quarantined points (the app's searches exclude it). Default 'rf_quarantined'. */
  quarantineKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAPPED = /^00000000-0000-8([0-9a-f]{3})-8([0-9a-f]{3})-00([0-9a-f]{10})$/;

export class AttachIdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AttachIdError';
  }
}

/** Qdrant point id → the service's document id. */
export function documentIdOf(pointId: string | number, idType: AttachIdType): string {
  if (idType === 'uuid') {
    if (typeof pointId !== 'string' || !UUID.test(pointId)) {
      throw new AttachIdError(`point id ${JSON.stringify(pointId)} is not a UUID (QDRANT_ATTACH_ID_TYPE=uuid)`);
    }
    return pointId.toLowerCase();
  }
  const n = typeof pointId === 'number' ? pointId : /^\d+$/.test(pointId) ? Number(pointId) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new AttachIdError(
      `point id ${JSON.stringify(pointId)} is not an unsigned integer ≤ 2^53-1 (QDRANT_ATTACH_ID_TYPE=integer)`,
    );
  }
  const hex = n.toString(16).padStart(16, '0');
  return `00000000-0000-8${hex.slice(0, 3)}-8${hex.slice(3, 6)}-00${hex.slice(6)}`;
}

/** The service's document id → Qdrant point id, or null when the id cannot name a point of the app's collection. */
export function pointIdOf(documentId: string, idType: AttachIdType): string | number | null {
  if (typeof documentId !== 'string' || !UUID.test(documentId)) return null;
  const id = documentId.toLowerCase();
  if (idType === 'uuid') return id;
  const m = MAPPED.exec(id);
  if (!m) return null;
  const n = parseInt(`${m[1]}${m[2]}${m[3]}`, 16);
  return Number.isSafeInteger(n) ? n : null;
}

/** The text at `textKey` (dotted path) of a point's payload; '' when absent or not a string. */
export function textOf(payload: Record<string, unknown> | null | undefined, textKey: string): string {
  let value: unknown = payload ?? {};
  for (const part of textKey.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
    value = (value as Record<string, unknown>)[part];
  }
  return typeof value === 'string' ? value : '';
}

/**
 * The service-side payload of an attached point: `externalId` is the app's point id as a string (what
 * RunTraceback's registerUnknown stores as Document.externalId), `source` marks it as attached.
 * The app's own payload is not copied (it can be large and is the app's business).
 */
export function servicePayloadOf(pointId: string | number): Record<string, unknown> {
  return { externalId: String(pointId), source: 'qdrant-attached' };
}

/** Normalised configuration with defaults; throws on values Qdrant would reject. */
export function resolveAttachConfig(config: QdrantAttachConfig): Required<Omit<QdrantAttachConfig, 'vectorName'>> & { vectorName?: string } {
  if (!config || typeof config.collection !== 'string' || config.collection.trim() === '') {
    throw new AttachIdError('attach mode: the collection name is required (QDRANT_ATTACH_COLLECTION)');
  }
  const idType = config.idType ?? 'uuid';
  if (idType !== 'uuid' && idType !== 'integer') throw new AttachIdError(`attach mode: id type must be uuid or integer, got ${String(idType)}`);
  const textKey = config.textKey?.trim() || 'text';
  const quarantineKey = config.quarantineKey?.trim() || 'rf_quarantined';
  if (quarantineKey.includes('.') || quarantineKey.includes('[')) {
    throw new AttachIdError('attach mode: the quarantine key must be a top-level payload key (no dots or brackets)');
  }
  return { collection: config.collection.trim(), textKey, idType, quarantineKey, vectorName: config.vectorName?.trim() || undefined };
}
