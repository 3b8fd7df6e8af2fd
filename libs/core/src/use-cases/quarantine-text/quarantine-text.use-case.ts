import { applyRememberedDecisions, type Decision } from '@forensics/algorithms';
import type { DomainEventPublisher } from '../../ports/domain-events.port';
import type { DocumentRepository, FeedbackEventRepository, ReviewRepository } from '../../ports/repositories';
import { REVIEW } from '../../ports/repositories/review.port';
import type { NewQuarantine, QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import type { Failpoints } from '../../ports/runtime.port';
import { DOCUMENTS, DOMAIN_EVENTS, FAILPOINTS, FEEDBACK_EVENTS, QUARANTINES, VECTOR_STORE } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { InjectMap } from '../../use-case';
import { syncRecordToStore } from './store-sync';

/** A new quarantine record, with the acting principal recorded as its creator. */
export type QuarantineTextCommand = Omit<NewQuarantine, 'createdBy'> & { actor: string };

export interface QuarantineTextDeps {
  quarantines: QuarantineRepository; store: VectorStore; failpoints: Failpoints; events: DomainEventPublisher;
  review: ReviewRepository; documents: DocumentRepository; feedback: FeedbackEventRepository;
}

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
  static readonly inject: InjectMap<QuarantineTextDeps> = {
    quarantines: QUARANTINES, store: VECTOR_STORE, failpoints: FAILPOINTS, events: DOMAIN_EVENTS, review: REVIEW, documents: DOCUMENTS, feedback: FEEDBACK_EVENTS,
  };
  constructor(private readonly deps: QuarantineTextDeps) {}

  async execute(cmd: QuarantineTextCommand): Promise<{ record: QuarantineRow; created: boolean }> {
    const { actor, ...asked } = cmd;
    const record = await this.withRememberedDecisions(asked);
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

  /**
   * Remembered decisions (issue 11, item 3) as an input of the decision policy: when a reviewer
   * restored this text (same collection, same hash) for the same report (normalised query and wrong
   * answer), the judge's YES — typically a cached verdict — does not quarantine it again: it goes
   * to NEEDS_REVIEW, kept in serving, and the record's policy inputs name the earlier decisions.
   */
  private async withRememberedDecisions(rec: Omit<NewQuarantine, 'createdBy'>): Promise<Omit<NewQuarantine, 'createdBy'>> {
    if (!rec.feedbackId) return rec;
    const [doc] = await this.deps.documents.get([rec.documentId]);
    if (!doc) return rec;
    const memory = await this.deps.review.remembered(rec.collection, doc.textHash);
    if (!memory.length) return rec;
    const ev = await this.deps.feedback.get(rec.feedbackId);
    if (!ev) return rec;
    const p = rec.evidence.policy;
    const decision: Decision = p.decision === 'QUARANTINE' || p.decision === 'NEEDS_REVIEW' || p.decision === 'KEEP' ? p.decision : (rec.state ?? 'QUARANTINED') === 'QUARANTINED' ? 'QUARANTINE' : 'NEEDS_REVIEW';
    const out = applyRememberedDecisions({ decision, withhold: p.withhold, reason: p.reason, inputs: p.inputs }, ev, memory.map((m) => ({ ...m, at: m.at.toISOString() })));
    if (out === undefined || out.inputs === p.inputs) return rec;
    const state = out.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW';
    return {
      ...rec, state, servedDuringReview: state === 'NEEDS_REVIEW' ? !out.withhold : rec.servedDuringReview,
      reason: state === rec.state ? rec.reason : `${rec.reason}; ${out.reason}`,
      evidence: { ...rec.evidence, policy: { ...p, decision: out.decision, withhold: out.withhold, reason: out.reason, inputs: out.inputs } },
    };
  }
}
