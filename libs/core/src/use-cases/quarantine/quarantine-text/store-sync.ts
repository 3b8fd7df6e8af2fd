import type { QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import type { VectorStore } from '../../../ports/vector-store.port';

/**
 * Makes the vector store reflect one quarantine record, then marks it synced. Idempotent, so a
 * crash between the two steps is repaired by running it again.
 *  - QUARANTINED, or NEEDS_REVIEW withheld from serving → flag set;
 *  - NEEDS_REVIEW served during review, RESTORED → flag cleared;
 *  - PURGED → the point deleted from the store;
 *  - and a redacted record's redacted version (issue 35): served while the redaction is active, flagged
 *    out of serving once a later decision withdrew it (its vector is written by RedactReviewItemUseCase).
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
