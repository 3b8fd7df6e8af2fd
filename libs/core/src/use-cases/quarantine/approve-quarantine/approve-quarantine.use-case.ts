import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { QuarantineRepository, QuarantineRow, ReviewRepository } from '../../../ports/repositories';
import { REVIEW } from '../../../ports/repositories/review.port';
import { DOMAIN_EVENTS, QUARANTINES, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { applyDecision, type Decider } from '../review/review-decide/apply-decision';

/** The data of a `review.decided` webhook event: ids and the decision, never the text. */
export function decidedData(r: QuarantineRow, decision: 'approve' | 'restore' | 'purge', actor: string): Record<string, unknown> {
  return { quarantineId: r.id, documentId: r.documentId, feedbackId: r.feedbackId, collection: r.collection, decision, state: r.state, decidedBy: actor };
}

export interface ApproveQuarantineDeps { quarantines: QuarantineRepository; review: ReviewRepository; store: VectorStore; events: DomainEventPublisher }

/**
 * A reviewer confirms a text is poison: a NEEDS_REVIEW record becomes QUARANTINED and leaves
 * serving (Postgres first, then the store flag); a QUARANTINED record the judge put there gets the
 * reviewer's decision (`decision = approve`, it stays out of serving). Approving an approved record
 * is a no-op; RESTORED / PURGED records are a conflict. Refused (409) while another reviewer holds
 * the item's claim, unless the decider may override (admins). The decision is remembered for the
 * text (by hash): re-ingesting the same text keeps it out of serving.
 */
export class ApproveQuarantineUseCase {
  static readonly inject: InjectMap<ApproveQuarantineDeps> = { quarantines: QUARANTINES, review: REVIEW, store: VECTOR_STORE, events: DOMAIN_EVENTS };
  constructor(private readonly deps: ApproveQuarantineDeps) {}

  async execute(cmd: { quarantineId: string; note?: string; reasons?: readonly string[]; requestId?: string } & Decider): Promise<QuarantineRow> {
    const res = await applyDecision(this.deps, cmd.quarantineId, 'approve', cmd);
    if (res.changed) await this.deps.events.publish({ type: 'review.decided', data: decidedData(res.record, 'approve', cmd.actor) });
    return res.record;
  }
}
