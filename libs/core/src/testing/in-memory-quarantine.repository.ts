import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../domain/errors';
import type { DocumentStatus, NewQuarantine, QuarantineFilter, QuarantineRepository, QuarantineRow, QuarantineState } from '../ports/repositories';
import { byTimeThenId, ConstraintViolation, copy, InMemoryRepository, jsonColumn } from './in-memory-state';

const ACTIVE: readonly QuarantineState[] = ['QUARANTINED', 'NEEDS_REVIEW'];

/**
 * Quarantine records: at most one active (QUARANTINED or NEEDS_REVIEW) per document; create,
 * restore and approve write the record, the document's status and an audit entry together.
 */
export class InMemoryQuarantineRepository extends InMemoryRepository implements QuarantineRepository {
  async create(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }> {
    const active = [...this.s.quarantines.values()].find((r) => r.documentId === q.documentId && ACTIVE.includes(r.state));
    if (active) return { record: copy(active), created: false };
    const doc = this.s.documents.get(q.documentId);
    if (!doc) throw new NotFoundError(`document ${q.documentId} does not exist`);
    if (q.feedbackId !== null && !this.s.feedback.has(q.feedbackId)) throw new ConstraintViolation(`foreign key: feedback event ${q.feedbackId} does not exist`);
    const state = q.state ?? 'QUARANTINED';
    const record: QuarantineRow = {
      id: randomUUID(), documentId: q.documentId, feedbackId: q.feedbackId, collection: q.collection, reason: q.reason, evidence: jsonColumn(q.evidence)!,
      policy: q.policy, state, storeSynced: false, servedDuringReview: state === 'NEEDS_REVIEW' && !!q.servedDuringReview, createdBy: q.createdBy,
      createdAt: this.now(), resolvedBy: null, resolvedAt: null, note: null,
    };
    this.s.quarantines.set(record.id, record);
    if (state === 'QUARANTINED' || !q.servedDuringReview) doc.status = 'QUARANTINED';
    this.log({
      actor: q.createdBy, action: state === 'QUARANTINED' ? 'quarantine.created' : 'review.requested', entityType: 'QuarantineRecord', entityId: record.id,
      details: { documentId: q.documentId, feedbackId: q.feedbackId, policy: q.policy, servedDuringReview: record.servedDuringReview },
    });
    return { record: copy(record), created: true };
  }

  async markSynced(id: string): Promise<void> {
    const r = this.s.quarantines.get(id);
    if (r) r.storeSynced = true;
  }

  async get(id: string): Promise<QuarantineRow | null> {
    const r = this.s.quarantines.get(id);
    return r ? copy(r) : null;
  }

  async list(f: QuarantineFilter): Promise<QuarantineRow[]> {
    return [...this.s.quarantines.values()]
      .filter((r) => (!f.feedbackId || r.feedbackId === f.feedbackId) && (!f.state || r.state === f.state)
        && (!f.collection || r.collection === f.collection) && (!f.unsynced || !r.storeSynced))
      .sort(byTimeThenId((r) => r.createdAt)).slice(0, Math.max(0, f.limit ?? 500)).map(copy);
  }

  async restore(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.resolve(id, actor, note, ACTIVE, 'RESTORED', 'ACTIVE', 'quarantine.restored');
  }

  async approve(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    return this.resolve(id, actor, note, ['NEEDS_REVIEW'], 'QUARANTINED', 'QUARANTINED', 'review.approved');
  }

  private resolve(id: string, actor: string, note: string | undefined, from: readonly QuarantineState[], to: QuarantineState, docStatus: DocumentStatus, action: string): QuarantineRow {
    const r = this.s.quarantines.get(id);
    if (!r) throw new NotFoundError(`quarantine record ${id} does not exist`);
    if (!from.includes(r.state)) return copy(r);
    Object.assign(r, { state: to, storeSynced: false, resolvedBy: actor, resolvedAt: this.now(), note: note ?? null }, to === 'QUARANTINED' ? { servedDuringReview: false } : {});
    const doc = this.s.documents.get(r.documentId);
    if (doc) doc.status = docStatus;
    this.log({ actor, action, entityType: 'QuarantineRecord', entityId: id, details: { documentId: r.documentId, note: note ?? null } });
    return copy(r);
  }
}
