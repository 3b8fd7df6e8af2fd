import type { DomainEventPublisher } from '../../ports/domain-events.port';
import type { NewQuarantine, QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import type { Failpoints } from '../../ports/runtime.port';
import { DOMAIN_EVENTS, FAILPOINTS, QUARANTINES, VECTOR_STORE } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { InjectMap } from '../../use-case';
import { syncRecordToStore } from './store-sync';

/** A new quarantine record, with the acting principal recorded as its creator. */
export type QuarantineTextCommand = Omit<NewQuarantine, 'createdBy'> & { actor: string };

export interface QuarantineTextDeps { quarantines: QuarantineRepository; store: VectorStore; failpoints: Failpoints; events: DomainEventPublisher }

/**
 * Takes a text out of serving (or sends it to review), in an order that loses nothing if the
 * process dies between steps:
 *  1. Postgres, one transaction: quarantine record (storeSynced=false) + document status + audit;
 *  2. the vector store flag (idempotent);
 *  3. storeSynced=true.
 * A crash after 1 leaves an unsynced record that SyncQuarantinesUseCase (run by every retried
 * traceback and at worker start) completes; a partial unique index allows one active record per
 * text, so a retry never quarantines a text twice.
 */
export class QuarantineTextUseCase {
  static readonly inject: InjectMap<QuarantineTextDeps> = { quarantines: QUARANTINES, store: VECTOR_STORE, failpoints: FAILPOINTS, events: DOMAIN_EVENTS };
  constructor(private readonly deps: QuarantineTextDeps) {}

  async execute(cmd: QuarantineTextCommand): Promise<{ record: QuarantineRow; created: boolean }> {
    const { actor, ...record } = cmd;
    const res = await this.deps.quarantines.create({ ...record, createdBy: actor });
    this.deps.failpoints.hit('quarantine.after-db');
    // Webhooks (issue 14), once the record is committed (before the store step, so a store failure — retried
    // with created=false — cannot lose the event): QUARANTINED → quarantine.created, NEEDS_REVIEW → review.needed.
    if (res.created) {
      const r = res.record;
      await this.deps.events.publish({
        type: r.state === 'NEEDS_REVIEW' ? 'review.needed' : 'quarantine.created',
        data: { quarantineId: r.id, documentId: r.documentId, feedbackId: r.feedbackId, collection: r.collection, state: r.state, policy: r.policy, servedDuringReview: r.servedDuringReview },
      });
    }
    if (!res.record.storeSynced) await syncRecordToStore(this.deps, res.record);
    return res;
  }
}
