import { ConflictError, NotFoundError } from '../../domain/errors';
import type { ForensicsRepository, QuarantineRow } from '../../ports/forensics-repository.port';
import type { VectorStore } from '../../ports/vector-store.port';

/**
 * Puts a quarantined text back into serving exactly as it was: the vector store kept its vector,
 * text and payload; only the flag is cleared. Postgres first (RESTORED, unsynced), then the store,
 * then synced — the same crash-safe order as quarantining.
 */
export class RestoreQuarantineUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository; store: VectorStore }) {}

  async execute(cmd: { quarantineId: string; actor: string; note?: string }): Promise<QuarantineRow> {
    const rec = await this.deps.repo.getQuarantine(cmd.quarantineId);
    if (!rec) throw new NotFoundError(`quarantine record ${cmd.quarantineId} does not exist`);
    if (rec.state === 'PURGED') throw new ConflictError(`quarantine record ${rec.id} was purged; the text cannot be restored`);
    const restored = rec.state === 'RESTORED' ? rec : await this.deps.repo.restoreQuarantine(rec.id, cmd.actor, cmd.note);
    if (!restored.storeSynced) {
      await this.deps.store.setQuarantined(restored.collection, [restored.documentId], false);
      await this.deps.repo.markQuarantineSynced(restored.id);
    }
    return { ...restored, storeSynced: true };
  }
}
