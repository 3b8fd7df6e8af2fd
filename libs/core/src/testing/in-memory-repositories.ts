import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../domain/errors';
import type {
  AnswerRepository, AnswerRow, AuditEntry, AuditLogRepository, AuditRecord, CollectionRow, DatabaseHealth, DocumentRepository, DocumentRow,
  EnhancementFilter, EnhancementRepository, EnhancementRow, FeedbackEventRepository, FeedbackPatch, FeedbackRow, FeedbackStatus, NewAnswer,
  NewDocument, NewEnhancement, NewFeedback, NewQuarantine, NewVerdict, QuarantineFilter, QuarantineRepository, QuarantineRow, QuarantineState,
  Repositories, VerdictRepository, VerdictRow,
} from '../ports/repositories';

/**
 * In-memory repositories with the semantics the Prisma adapters give Postgres, proven by the same
 * contract suite (test/repositories.contract.test.ts): documents unique per id and per
 * (collection, textHash); feedback idempotent by key and unique per answer; compare-and-set status
 * transitions; verdicts upserted on (feedbackId, documentId) and a cross-event cache of labelled,
 * non-cached verdicts; one active quarantine per document, with the document status and an audit
 * entry written together. (Ids are map keys, so an id that is not a UUID is simply not found, as in Postgres.) Rows are deep-copied in and out.
 */
export interface InMemoryState {
  collections: Map<string, CollectionRow>;
  documents: Map<string, DocumentRow>;
  feedback: Map<string, FeedbackRow>;
  /** In write order: the last matching row is the most recent. */
  verdicts: VerdictRow[];
  quarantines: Map<string, QuarantineRow>;
  answers: Map<string, AnswerRow>;
  enhancements: Map<string, EnhancementRow>;
  audit: AuditRecord[];
}

/** Deep copy of rows (plain JSON plus Dates), made in the caller's realm (structuredClone is not, under jest). */
function copy<T>(v: T): T {
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(copy) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)])) as T;
  return v;
}
const ACTIVE: readonly QuarantineState[] = ['QUARANTINED', 'NEEDS_REVIEW'];

class Base {
  constructor(protected readonly s: InMemoryState, protected readonly now: () => Date) {}
  protected log(entry: AuditEntry): void {
    this.s.audit.push({ ...copy(entry), at: this.now() });
  }
}

class InMemoryDocumentRepository extends Base implements DocumentRepository {
  async getCollection(name: string) { const c = this.s.collections.get(name); return c ? copy(c) : null; }
  async ensureCollection(c: CollectionRow) {
    if (!this.s.collections.has(c.name)) this.s.collections.set(c.name, copy(c));
    return copy(this.s.collections.get(c.name)!);
  }
  async findByHashes(collection: string, hashes: readonly string[]) {
    const want = new Set(hashes);
    return [...this.s.documents.values()].filter((d) => d.collection === collection && want.has(d.textHash)).map(copy);
  }
  async insert(rows: readonly NewDocument[]) {
    let n = 0;
    for (const r of rows) {
      if (this.s.documents.has(r.id) || [...this.s.documents.values()].some((d) => d.collection === r.collection && d.textHash === r.textHash)) continue;
      this.s.documents.set(r.id, { ...copy(r), status: 'ACTIVE' });
      n++;
    }
    return n;
  }
  async get(ids: readonly string[]) { return [...new Set(ids)].flatMap((id) => (this.s.documents.has(id) ? [copy(this.s.documents.get(id)!)] : [])); }
  async count(collection: string) { return [...this.s.documents.values()].filter((d) => d.collection === collection).length; }
}

