import { randomUUID } from 'node:crypto';
import type {
  AnswerRow, AuditEntry, CollectionRow, DocumentRow, EnhancementRow, FeedbackRow, ForensicsRepository, NewAnswer, NewEnhancement, NewFeedback, NewQuarantine,
  NewVerdict, QuarantineRow, QuarantineState, VerdictRow,
} from '../ports/forensics-repository.port';

/**
 * In-memory ForensicsRepository with the semantics the Prisma adapter gives Postgres: documents
 * unique per (collection, textHash), feedback idempotent by key, verdicts upserted on
 * (feedbackId, documentId), one active quarantine per document, a cross-event verdict cache by key.
 * Rows are copied in and out, so callers cannot mutate stored state by accident. `now` is injectable.
 */
export class InMemoryForensicsRepository implements ForensicsRepository {
  readonly collections = new Map<string, CollectionRow>();
  readonly documents = new Map<string, DocumentRow>();
  readonly feedback = new Map<string, FeedbackRow>();
  readonly verdicts: VerdictRow[] = [];
  readonly quarantines = new Map<string, QuarantineRow>();
  readonly auditLog: (AuditEntry & { at: Date })[] = [];
  readonly answers = new Map<string, AnswerRow>();
  readonly enhancements = new Map<string, EnhancementRow>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async getCollection(name: string): Promise<CollectionRow | null> {
    const c = this.collections.get(name);
    return c ? { ...c } : null;
  }

  async ensureCollection(c: CollectionRow): Promise<CollectionRow> {
    if (!this.collections.has(c.name)) this.collections.set(c.name, { ...c });
    return { ...this.collections.get(c.name)! };
  }

  async findDocumentsByHashes(collection: string, hashes: readonly string[]): Promise<DocumentRow[]> {
    const want = new Set(hashes);
    return [...this.documents.values()].filter((d) => d.collection === collection && want.has(d.textHash)).map((d) => ({ ...d }));
  }

  async insertDocuments(rows: readonly Omit<DocumentRow, 'status'>[]): Promise<number> {
    let inserted = 0;
    for (const r of rows) {
      const dup = [...this.documents.values()].some((d) => d.id === r.id || (d.collection === r.collection && d.textHash === r.textHash));
      if (dup) continue;
      this.documents.set(r.id, { ...r, status: 'ACTIVE' });
      inserted++;
    }
    return inserted;
  }

  async getDocuments(ids: readonly string[]): Promise<DocumentRow[]> {
    return ids.flatMap((id) => {
      const d = this.documents.get(id);
      return d ? [{ ...d }] : [];
    });
  }

  async countDocuments(collection: string): Promise<number> {
    return [...this.documents.values()].filter((d) => d.collection === collection).length;
  }

  async createFeedback(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    if (input.answerId) {
      const existing = [...this.feedback.values()].find((f) => f.answerId === input.answerId);
      if (existing) return { event: copyFeedback(existing), created: false };
    }
    if (input.idempotencyKey) {
      const existing = [...this.feedback.values()].find((f) => f.idempotencyKey === input.idempotencyKey);
      if (existing) return { event: copyFeedback(existing), created: false };
    }
    const at = this.now();
    const event: FeedbackRow = {
      id: randomUUID(), collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer,
      correctAnswer: input.correctAnswer ?? null, servedIds: [...(input.servedIds ?? [])], reporter: input.reporter ?? null,
      idempotencyKey: input.idempotencyKey ?? null, status: 'RECEIVED', k: input.k, trace: null, failureReason: null, attempts: 0,
      createdAt: at, updatedAt: at, tracedAt: null, answerId: input.answerId ?? null, verification: null, verificationDetails: null,
    };
    this.feedback.set(event.id, event);
    return { event: copyFeedback(event), created: true };
  }

  async getFeedback(id: string): Promise<FeedbackRow | null> {
    const f = this.feedback.get(id);
    return f ? copyFeedback(f) : null;
  }

