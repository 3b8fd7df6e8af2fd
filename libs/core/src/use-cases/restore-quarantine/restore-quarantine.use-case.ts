import { ConflictError, echoInput, NotFoundError } from '../../domain/errors';
import type { QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import { QUARANTINES, VECTOR_STORE } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { InjectMap } from '../../use-case';
import { syncRecordToStore } from '../quarantine-text/store-sync';

export interface RestoreQuarantineDeps { quarantines: QuarantineRepository; store: VectorStore }

/**
 * Puts a quarantined text back into serving exactly as it was: the vector store kept its vector,
 * text and payload; only the flag is cleared. Postgres first (RESTORED, unsynced), then the store,
 * then synced — the same crash-safe order as quarantining.
 */
export class RestoreQuarantineUseCase {
  static readonly inject: InjectMap<RestoreQuarantineDeps> = { quarantines: QUARANTINES, store: VECTOR_STORE };
  constructor(private readonly deps: RestoreQuarantineDeps) {}

  async execute(cmd: { quarantineId: string; actor: string; note?: string }): Promise<QuarantineRow> {
    const rec = await this.deps.quarantines.get(cmd.quarantineId);
    if (!rec) throw new NotFoundError(`quarantine record ${echoInput(cmd.quarantineId)} does not exist`);
    if (rec.state !== 'QUARANTINED' && rec.state !== 'NEEDS_REVIEW' && rec.state !== 'RESTORED') throw new ConflictError(`quarantine record ${rec.id} is ${rec.state}; it cannot be restored`);
    const restored = rec.state === 'RESTORED' ? rec : await this.deps.quarantines.restore(rec.id, cmd.actor, cmd.note);
    if (!restored.storeSynced) await syncRecordToStore(this.deps, restored);
    return { ...restored, storeSynced: true };
  }
}
