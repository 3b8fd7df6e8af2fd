import type { ForensicsRepository, NewQuarantine, QuarantineRow } from '../../ports/forensics-repository.port';
import type { VectorStore } from '../../ports/vector-store.port';

/** A new quarantine record, with the acting principal recorded as its creator. */
export type QuarantineTextCommand = Omit<NewQuarantine, 'createdBy'> & { actor: string };

/**
 * Takes a text out of serving, in an order that loses nothing if the process dies between steps:
 *  1. Postgres (one transaction): quarantine record (storeSynced=false) + document status + audit;
 *  2. the vector store flag (idempotent);
 *  3. storeSynced=true.
 * A crash after 1 leaves an unsynced record that `syncPending` (run by every retried traceback and
 * at worker start) completes; a partial unique index allows one active record per text, so a retry
 * never quarantines a text twice.
 */
export class QuarantineTextsUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository; store: VectorStore; failpoint?: (name: string) => void }) {}

  async execute(cmd: QuarantineTextCommand): Promise<{ record: QuarantineRow; created: boolean }> {
    const { actor, ...record } = cmd;
    const res = await this.deps.repo.createQuarantine({ ...record, createdBy: actor });
    this.deps.failpoint?.('quarantine.after-db');
    if (!res.record.storeSynced) await this.sync(res.record);
    return res;
  }

  /** Approves a NEEDS_REVIEW record: it becomes QUARANTINED and leaves serving. */
  async approve(cmd: { quarantineId: string; actor: string; note?: string }): Promise<QuarantineRow> {
    const rec = await this.deps.repo.approveQuarantine(cmd.quarantineId, cmd.actor, cmd.note);
    if (!rec.storeSynced) await this.sync(rec);
    return { ...rec, storeSynced: true };
  }

  /** Brings the vector store in line with every unsynced quarantine record (optionally of one event). */
  async syncPending(filter: { feedbackId?: string } = {}): Promise<number> {
    const pending = await this.deps.repo.listQuarantines({ ...filter, unsynced: true, limit: 1000 });
    for (const r of pending) await this.sync(r);
    return pending.length;
  }

  private async sync(r: QuarantineRow): Promise<void> {
    const withheld = r.state === 'QUARANTINED' || (r.state === 'NEEDS_REVIEW' && !r.servedDuringReview);
    if (r.state === 'QUARANTINED' || r.state === 'NEEDS_REVIEW') await this.deps.store.setQuarantined(r.collection, [r.documentId], withheld);
    else if (r.state === 'RESTORED') await this.deps.store.setQuarantined(r.collection, [r.documentId], false);
    else if (r.state === 'PURGED') await this.deps.store.delete(r.collection, [r.documentId]);
    await this.deps.repo.markQuarantineSynced(r.id);
  }
}
