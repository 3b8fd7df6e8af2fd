import { ValidationError } from '../../../domain/errors';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { QuarantineRepository, QuarantineRow, ReviewRepository } from '../../../ports/repositories';
import { REVIEW } from '../../../ports/repositories/review.port';
import { DOMAIN_EVENTS, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { decidedData } from '../approve-quarantine/approve-quarantine.use-case';
import { applyDecision, type Decider } from '../review/review-decide/apply-decision';

export interface PurgeQuarantineDeps { quarantines: QuarantineRepository; review: ReviewRepository; store: VectorStore; events: DomainEventPublisher }

/**
 * Removes a text for good (admin only; the permission is checked by the caller): Postgres first —
 * record PURGED, the document's text replaced by PURGED_TEXT_MARKER (its hash, external id and
 * metadata kept, status PURGED; the judge's replies about it, which may quote it, redacted too), an audit entry — then the point deleted from the vector store,
 * then marked synced (a crash in between is completed by SyncQuarantinesUseCase). Irreversible:
 * the typed confirmation `confirm` must equal the item's documentId. Re-ingesting the same text
 * later is refused (see IngestCorpusUseCase): the hash stays known as purged.
 */
export class PurgeQuarantineUseCase {
  static readonly inject: InjectMap<PurgeQuarantineDeps> = { quarantines: QUARANTINES, review: REVIEW, store: VECTOR_STORE, events: DOMAIN_EVENTS };
  constructor(private readonly deps: PurgeQuarantineDeps) {}

  async execute(cmd: { quarantineId: string; confirm?: string; note?: string; reasons?: readonly string[] } & Decider): Promise<QuarantineRow> {
    const rec = await this.deps.quarantines.get(cmd.quarantineId);
    if (rec && rec.state !== 'PURGED' && cmd.confirm !== rec.documentId) {
      throw new ValidationError("confirm must equal the item's documentId (typed confirmation: a purge cannot be undone)");
    }
    const res = await applyDecision(this.deps, cmd.quarantineId, 'purge', cmd);
    if (res.changed) await this.deps.events.publish({ type: 'review.decided', data: decidedData(res.record, 'purge', cmd.actor) });
    return res.record;
  }
}
