import { ConflictError, ValidationError } from '../../../../domain/errors';
import { parseRequest } from '../../../../domain/request-schema';
import type { DomainEventPublisher } from '../../../../ports/domain-events.port';
import { reportKey } from '@forensics/algorithms';
import { REVIEW, type QuarantineRepository, type ReviewRepository } from '../../../../ports/repositories';
import { DOMAIN_EVENTS, QUARANTINES, VECTOR_STORE } from '../../../../ports/tokens';
import type { VectorStore } from '../../../../ports/vector-store.port';
import type { InjectMap } from '../../../../use-case';
import type { Decider } from '../review-decide/apply-decision';
import { ReviewBulkRequest, toReviewFilter } from '../review-items/review.schema';

export interface BulkReviewDeps { review: ReviewRepository; quarantines: QuarantineRepository; store: VectorStore; events: DomainEventPublisher }

export interface BulkReviewResult { requestId: string; action: 'approve' | 'restore'; matched: number; changed: number; skipped: number; replayed: boolean }

/** Most items one bulk request may match (a larger filter is refused with a 400: narrow it). */
export const BULK_MATCH_CAP = 50_000;
/** Records decided in Postgres before their store flags are written, per batch. */
const BATCH = 200;

/**
 * Approve or restore a selection (ids) or everything matching a filter, server-side. The matched
 * set is fixed when the request is first received (stored with its requestId), so it is exactly
 * the filtered set at that time. Idempotent: a retry with the same requestId returns the stored
 * result and changes nothing; a retry of a request that died half-way resumes over the same ids
 * (each record's decision is a compare-and-set, so none is decided twice) and `changed` counts the
 * records this request decided (decisionRequestId), however many runs it took.
 *
 * Per batch: Postgres first (the batch's decisions in one transaction, each with the claim check —
 * items another reviewer holds are skipped unless the decider may override), then the vector store
 * flags in one call per collection, then the records marked synced. A crash between the two is
 * repaired by SyncQuarantinesUseCase (the records stay unsynced), as for single decisions.
 */
export class BulkReviewUseCase {
  static readonly inject: InjectMap<BulkReviewDeps> = { review: REVIEW, quarantines: QUARANTINES, store: VECTOR_STORE, events: DOMAIN_EVENTS };
  constructor(private readonly deps: BulkReviewDeps) {}

  /** `who.reasons`: the body's reason labels, checked against the configured list by the caller (ReviewReasonsUseCase). */
  async execute(body: unknown, who: Decider & { reasons?: readonly string[] }): Promise<BulkReviewResult> {
    const b = parseRequest(ReviewBulkRequest, body);
    const { review } = this.deps;
    let ids: string[];
    if (b.ids) ids = [...new Set(b.ids)];
    else {
      const m = await review.matchIds(toReviewFilter(b.filter!), BULK_MATCH_CAP);
      if (m.capped) throw new ValidationError(`filter matches more than ${BULK_MATCH_CAP} items; narrow it (e.g. by collection, date or suspicion)`);
      ids = m.ids;
    }
    const { row, created } = await review.beginBulk({ requestId: b.requestId, action: b.action, actor: who.actor, ids });
    if (row.action !== b.action) throw new ConflictError(`requestId ${b.requestId} was used for a bulk ${row.action}; use a new requestId`);
    if (row.result) return { requestId: row.requestId, action: row.action, ...row.result, replayed: true };
    if (!created && row.actor !== who.actor) throw new ConflictError(`requestId ${b.requestId} belongs to another actor's bulk request`);

    const target = b.action === 'approve' ? 'QUARANTINED' : 'RESTORED';
    for (let i = 0; i < row.ids.length; i += BATCH) {
      const part = await review.summaries(row.ids.slice(i, i + BATCH));
      const entries = part.map((item) => ({
        id: item.id,
        remember: item.query !== null && item.wrongAnswer !== null
          ? { textHash: item.textHash, query: item.query, wrongAnswer: item.wrongAnswer, queryKey: reportKey(item.query), wrongAnswerKey: reportKey(item.wrongAnswer) }
          : null,
      }));
      // Postgres first: the batch in one transaction.
      const changed = await review.decideBatch(entries, b.action, { actor: who.actor, claimant: who.claimant ?? who.actor, override: !!who.override, note: b.note, reasons: who.reasons ?? [], requestId: b.requestId });
      // Then the store, one call per collection, for the records whose store side changed; then marked synced.
      const unsynced = changed.filter((c) => !c.storeSynced);
      const byCollection = new Map<string, string[]>();
      for (const r of unsynced) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.documentId]);
      for (const [collection, docIds] of byCollection) await this.deps.store.setQuarantined(collection, docIds, target === 'QUARANTINED');
      await Promise.all(unsynced.map((r) => this.deps.quarantines.markSynced(r.id)));
      for (const c of changed) {
        await this.deps.events.publish({ type: 'review.decided', data: { quarantineId: c.id, documentId: c.documentId, feedbackId: c.feedbackId, collection: c.collection, decision: b.action, state: c.state, decidedBy: who.actor } });
      }
    }
    const changed = await review.countDecidedBy(b.requestId);
    const result = { matched: row.ids.length, changed, skipped: row.ids.length - changed };
    await review.finishBulk(b.requestId, result);
    return { requestId: b.requestId, action: b.action, ...result, replayed: false };
  }
}
