import type { QuarantineRepository } from '../../../ports/repositories';
import { QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { syncRecordToStore } from '../quarantine-text/store-sync';

export interface SyncQuarantinesDeps { quarantines: QuarantineRepository; store: VectorStore }

/** Brings the vector store in line with every unsynced quarantine record (optionally of one event). */
export class SyncQuarantinesUseCase {
  static readonly inject: InjectMap<SyncQuarantinesDeps> = { quarantines: QUARANTINES, store: VECTOR_STORE };
  constructor(private readonly deps: SyncQuarantinesDeps) {}

  /** Returns how many records were synced. */
  async execute(cmd: { feedbackId?: string } = {}): Promise<number> {
    const pending = await this.deps.quarantines.list({ feedbackId: cmd.feedbackId, unsynced: true, limit: 1000 });
    for (const r of pending) await syncRecordToStore(this.deps, r);
    return pending.length;
  }
}
