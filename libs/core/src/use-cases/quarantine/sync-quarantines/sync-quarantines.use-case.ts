import type { Embedder } from '../../../ports/embedder.port';
import type { DocumentRepository, QuarantineRepository } from '../../../ports/repositories';
import { DOCUMENTS, EMBEDDER, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { ensureRedactedVersionInStore, syncRecordToStore } from '../quarantine-text/store-sync';

export interface SyncQuarantinesDeps { quarantines: QuarantineRepository; store: VectorStore; embedder: Embedder; documents: DocumentRepository }

/**
 * Brings the vector store in line with every unsynced quarantine record (optionally of one event),
 * including an active redaction's version that a crash kept from the store.
 */
export class SyncQuarantinesUseCase {
  static readonly inject: InjectMap<SyncQuarantinesDeps> = { quarantines: QUARANTINES, store: VECTOR_STORE, embedder: EMBEDDER, documents: DOCUMENTS };
  constructor(private readonly deps: SyncQuarantinesDeps) {}

  /** Returns how many records were synced. */
  async execute(cmd: { feedbackId?: string } = {}): Promise<number> {
    const pending = await this.deps.quarantines.list({ feedbackId: cmd.feedbackId, unsynced: true, limit: 1000 });
    for (const r of pending) {
      await ensureRedactedVersionInStore(this.deps, r);
      await syncRecordToStore(this.deps, r);
    }
    return pending.length;
  }
}
