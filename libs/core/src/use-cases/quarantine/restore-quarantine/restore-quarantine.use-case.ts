import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { QuarantineRepository, QuarantineRow, ReviewRepository } from '../../../ports/repositories';
import { REVIEW } from '../../../ports/repositories/review.port';
import { DOMAIN_EVENTS, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { decidedData } from '../approve-quarantine/approve-quarantine.use-case';
import { applyDecision, type Decider } from '../review/review-decide/apply-decision';

export interface RestoreQuarantineDeps { quarantines: QuarantineRepository; review: ReviewRepository; store: VectorStore; events: DomainEventPublisher }

/**
 * Puts a quarantined text back into serving exactly as it was: the vector store kept its vector,
 * text and payload; only the flag is cleared. Postgres first (RESTORED, unsynced), then the store,
 * then synced — the same crash-safe order as quarantining. The decision is remembered for the text
 * and the report (normalised query + wrong answer): the same report again sends the text to
 * NEEDS_REVIEW (kept in serving) instead of quarantining it (see QuarantineTextUseCase). Refused
 * (409) while another reviewer holds the item's claim, unless the decider may override (admins).
 */
export class RestoreQuarantineUseCase {
  static readonly inject: InjectMap<RestoreQuarantineDeps> = { quarantines: QUARANTINES, review: REVIEW, store: VECTOR_STORE, events: DOMAIN_EVENTS };
  constructor(private readonly deps: RestoreQuarantineDeps) {}

  async execute(cmd: { quarantineId: string; note?: string; reasons?: readonly string[]; requestId?: string } & Decider): Promise<QuarantineRow> {
    const res = await applyDecision(this.deps, cmd.quarantineId, 'restore', cmd);
    if (res.changed) await this.deps.events.publish({ type: 'review.decided', data: decidedData(res.record, 'restore', cmd.actor) });
    return res.record;
  }
}
