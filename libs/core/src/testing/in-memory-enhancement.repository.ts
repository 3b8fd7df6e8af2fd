import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '../domain/errors';
import type { EnhancementFilter, EnhancementRepository, EnhancementRow, NewEnhancement } from '../ports/repositories';
import { byTimeThenId, ConstraintViolation, copy, InMemoryRepository, isUuid } from './in-memory-state';

/** Enhancements: proxy id unique (a uuid), the event must exist; create and delete are audited. */
export class InMemoryEnhancementRepository extends InMemoryRepository implements EnhancementRepository {
  async create(e: NewEnhancement): Promise<EnhancementRow> {
    if (!isUuid(e.proxyId)) throw new ConstraintViolation(`proxy id ${e.proxyId} is not a uuid`);
    if (!this.s.feedback.has(e.feedbackId)) throw new ConstraintViolation(`foreign key: feedback event ${e.feedbackId} does not exist`);
    if ([...this.s.enhancements.values()].some((x) => x.proxyId === e.proxyId)) throw new ConstraintViolation(`unique constraint: proxy ${e.proxyId} exists`);
    const row: EnhancementRow = { ...copy(e), state: e.state ?? 'ACTIVE', reason: e.reason ?? null, id: randomUUID(), createdAt: this.now(), approvedAt: null, approvedBy: null, deletedAt: null, deletedBy: null };
    this.s.enhancements.set(row.id, row);
    this.log({ actor: e.createdBy, action: e.state === 'PROPOSED' ? 'enhancement.proposed' : 'enhancement.created', entityType: 'Enhancement', entityId: row.id, details: { feedbackId: e.feedbackId, proxyId: e.proxyId, reason: e.reason } });
    return copy(row);
  }

  async get(id: string): Promise<EnhancementRow | null> {
    const e = this.s.enhancements.get(id);
    return e ? copy(e) : null;
  }

  async list(f: EnhancementFilter): Promise<EnhancementRow[]> {
    return [...this.s.enhancements.values()]
      .filter((e) => (!f.collection || e.collection === f.collection) && (!f.feedbackId || e.feedbackId === f.feedbackId) && (!f.state || e.state === f.state))
      .sort(byTimeThenId((e) => e.createdAt)).slice(0, 1000).map(copy);
  }

  async findActiveByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]> {
    const want = new Set(proxyIds);
    return [...this.s.enhancements.values()].filter((e) => e.state === 'ACTIVE' && want.has(e.proxyId)).sort(byTimeThenId((e) => e.createdAt)).map(copy);
  }

  /** ACTIVE or PROPOSED → DELETED, audited; an already deleted row is returned unchanged. */
  async markDeleted(id: string, actor: string): Promise<EnhancementRow> {
    const e = this.s.enhancements.get(id);
    if (!e) throw new NotFoundError(`enhancement ${id} does not exist`);
    if (e.state === 'DELETED') return copy(e);
    Object.assign(e, { state: 'DELETED', deletedAt: this.now(), deletedBy: actor });
    this.log({ actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id, details: { proxyId: e.proxyId } });
    return copy(e);
  }

  /** PROPOSED → ACTIVE, audited; an ACTIVE row is returned unchanged; a DELETED one is a conflict. */
  async approve(id: string, actor: string): Promise<EnhancementRow> {
    const e = this.s.enhancements.get(id);
    if (!e) throw new NotFoundError(`enhancement ${id} does not exist`);
    if (e.state === 'DELETED') throw new ConflictError(`enhancement ${id} was deleted; it cannot be approved`);
    if (e.state === 'ACTIVE') return copy(e);
    Object.assign(e, { state: 'ACTIVE', approvedAt: this.now(), approvedBy: actor });
    this.log({ actor, action: 'enhancement.approved', entityType: 'Enhancement', entityId: id, details: { proxyId: e.proxyId } });
    return copy(e);
  }
}
