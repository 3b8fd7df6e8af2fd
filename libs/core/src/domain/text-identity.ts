import { createHash } from 'node:crypto';

/**
 * `[LATEST]` / `[/LATEST]` are reserved for benign-text enhancement (RAGForensics, arXiv 2504.21668, App. 8.3):
 * only that path may create them. Every ingested text and every user field goes through this
 * function, which removes the markers (any case, inner spaces tolerated).
 */
const RESERVED_MARKER = /\[\s*\/?\s*latest\s*\]/gi;

export function stripReservedMarkers(text: string): string {
  // Loop: removing one marker must not assemble another ("[LAT[LATEST]EST]").
  let prev: string;
  let cur = text;
  do {
    prev = cur;
    cur = cur.replace(RESERVED_MARKER, '');
  } while (cur !== prev);
  return cur;
}

export function hasReservedMarkers(text: string): boolean {
  RESERVED_MARKER.lastIndex = 0;
  const found = RESERVED_MARKER.test(text);
  RESERVED_MARKER.lastIndex = 0;
  return found;
}

/** sha256 of the NFC-normalised text: the identity of a text within a collection. */
export function textHash(text: string): string {
  return createHash('sha256').update(text.normalize('NFC'), 'utf8').digest('hex');
}

/**
 * Deterministic UUID (v5-shaped, from sha256) for (collection, text hash): the same text ingested
 * twice, by any process, gets the same id in Postgres and in the vector store.
 */
export function documentIdFor(collection: string, hash: string): string {
  const h = createHash('sha256').update(`${collection}\u0000${hash}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Key of the verdict cache: (text hash, q, t, judge model, prompt version). */
export function verdictCacheKey(parts: { textHash: string; query: string; wrongAnswer: string; judgeModel: string; promptVersion: string }): string {
  return createHash('sha256')
    .update([parts.textHash, parts.query, parts.wrongAnswer, parts.judgeModel, parts.promptVersion].join('\u0000'))
    .digest('hex');
}

export const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
