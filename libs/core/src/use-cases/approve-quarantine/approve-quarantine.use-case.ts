import { ConflictError, echoInput, NotFoundError } from '../../domain/errors';
import type { QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import { QUARANTINES, VECTOR_STORE } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { InjectMap } from '../../use-case';
import { syncRecordToStore } from '../quarantine-text/store-sync';

export interface ApproveQuarantineDeps { quarantines: QuarantineRepository; store: VectorStore }

/**
 * A reviewer confirms a NEEDS_REVIEW record: it becomes QUARANTINED and leaves serving (Postgres
 * first, then the store flag). Approving an already QUARANTINED record is a no-op; any other
 * state is a conflict.
 */
export class ApproveQuarantineUseCase {
  static readonly inject: InjectMap<ApproveQuarantineDeps> = { quarantines: QUARANTINES, store: VECTOR_STORE };
  constructor(private readonly deps: ApproveQuarantineDeps) {}

  async execute(cmd: { quarantineId: string; actor: string; note?: string }): Promise<QuarantineRow> {
    const rec = await this.deps.quarantines.get(cmd.quarantineId);
    if (!rec) throw new NotFoundError(`quarantine record ${echoInput(cmd.quarantineId)} does not exist`);
    if (rec.state !== 'NEEDS_REVIEW' && rec.state !== 'QUARANTINED') {
      throw new ConflictError(`quarantine record ${rec.id} is ${rec.state}; only NEEDS_REVIEW records can be approved`);
    }
    const approved = await this.deps.quarantines.approve(rec.id, cmd.actor, cmd.note);
    if (!approved.storeSynced) await syncRecordToStore(this.deps, approved);
    return { ...approved, storeSynced: true };
  }
}