class InMemoryFeedbackEventRepository extends Base implements FeedbackEventRepository {
  async create(input: NewFeedback) {
    const key = input.idempotencyKey;
    const byKey = key ? [...this.s.feedback.values()].find((f) => f.idempotencyKey === key) : undefined;
    if (byKey) return { event: copy(byKey), created: false };
    // Postgres: the answer id is unique too (a second event for one answer is refused).
    if (input.answerId && [...this.s.feedback.values()].some((f) => f.answerId === input.answerId)) throw new Error(`unique constraint: an event exists for answer ${input.answerId}`);
    const at = this.now();
    const event: FeedbackRow = {
      id: randomUUID(), collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: [...(input.servedIds ?? [])], reporter: input.reporter ?? null, idempotencyKey: key ?? null, status: 'RECEIVED', step: null, k: input.k,
      trace: null, failureReason: null, attempts: 0, createdAt: at, updatedAt: at, tracedAt: null, answerId: input.answerId ?? null,
      verification: null, verificationDetails: null,
    };
    this.s.feedback.set(event.id, event);
    return { event: copy(event), created: true };
  }
  async get(id: string) { const f = this.s.feedback.get(id); return f ? copy(f) : null; }
  async findByAnswer(answerId: string) { const f = [...this.s.feedback.values()].find((x) => x.answerId === answerId); return f ? copy(f) : null; }
  async transition(id: string, change: { from: readonly FeedbackStatus[]; to: FeedbackStatus; set?: FeedbackPatch; incrementAttempts?: boolean }) {
    const f = this.s.feedback.get(id);
    if (!f || !change.from.includes(f.status)) return null;
    Object.assign(f, copy(change.set ?? {}), { status: change.to, updatedAt: this.now() });
    if (change.incrementAttempts) f.attempts++;
    return copy(f);
  }
  async update(id: string, patch: FeedbackPatch) {
    const f = this.s.feedback.get(id);
    if (f) Object.assign(f, copy(patch), { updatedAt: this.now() });
  }
  async listStale(statuses: readonly FeedbackStatus[], updatedBefore: Date, limit: number) {
    return [...this.s.feedback.values()].filter((f) => statuses.includes(f.status) && f.updatedAt < updatedBefore)
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime()).slice(0, limit).map(copy);
  }
}

class InMemoryVerdictRepository extends Base implements VerdictRepository {
  async list(feedbackId: string) {
    return this.s.verdicts.filter((v) => v.feedbackId === feedbackId).map((v, i) => ({ v, i }))
      .sort((a, b) => a.v.round - b.v.round || a.v.createdAt.getTime() - b.v.createdAt.getTime() || a.i - b.i).map(({ v }) => copy(v));
  }
  async findByCacheKey(cacheKey: string) {
    for (let i = this.s.verdicts.length - 1; i >= 0; i--) {
      const v = this.s.verdicts[i];
      if (v.cacheKey === cacheKey && !v.cached && v.label !== 'UNDETERMINED') return copy(v);
    }
    return null;
  }
  async save(v: NewVerdict) {
    const i = this.s.verdicts.findIndex((x) => x.feedbackId === v.feedbackId && x.documentId === v.documentId);
    if (i >= 0) {
      // Postgres keeps createdAt on an upsert; the row stays where it is.
      this.s.verdicts[i] = { ...copy(v), id: this.s.verdicts[i].id, createdAt: this.s.verdicts[i].createdAt };
    } else this.s.verdicts.push({ ...copy(v), id: randomUUID(), createdAt: this.now() });
  }
}

