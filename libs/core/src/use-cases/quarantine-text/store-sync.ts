import type { QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import type { VectorStore } from '../../ports/vector-store.port';

/**
 * Makes the vector store reflect one quarantine record, then marks it synced. Idempotent, so a
 * crash between the two steps is repaired by running it again.
 *  - QUARANTINED, or NEEDS_REVIEW withheld from serving → flag set;
 *  - NEEDS_REVIEW served during review, RESTORED → flag cleared;
 *  - PURGED → record deleted from the store.
 */
export async function syncRecordToStore(deps: { quarantines: QuarantineRepository; store: VectorStore }, r: QuarantineRow): Promise<void> {
  if (r.state === 'PURGED') await deps.store.delete(r.collection, [r.documentId]);
  else {
    const withheld = r.state === 'QUARANTINED' || (r.state === 'NEEDS_REVIEW' && !r.servedDuringReview);
    await deps.store.setQuarantined(r.collection, [r.documentId], withheld);
  }
  await deps.quarantines.markSynced(r.id);
}
