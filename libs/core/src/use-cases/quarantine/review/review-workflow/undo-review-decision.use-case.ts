import { ConflictError, NotFoundError } from '../../../../domain/errors';
import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type QuarantineRepository, type ReviewRepository } from '../../../../ports/repositories';
import { QUARANTINES, VECTOR_STORE } from '../../../../ports/tokens';
import type { VectorStore } from '../../../../ports/vector-store.port';
import type { InjectMap } from '../../../../use-case';
import { syncRecordToStore } from '../../quarantine-text/store-sync';
import { ReviewUndoRequest } from '../review-items/review.schema';
import { itemSummary } from '../review-items/review-view';

export interface UndoReviewDecisionDeps { review: ReviewRepository; quarantines: QuarantineRepository; store: VectorStore }

/**
 * "Undo my last decision" (issue 35): the reviewer's most recent single approve, restore or redaction
 * (of one item when `id` is given) is reversed (a redaction's version is withdrawn from serving, kept in Postgres) — the record, its decision columns, reasons and serving flag
 * as they were before it — Postgres first, then the vector store (the same crash-safe order as a
 * decision; an unsynced record is completed by SyncQuarantinesUseCase). Audited as its own entry
 * (`review.undone`, naming the undone entry). Refused (409) when someone decided the item since;
 * 404 when there is nothing to undo. Purges, bulk decisions and a decision that withdrew a redaction are not undone.
 */
export class UndoReviewDecisionUseCase {
  static readonly inject: InjectMap<UndoReviewDecisionDeps> = { review: REVIEW, quarantines: QUARANTINES, store: VECTOR_STORE };
  constructor(private readonly deps: UndoReviewDecisionDeps) {}

  async execute(body: unknown, who: { principal: string; actor: string }) {
    const b = parseRequest(ReviewUndoRequest, body ?? {});
    const res = await this.deps.review.undoLast(who.principal, who.actor, { id: b.id });
    if (res.outcome === 'nothing') throw new NotFoundError(b.id ? `you have no decision on item ${b.id} left to undo` : 'you have no decision left to undo (purges and bulk decisions are not undone)');
    if (res.outcome === 'decided-since') {
      throw new ConflictError(`item ${res.row.id} was decided again since your decision (${res.action} by ${res.by}); undo refused`, { item: itemSummary(res.row) });
    }
    const record = await this.deps.quarantines.get(res.row.id);
    if (record && !record.storeSynced) await syncRecordToStore(this.deps, record);
    const [item] = await this.deps.review.summaries([res.row.id]);
    return { item: itemSummary(item), undid: { auditId: res.undid.auditId, action: res.undid.action, at: res.undid.at.toISOString() } };
  }
}