class InMemoryQuarantineRepository extends Base implements QuarantineRepository {
  async create(q: NewQuarantine) {
    const active = [...this.s.quarantines.values()].find((r) => r.documentId === q.documentId && ACTIVE.includes(r.state));
    if (active) return { record: copy(active), created: false };
    const doc = this.s.documents.get(q.documentId);
    if (!doc) throw new Error(`foreign key: document ${q.documentId} does not exist`);
    const state = q.state ?? 'QUARANTINED';
    const record: QuarantineRow = {
      id: randomUUID(), documentId: q.documentId, feedbackId: q.feedbackId, collection: q.collection, reason: q.reason, evidence: copy(q.evidence),
      policy: q.policy, state, storeSynced: false, servedDuringReview: state === 'NEEDS_REVIEW' && !!q.servedDuringReview, createdBy: q.createdBy,
      createdAt: this.now(), resolvedBy: null, resolvedAt: null, note: null,
    };
    this.s.quarantines.set(record.id, record);
    if (state === 'QUARANTINED' || !q.servedDuringReview) doc.status = 'QUARANTINED';
    this.log({ actor: q.createdBy, action: state === 'QUARANTINED' ? 'quarantine.created' : 'review.requested', entityType: 'QuarantineRecord', entityId: record.id, details: { documentId: q.documentId, feedbackId: q.feedbackId, policy: q.policy, servedDuringReview: record.servedDuringReview } });
    return { record: copy(record), created: true };
  }
  async markSynced(id: string) { const r = this.s.quarantines.get(id); if (r) r.storeSynced = true; }
  async get(id: string) { const r = this.s.quarantines.get(id); return r ? copy(r) : null; }
  async list(f: QuarantineFilter) {
    return [...this.s.quarantines.values()]
      .filter((r) => (f.feedbackId === undefined || r.feedbackId === f.feedbackId) && (f.state === undefined || r.state === f.state)
        && (f.collection === undefined || r.collection === f.collection) && (!f.unsynced || !r.storeSynced))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, f.limit ?? 500).map(copy);
  }
  async restore(id: string, actor: string, note?: string) { return this.resolve(id, actor, note, ACTIVE, 'RESTORED', 'ACTIVE', 'quarantine.restored'); }
  async approve(id: string, actor: string, note?: string) { return this.resolve(id, actor, note, ['NEEDS_REVIEW'], 'QUARANTINED', 'QUARANTINED', 'review.approved'); }
  private resolve(id: string, actor: string, note: string | undefined, from: readonly QuarantineState[], to: QuarantineState, docStatus: DocumentRow['status'], action: string): QuarantineRow {
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

class InMemoryAnswerRepository extends Base implements AnswerRepository {
  async create(a: NewAnswer) { const row: AnswerRow = { ...copy(a), id: randomUUID(), createdAt: this.now() }; this.s.answers.set(row.id, row); return copy(row); }
  async get(id: string) { const a = this.s.answers.get(id); return a ? copy(a) : null; }
}

class InMemoryEnhancementRepository extends Base implements EnhancementRepository {
  async create(e: NewEnhancement) {
    if ([...this.s.enhancements.values()].some((x) => x.proxyId === e.proxyId)) throw new Error(`unique constraint: proxy ${e.proxyId} exists`);
    const row: EnhancementRow = { ...copy(e), id: randomUUID(), createdAt: this.now(), state: 'ACTIVE', deletedAt: null, deletedBy: null };
    this.s.enhancements.set(row.id, row);
    this.log({ actor: e.createdBy, action: 'enhancement.created', entityType: 'Enhancement', entityId: row.id, details: { feedbackId: e.feedbackId, proxyId: e.proxyId } });
    return copy(row);
  }
  async get(id: string) { const e = this.s.enhancements.get(id); return e ? copy(e) : null; }
  async list(f: EnhancementFilter) {
    return [...this.s.enhancements.values()]
      .filter((e) => (f.collection === undefined || e.collection === f.collection) && (f.feedbackId === undefined || e.feedbackId === f.feedbackId) && (f.state === undefined || e.state === f.state))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).slice(0, 1000).map(copy);
  }
  async findActiveByProxyIds(proxyIds: readonly string[]) {
    const want = new Set(proxyIds);
    return [...this.s.enhancements.values()].filter((e) => e.state === 'ACTIVE' && want.has(e.proxyId)).map(copy);
  }
  async markDeleted(id: string, actor: string) {
    const e = this.s.enhancements.get(id);
    if (!e) throw new NotFoundError(`enhancement ${id} does not exist`);
    Object.assign(e, { state: 'DELETED', deletedAt: this.now(), deletedBy: actor });
    this.log({ actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id, details: { proxyId: e.proxyId } });
    return copy(e);
  }
}

class InMemoryAuditLogRepository extends Base implements AuditLogRepository {
  async append(entry: AuditEntry) { this.log(entry); }
  async listFor(entityType: string, entityId: string) { return this.s.audit.filter((a) => a.entityType === entityType && a.entityId === entityId).map(copy); }
}

/** All repositories over one shared in-memory state; `now` is injectable for tests of time. */
export function createInMemoryRepositories(now: () => Date = () => new Date()): Repositories & { state: InMemoryState } {
  const state: InMemoryState = {
    collections: new Map(), documents: new Map(), feedback: new Map(), verdicts: [], quarantines: new Map(), answers: new Map(), enhancements: new Map(), audit: [],
  };
  const health: DatabaseHealth = { ping: async () => {} };
  return {
    state,
    documents: new InMemoryDocumentRepository(state, now),
    feedback: new InMemoryFeedbackEventRepository(state, now),
    verdicts: new InMemoryVerdictRepository(state, now),
    quarantines: new InMemoryQuarantineRepository(state, now),
    answers: new InMemoryAnswerRepository(state, now),
    enhancements: new InMemoryEnhancementRepository(state, now),
    audit: new InMemoryAuditLogRepository(state, now),
    health,
  };
}