  async updateFeedback(id: string, patch: Partial<Pick<FeedbackRow, 'status' | 'trace' | 'failureReason' | 'attempts' | 'tracedAt' | 'verification' | 'verificationDetails' | 'correctAnswer'>>): Promise<void> {
    const f = this.feedback.get(id);
    if (!f) throw new Error(`feedback ${id} does not exist`);
    Object.assign(f, patch, { updatedAt: this.now() });
  }

  async findFeedbackByAnswer(answerId: string): Promise<FeedbackRow | null> {
    const f = [...this.feedback.values()].find((x) => x.answerId === answerId);
    return f ? copyFeedback(f) : null;
  }

  async listUnqueuedFeedback(olderThan: Date, limit: number): Promise<FeedbackRow[]> {
    return [...this.feedback.values()].filter((f) => f.status === 'RECEIVED' && f.createdAt < olderThan).slice(0, limit).map(copyFeedback);
  }

  async listVerdicts(feedbackId: string): Promise<VerdictRow[]> {
    return this.verdicts.filter((v) => v.feedbackId === feedbackId).map((v) => ({ ...v }));
  }

  async findVerdictByCacheKey(cacheKey: string): Promise<VerdictRow | null> {
    for (let i = this.verdicts.length - 1; i >= 0; i--) if (this.verdicts[i].cacheKey === cacheKey) return { ...this.verdicts[i] };
    return null;
  }

  async saveVerdict(v: NewVerdict): Promise<void> {
    const i = this.verdicts.findIndex((x) => x.feedbackId === v.feedbackId && x.documentId === v.documentId);
    if (i >= 0) {
      // An upsert moves the row to the end, so "most recent" stays the last one.
      const [old] = this.verdicts.splice(i, 1);
      this.verdicts.push({ ...v, id: old.id, createdAt: this.now() });
    } else {
      this.verdicts.push({ ...v, id: randomUUID(), createdAt: this.now() });
    }
  }

  async createQuarantine(q: NewQuarantine): Promise<{ record: QuarantineRow; created: boolean }> {
    const active = [...this.quarantines.values()].find((r) => r.documentId === q.documentId && (r.state === 'QUARANTINED' || r.state === 'NEEDS_REVIEW'));
    if (active) return { record: { ...active }, created: false };
    const state = q.state ?? 'QUARANTINED';
    const record: QuarantineRow = {
      id: randomUUID(), documentId: q.documentId, feedbackId: q.feedbackId, collection: q.collection, reason: q.reason,
      evidence: q.evidence, policy: q.policy, state, storeSynced: false, servedDuringReview: state === 'NEEDS_REVIEW' && !!q.servedDuringReview,
      createdBy: q.createdBy, createdAt: this.now(), resolvedBy: null, resolvedAt: null, note: null,
    };
    this.quarantines.set(record.id, record);
    const doc = this.documents.get(q.documentId);
    if (doc && (state === 'QUARANTINED' || !q.servedDuringReview)) doc.status = 'QUARANTINED';
    await this.audit({ actor: q.createdBy, action: state === 'QUARANTINED' ? 'quarantine.created' : 'review.requested', entityType: 'QuarantineRecord', entityId: record.id, details: { documentId: q.documentId, feedbackId: q.feedbackId, policy: q.policy, servedDuringReview: record.servedDuringReview } });
    return { record: { ...record }, created: true };
  }

  async markQuarantineSynced(id: string): Promise<void> {
    const r = this.quarantines.get(id);
    if (r) r.storeSynced = true;
  }

  async getQuarantine(id: string): Promise<QuarantineRow | null> {
    const r = this.quarantines.get(id);
    return r ? { ...r } : null;
  }

