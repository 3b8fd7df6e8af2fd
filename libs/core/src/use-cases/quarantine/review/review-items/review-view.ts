import { ValidationError } from '../../../../domain/errors';
import { isUuid } from '../../../../domain/store-point';
import type { ReviewCursor, ReviewItemRow, ReviewSort } from '../../../../ports/repositories';

/** ItemSummary of the review API (docs/review-api.md). */
export function itemSummary(i: ReviewItemRow) {
  return {
    id: i.id, state: i.state, documentId: i.documentId, externalId: i.externalId, metadata: i.metadata, collection: i.collection, textPreview: i.textPreview, feedbackId: i.feedbackId,
    query: i.query, wrongAnswer: i.wrongAnswer, judgeKind: i.judgeKind, judgeLabel: i.judgeLabel, suspicion: i.suspicion,
    createdAt: i.createdAt.toISOString(), decision: i.decision, decidedBy: i.decidedBy, decidedAt: i.decidedAt?.toISOString() ?? null, note: i.note, reasons: i.reasons,
    servedDuringReview: i.servedDuringReview, claim: i.claim ? { by: i.claim.by, until: i.claim.until.toISOString() } : null,
  };
}
export type ItemSummary = ReturnType<typeof itemSummary>;

/** Opaque keyset cursors: base64url of the last row's sort key. */
export function encodeCursor(c: ReviewCursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.suspicion, c.createdAt, c.id]), 'utf8').toString('base64url');
}


export function decodeCursor(s: string, sort: ReviewSort): ReviewCursor {
  const bad = () => new ValidationError('cursor is not a cursor of this list (pass nextCursor unchanged, with the same sort)');
  let v: unknown;
  try { v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')); } catch { throw bad(); }
  if (!Array.isArray(v) || v.length !== 4) throw bad();
  const [cs, sus, at, id] = v as unknown[];
  if (cs !== sort || typeof sus !== 'number' || !Number.isFinite(sus) || typeof at !== 'string' || Number.isNaN(Date.parse(at)) || typeof id !== 'string' || !isUuid(id)) throw bad();
  return { sort, suspicion: sus, createdAt: new Date(at).toISOString(), id };
}

/** Simple keyset cursors of the events and audit pages. */
export function encodeKey(parts: readonly string[]): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}
export function decodeKey(s: string, n: number): string[] {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'string')) return v;
  } catch { /* below */ }
  throw new ValidationError('cursor is not a cursor of this list (pass nextCursor unchanged)');
}
