import { NotFoundError } from '../../../domain/errors';
import type { Embedder } from '../../../ports/embedder.port';
import type { DocumentRepository, QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import type { VectorStore } from '../../../ports/vector-store.port';

/**
 * An active redaction's version (issue 35) written to the store if it is not there with its text: its
 * vector (`embedded`, or the embedder's for its text) and the original's payload plus `redactionOf`.
 * Run by the redact request after its Postgres transaction and by the sync (the reconcile audit), so a
 * crash between the two leaves the text out of serving only until the next sync, not until someone
 * repeats the request. The version stands in for the original: when the original is not in the store (its
 * collection dropped, its point gone) there is nothing to stand in for, and nothing is written — an upsert
 * into a dropped collection failed the whole sync, and with it the worker's start. Returns whether it wrote.
 */
export async function ensureRedactedVersionInStore(
  deps: { store: VectorStore; embedder: Embedder; documents: DocumentRepository }, rec: QuarantineRow, embedded?: ArrayLike<number>,
): Promise<boolean> {
  const r = rec.redaction;
  if (!r?.active || rec.state !== 'QUARANTINED') return false;
  const [version] = await deps.documents.get([r.documentId]);
  if (!version) throw new NotFoundError(`redacted version ${r.documentId} of review item ${rec.id} does not exist`);
  const got = await deps.store.fetch(rec.collection, [rec.documentId, r.documentId]);
  const original = got.find((x) => x.id === rec.documentId);
  const stored = got.find((x) => x.id === r.documentId);
  if (!original || (stored && stored.text === version.text)) return false;
  let vector = embedded;
  if (!vector) { await deps.embedder.init(); [vector] = await deps.embedder.embed([version.text]); }
  await deps.store.upsert(rec.collection, [{ id: version.id, vector, text: version.text, payload: { ...original.payload, redactionOf: rec.documentId }, quarantined: false }]);
  return true;
}

/**
 * Makes the vector store reflect one quarantine record, then marks it synced. Idempotent, so a
 * crash between the two steps is repaired by running it again.
 *  - QUARANTINED, or NEEDS_REVIEW withheld from serving → flag set;
 *  - NEEDS_REVIEW served during review, RESTORED → flag cleared;
 *  - PURGED → the point deleted from the store;
 *  - and a redacted record's redacted version (issue 35): served while the redaction is active, flagged
 *    out of serving once a later decision withdrew it (its vector is written by ensureRedactedVersionInStore).
 */
export async function syncRecordToStore(deps: { quarantines: QuarantineRepository; store: VectorStore }, r: QuarantineRow): Promise<void> {
  let withheld: boolean;
  if (r.redaction) await deps.store.setQuarantined(r.collection, [r.redaction.documentId], !(r.redaction.active && r.state === 'QUARANTINED'));
  if (r.state === 'PURGED') {
    // Purge: the point is deleted for good (idempotent); Postgres keeps the hash and metadata.
    await deps.store.delete(r.collection, [r.documentId]);
    await deps.quarantines.markSynced(r.id);
    return;
  }
  switch (r.state) {
    case 'QUARANTINED': withheld = true; break;
    case 'NEEDS_REVIEW': withheld = !r.servedDuringReview; break;
    case 'RESTORED': withheld = false; break;
    default: throw new Error(`quarantine record ${r.id} is ${r.state}: no store action is defined for that state`);
  }
  await deps.store.setQuarantined(r.collection, [r.documentId], withheld);
  await deps.quarantines.markSynced(r.id);
}