  async listQuarantines(filter: { feedbackId?: string; state?: QuarantineState; collection?: string; unsynced?: boolean; limit?: number }): Promise<QuarantineRow[]> {
    return [...this.quarantines.values()]
      .filter((r) => (filter.feedbackId === undefined || r.feedbackId === filter.feedbackId)
        && (filter.state === undefined || r.state === filter.state)
        && (filter.collection === undefined || r.collection === filter.collection)
        && (!filter.unsynced || !r.storeSynced))
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY)
      .map((r) => ({ ...r }));
  }

  async restoreQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    const r = this.quarantines.get(id);
    if (!r) throw new Error(`quarantine ${id} does not exist`);
    Object.assign(r, { state: 'RESTORED', storeSynced: false, resolvedBy: actor, resolvedAt: this.now(), note: note ?? null });
    const doc = this.documents.get(r.documentId);
    if (doc) doc.status = 'ACTIVE';
    await this.audit({ actor, action: 'quarantine.restored', entityType: 'QuarantineRecord', entityId: id, details: { documentId: r.documentId, note: note ?? null } });
    return { ...r };
  }

  async approveQuarantine(id: string, actor: string, note?: string): Promise<QuarantineRow> {
    const r = this.quarantines.get(id);
    if (!r) throw new Error(`quarantine ${id} does not exist`);
    if (r.state !== 'NEEDS_REVIEW') return { ...r };
    Object.assign(r, { state: 'QUARANTINED', storeSynced: false, servedDuringReview: false, resolvedBy: actor, resolvedAt: this.now(), note: note ?? null });
    const doc = this.documents.get(r.documentId);
    if (doc) doc.status = 'QUARANTINED';
    await this.audit({ actor, action: 'review.approved', entityType: 'QuarantineRecord', entityId: id, details: { documentId: r.documentId, note: note ?? null } });
    return { ...r };
  }

  async createAnswer(a: NewAnswer): Promise<AnswerRow> {
    const row: AnswerRow = { ...a, servedIds: [...a.servedIds], servedScores: [...a.servedScores], id: randomUUID(), createdAt: this.now() };
    this.answers.set(row.id, row);
    return { ...row };
  }

  async getAnswer(id: string): Promise<AnswerRow | null> {
    const a = this.answers.get(id);
    return a ? { ...a, servedIds: [...a.servedIds], servedScores: [...a.servedScores] } : null;
  }

  async createEnhancement(e: NewEnhancement): Promise<EnhancementRow> {
    const row: EnhancementRow = { ...e, id: randomUUID(), createdAt: this.now(), state: 'ACTIVE', deletedAt: null, deletedBy: null };
    this.enhancements.set(row.id, row);
    return { ...row };
  }

  async getEnhancement(id: string): Promise<EnhancementRow | null> {
    const e = this.enhancements.get(id);
    return e ? { ...e } : null;
  }

  async listEnhancements(filter: { collection?: string; feedbackId?: string; state?: 'ACTIVE' | 'DELETED' }): Promise<EnhancementRow[]> {
    return [...this.enhancements.values()]
      .filter((e) => (filter.collection === undefined || e.collection === filter.collection)
        && (filter.feedbackId === undefined || e.feedbackId === filter.feedbackId)
        && (filter.state === undefined || e.state === filter.state))
      .map((e) => ({ ...e }));
  }

  async getEnhancementsByProxyIds(proxyIds: readonly string[]): Promise<EnhancementRow[]> {
    const want = new Set(proxyIds);
    return [...this.enhancements.values()].filter((e) => e.state === 'ACTIVE' && want.has(e.proxyId)).map((e) => ({ ...e }));
  }

  async markEnhancementDeleted(id: string, actor: string): Promise<EnhancementRow> {
    const e = this.enhancements.get(id);
    if (!e) throw new Error(`enhancement ${id} does not exist`);
    if (e.state !== 'DELETED') {
      Object.assign(e, { state: 'DELETED', deletedAt: this.now(), deletedBy: actor });
      await this.audit({ actor, action: 'enhancement.deleted', entityType: 'Enhancement', entityId: id });
    }
    return { ...e };
  }

  async audit(entry: AuditEntry): Promise<void> {
    this.auditLog.push({ ...entry, at: this.now() });
  }

  async listAudit(entityType: string, entityId: string): Promise<(AuditEntry & { at: Date })[]> {
    return this.auditLog.filter((a) => a.entityType === entityType && a.entityId === entityId).map((a) => ({ ...a }));
  }

  async ping(): Promise<void> {}
}

function copyFeedback(f: FeedbackRow): FeedbackRow {
  return { ...f, servedIds: [...f.servedIds] };
}
