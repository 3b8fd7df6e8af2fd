import { randomUUID } from 'node:crypto';
import {
  DECISION_AUDIT_ACTIONS, planDecision, PURGED_CACHE_KEY, PURGED_TEXT_MARKER, REDACT_AUDIT_ACTION, UNDO_AUDIT_ACTION,
  type RedactOptions, type RedactResult,
  type DecisionPrev, type ReviewProgressCounts, type UndoResult,
  type AuditQuery, type AuditRow, type BatchDecided, type BulkRequestRow, type NewRememberedDecision, type ClaimResult, type DecideOptions, type DecideResult, type DecisionAction, type QuarantineRow,
  type QuarantineState, type RememberedDecision, type ReviewCounts, type ReviewCursor, type ReviewEventFilter, type ReviewEventRow, type ReviewFilter,
  type ReviewItemRow, type ReviewPage, type ReviewRepository, type ReviewSort,
} from '../ports/repositories';
import { reporterKindOf } from '../domain/reporter-kind';
import { copy, InMemoryRepository, type InMemoryState } from './in-memory-state';

/** Review columns of a quarantine record the shared state does not hold (Postgres: columns of QuarantineRecord). */
interface ReviewExtra { decision: DecisionAction | 'redact' | null; decisionRequestId: string | null; claimedBy: string | null; claimedUntil: Date | null; reasons: string[] }
interface ReviewState { extra: Map<string, ReviewExtra>; memory: RememberedDecision[]; bulk: Map<string, BulkRequestRow> }

const REVIEW_STATE = new WeakMap<InMemoryState, ReviewState>();
function reviewState(s: InMemoryState): ReviewState {
  let r = REVIEW_STATE.get(s);
  if (!r) { r = { extra: new Map(), memory: [], bulk: new Map() }; REVIEW_STATE.set(s, r); }
  return r;
}

const suspicionOf = (q: QuarantineRow): number | null => {
  const e = q.evidence.retrieverEvidence;
  const c = e && 'combined' in e ? e.combined : null;
  return c?.available && Number.isFinite(c.suspicion) ? c.suspicion : null;
};

const cmpId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const AUDIT_ACTION = DECISION_AUDIT_ACTIONS;
const ofPrincipal = (p: string) => (actor: string) => actor === p || actor.startsWith(`${p} key:`);

/**
 * The review console's repository over the shared in-memory state, with the semantics of the
 * Prisma adapter (test/review-repository.contract.test.ts runs on both): keyset pages in the same
 * orders, claims that expire by the clock, decisions checked against claims and written with the
 * document status, the audit entry and the remembered decision.
 */
export class InMemoryReviewRepository extends InMemoryRepository implements ReviewRepository {
  private get r(): ReviewState { return reviewState(this.s); }
  private extra(id: string): ReviewExtra {
    let x = this.r.extra.get(id);
    if (!x) {
      const q = this.s.quarantines.get(id);
      // Records resolved through the older QuarantineRepository path carry their decision by state.
      const decision: DecisionAction | null = q?.resolvedBy ? (q.state === 'RESTORED' ? 'restore' : q.state === 'PURGED' ? 'purge' : 'approve') : null;
      x = { decision, decisionRequestId: null, claimedBy: null, claimedUntil: null, reasons: [] };
      this.r.extra.set(id, x);
    }
    return x;
  }

  private item(q: QuarantineRow): ReviewItemRow {
    const d = this.s.documents.get(q.documentId)!;
    const f = q.feedbackId ? this.s.feedback.get(q.feedbackId) : undefined;
    const x = this.extra(q.id);
    const live = x.claimedBy && x.claimedUntil && x.claimedUntil.getTime() > this.now().getTime();
    return {
      id: q.id, state: q.state, documentId: q.documentId, collection: q.collection, externalId: d.externalId, metadata: d.metadata ? copy(d.metadata) : null, textHash: d.textHash, textPreview: d.text.slice(0, 240), feedbackId: q.feedbackId,
      query: f?.query ?? null, wrongAnswer: f?.wrongAnswer ?? null, judgeKind: q.evidence.judge?.kind ?? null, judgeLabel: q.evidence.judge?.label ?? null,
      suspicion: suspicionOf(q), servedDuringReview: q.servedDuringReview, createdAt: new Date(q.createdAt), decision: x.decision, decidedBy: q.resolvedBy,
      decidedAt: q.resolvedAt ? new Date(q.resolvedAt) : null, note: q.note, reasons: [...x.reasons], claim: live ? { by: x.claimedBy!, until: new Date(x.claimedUntil!) } : null,
    };
  }

  private matches(f: ReviewFilter, withStates: boolean) {
    return (i: ReviewItemRow): boolean => {
      if (withStates && f.states && !f.states.includes(i.state)) return false;
      if (f.collection !== undefined && i.collection !== f.collection) return false;
      if (f.feedbackId !== undefined && i.feedbackId !== f.feedbackId) return false;
      if (f.judgeKind !== undefined && i.judgeKind !== f.judgeKind) return false;
      if (f.from && i.createdAt < f.from) return false;
      if (f.to && i.createdAt >= f.to) return false;
      if (f.minSuspicion !== undefined && (i.suspicion === null || i.suspicion < f.minSuspicion)) return false;
      if (f.maxSuspicion !== undefined && (i.suspicion === null || i.suspicion > f.maxSuspicion)) return false;
      if (f.q && !this.s.documents.get(i.documentId)!.text.toLowerCase().includes(f.q.toLowerCase())) return false;
      if (f.decided === true && i.decision === null) return false;
      if (f.decided === false && i.decision !== null) return false;
      if (f.reason !== undefined && !i.reasons.includes(f.reason)) return false;
      if (f.decidableBy !== undefined && (i.decision !== null || (i.claim !== null && i.claim.by !== f.decidableBy))) return false;
      return true;
    };
  }

  private all(): ReviewItemRow[] { return [...this.s.quarantines.values()].map((q) => this.item(q)); }

  async search(filter: ReviewFilter, page: { sort: ReviewSort; limit: number; after?: ReviewCursor | null }): Promise<ReviewPage> {
    const key = (i: ReviewItemRow) => ({ s: i.suspicion ?? -1, t: i.createdAt.getTime(), id: i.id });
    const cmp = (a: ReviewItemRow, b: ReviewItemRow): number => {
      const x = key(a);
      const y = key(b);
      if (page.sort === 'risk') return y.s - x.s || y.t - x.t || cmpId(y.id, x.id);
      if (page.sort === 'age') return x.t - y.t || cmpId(x.id, y.id);
      return y.t - x.t || cmpId(y.id, x.id);
    };
    let rows = this.all().filter(this.matches(filter, true)).sort(cmp);
    if (page.after) {
      const c = page.after;
      const pivot = { suspicion: c.suspicion, createdAt: new Date(c.createdAt), id: c.id } as ReviewItemRow;
      rows = rows.filter((i) => cmp(i, pivot) > 0);
    }
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1];
    return { rows: items, next: rows.length > page.limit && last ? { sort: page.sort, suspicion: last.suspicion ?? -1, createdAt: last.createdAt.toISOString(), id: last.id } : null };
  }

  async countByState(filter: ReviewFilter): Promise<ReviewCounts> {
    const counts: ReviewCounts = { NEEDS_REVIEW: 0, QUARANTINED: 0, RESTORED: 0, PURGED: 0 };
    for (const i of this.all().filter(this.matches(filter, false))) counts[i.state]++;
    return counts;
  }

  async matchIds(filter: ReviewFilter, cap: number): Promise<{ ids: string[]; capped: boolean }> {
    const rows = this.all().filter(this.matches(filter, true)).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || cmpId(a.id, b.id));
    return { ids: rows.slice(0, cap).map((i) => i.id), capped: rows.length > cap };
  }

  async summaries(ids: readonly string[]): Promise<ReviewItemRow[]> {
    return [...new Set(ids)].flatMap((id) => { const q = this.s.quarantines.get(id); return q ? [this.item(q)] : []; });
  }

  async claim(id: string, by: string, ttlMs: number): Promise<ClaimResult> {
    if (!this.s.quarantines.has(id)) return { outcome: 'missing', claim: null };
    const x = this.extra(id);
    const now = this.now().getTime();
    if (x.claimedBy && x.claimedUntil && x.claimedUntil.getTime() > now && x.claimedBy !== by) return { outcome: 'held-by-other', claim: { by: x.claimedBy, until: new Date(x.claimedUntil) } };
    x.claimedBy = by;
    x.claimedUntil = new Date(now + ttlMs);
    return { outcome: 'claimed', claim: { by, until: new Date(x.claimedUntil) } };
  }

  async releaseClaim(id: string, by: string): Promise<void> {
    const x = this.r.extra.get(id);
    if (x && x.claimedBy === by) { x.claimedBy = null; x.claimedUntil = null; }
  }

  async decide(id: string, action: DecisionAction, opts: DecideOptions): Promise<DecideResult> {
    const q = this.s.quarantines.get(id);
    if (!q) return { outcome: 'missing' };
    const x = this.extra(id);
    const live = !!(x.claimedBy && x.claimedUntil && x.claimedUntil.getTime() > this.now().getTime());
    if (live && x.claimedBy !== opts.claimant && !opts.override) return { outcome: 'claimed', row: this.item(q), claim: { by: x.claimedBy!, until: new Date(x.claimedUntil!) } };
    const plan = planDecision(action, q.state, x.decision);
    if (plan === 'conflict' || plan === 'unchanged') return { outcome: plan, row: this.item(q) };
    const from = q.state;
    const doc = this.s.documents.get(q.documentId)!;
    const prev: DecisionPrev = {
      state: q.state, decision: x.decision, resolvedBy: q.resolvedBy, resolvedAt: q.resolvedAt ? new Date(q.resolvedAt).toISOString() : null, note: q.note,
      reasons: [...x.reasons], servedDuringReview: q.servedDuringReview, documentStatus: doc.status,
    };
    Object.assign(q, { state: plan.to, resolvedBy: opts.actor, resolvedAt: this.now(), note: opts.note ?? null }, plan.storeChanges ? { storeSynced: false } : {}, plan.to === 'QUARANTINED' ? { servedDuringReview: false } : {});
    const overrode = live && x.claimedBy !== opts.claimant ? x.claimedBy : null;
    Object.assign(x, { decision: action, decisionRequestId: opts.requestId ?? null, claimedBy: null, claimedUntil: null, reasons: [...(opts.reasons ?? [])] });
    if (action === 'purge') {
      doc.status = 'PURGED';
      doc.text = PURGED_TEXT_MARKER;
      for (const v of this.s.verdicts) if (v.documentId === q.documentId) { v.reply = PURGED_TEXT_MARKER; v.cacheKey = PURGED_CACHE_KEY; }
      for (const r of this.s.quarantines.values()) if (r.documentId === q.documentId && r.evidence.judge) r.evidence.judge.reply = PURGED_TEXT_MARKER;
      for (const other of this.s.quarantines.values()) {
        if (other.documentId === q.documentId && other.id !== id && (other.state === 'QUARANTINED' || other.state === 'NEEDS_REVIEW')) Object.assign(other, { state: 'PURGED', storeSynced: false });
      }
    } else {
      doc.status = plan.to === 'RESTORED' ? 'ACTIVE' : 'QUARANTINED';
    }
    // Any other decision on a redacted item withdraws its redacted version (kept, out of serving).
    const withdrew = q.redaction?.active ? q.redaction.documentId : null;
    if (withdrew) {
      const version = this.s.documents.get(withdrew);
      if (version?.status === 'ACTIVE') version.status = 'QUARANTINED';
      q.redaction = { ...q.redaction!, active: false };
      q.storeSynced = false;
    }
    this.log({
      actor: opts.actor, action: AUDIT_ACTION[action], entityType: 'QuarantineRecord', entityId: id,
      details: { documentId: q.documentId, note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], from, to: plan.to, prev: { ...prev }, ...(opts.requestId ? { requestId: opts.requestId } : {}), ...(withdrew ? { withdrewRedaction: withdrew } : {}), ...(opts.override && overrode ? { overrodeClaimOf: overrode } : {}) },
    });
    if (opts.remember) this.r.memory.push({ id: randomUUID(), collection: q.collection, ...opts.remember, action, actor: opts.actor, note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], recordId: id, at: this.now() });
    return { outcome: 'changed', row: this.item(q) };
  }

  async decideBatch(entries: readonly { id: string; remember: NewRememberedDecision | null }[], action: 'approve' | 'restore', opts: Omit<DecideOptions, 'remember'>): Promise<BatchDecided[]> {
    const out: BatchDecided[] = [];
    for (const e of entries) {
      const r = await this.decide(e.id, action, { ...opts, remember: e.remember });
      if (r.outcome !== 'changed') continue;
      const q = this.s.quarantines.get(e.id)!;
      out.push({ id: q.id, documentId: q.documentId, collection: q.collection, feedbackId: q.feedbackId, state: q.state, storeSynced: q.storeSynced });
    }
    return out;
  }

  async undoLast(principal: string, actor: string, opts: { id?: string } = {}): Promise<UndoResult> {
    const rows = this.auditRows();
    const mine = ofPrincipal(principal);
    const undone = new Set(rows.filter((a) => a.action === UNDO_AUDIT_ACTION).map((a) => String(a.details?.undoes)));
    const last = [...rows].reverse().find((a) => a.entityType === 'QuarantineRecord' && (a.action === AUDIT_ACTION.approve || a.action === AUDIT_ACTION.restore || a.action === REDACT_AUDIT_ACTION)
      && mine(a.actor) && a.details && 'prev' in a.details && !('requestId' in a.details) && !('withdrewRedaction' in a.details) && (opts.id === undefined || a.entityId === opts.id) && !undone.has(a.id));
    const q = last ? this.s.quarantines.get(last.entityId) : undefined;
    if (!last || !q) return { outcome: 'nothing' };
    const d = last.details as unknown as { to: QuarantineState; prev: DecisionPrev };
    const since = [...rows].reverse().find((a) => a.entityId === q.id && Number(a.id) > Number(last.id)
      && [AUDIT_ACTION.approve, AUDIT_ACTION.restore, AUDIT_ACTION.purge, UNDO_AUDIT_ACTION, REDACT_AUDIT_ACTION].includes(a.action));
    if (since || q.state !== d.to) return { outcome: 'decided-since', row: this.item(q), by: since?.actor ?? 'another process', action: since?.action ?? `state ${q.state}` };
    const p = d.prev;
    const from = q.state;
    Object.assign(q, { state: p.state, resolvedBy: p.resolvedBy, resolvedAt: p.resolvedAt ? new Date(p.resolvedAt) : null, note: p.note, servedDuringReview: p.servedDuringReview, storeSynced: false });
    Object.assign(this.extra(q.id), { decision: p.decision as DecisionAction | null, decisionRequestId: null, reasons: [...p.reasons] });
    this.s.documents.get(q.documentId)!.status = p.documentStatus as never;
    if (last.action === REDACT_AUDIT_ACTION) {
      // Undoing a redaction withdraws its version (kept in Postgres, out of serving), like a later decision would.
      const version = q.redaction?.active ? this.s.documents.get(q.redaction.documentId) : undefined;
      if (version?.status === 'ACTIVE') version.status = 'QUARANTINED';
      if (q.redaction) q.redaction = { ...q.redaction, active: false };
    } else {
      const action = last.action === AUDIT_ACTION.approve ? 'approve' : 'restore';
      const m = this.r.memory.filter((r) => r.recordId === q.id && r.action === action).sort((a, b) => b.at.getTime() - a.at.getTime())[0];
      if (m) this.r.memory.splice(this.r.memory.indexOf(m), 1);
    }
    this.log({ actor, action: UNDO_AUDIT_ACTION, entityType: 'QuarantineRecord', entityId: q.id, details: { documentId: q.documentId, undoes: last.id, undoneAction: last.action, from, to: p.state } });
    return { outcome: 'undone', row: this.item(q), undid: { auditId: last.id, action: last.action, at: last.at } };
  }

  async redact(id: string, opts: RedactOptions): Promise<RedactResult> {
    const q = this.s.quarantines.get(id);
    if (!q) return { outcome: 'missing' };
    const x = this.extra(id);
    const live = !!(x.claimedBy && x.claimedUntil && x.claimedUntil.getTime() > this.now().getTime());
    if (live && x.claimedBy !== opts.claimant && !opts.override) return { outcome: 'claimed', row: this.item(q), claim: { by: x.claimedBy!, until: new Date(x.claimedUntil!) } };
    if (x.decision === 'redact' && q.redaction?.active) return { outcome: 'unchanged', row: this.item(q), redaction: copy(q.redaction) };
    if (q.state === 'PURGED') return { outcome: 'conflict', row: this.item(q), reason: `quarantine record ${id} is PURGED: the text is gone` };
    const dup = [...this.s.documents.values()].find((d) => d.collection === q.collection && d.textHash === opts.version.textHash);
    // The same redaction again after an undo or a restore: this record's own withdrawn version is served again.
    const reuse = dup !== undefined && q.redaction?.active === false && q.redaction.documentId === dup.id;
    if (dup && !reuse) return { outcome: 'conflict', row: this.item(q), reason: `the redacted text is already document ${dup.id} of the collection` };
    const doc = this.s.documents.get(q.documentId)!;
    const versionId = reuse ? dup!.id : opts.version.id;
    if (reuse) dup!.status = 'ACTIVE';
    else this.s.documents.set(opts.version.id, { id: opts.version.id, collection: q.collection, externalId: doc.externalId, textHash: opts.version.textHash, text: opts.version.text, metadata: copy(opts.version.metadata), status: 'ACTIVE', createdAt: new Date() });
    const prev: DecisionPrev = {
      state: q.state, decision: x.decision, resolvedBy: q.resolvedBy, resolvedAt: q.resolvedAt ? new Date(q.resolvedAt).toISOString() : null, note: q.note,
      reasons: [...x.reasons], servedDuringReview: q.servedDuringReview, documentStatus: doc.status,
    };
    const from = q.state;
    const overrode = live && x.claimedBy !== opts.claimant ? x.claimedBy : null;
    const redaction = { ...copy(opts.redaction), documentId: versionId, active: true };
    Object.assign(q, { state: 'QUARANTINED', resolvedBy: opts.actor, resolvedAt: this.now(), note: opts.note ?? null, storeSynced: false, servedDuringReview: false, redaction });
    Object.assign(x, { decision: 'redact', decisionRequestId: null, claimedBy: null, claimedUntil: null, reasons: [...(opts.reasons ?? [])] });
    doc.status = 'QUARANTINED';
    this.log({
      actor: opts.actor, action: REDACT_AUDIT_ACTION, entityType: 'QuarantineRecord', entityId: id,
      details: {
        documentId: q.documentId, redactedDocumentId: versionId, spans: redaction.spans, removedChars: redaction.removedChars, marker: redaction.marker,
        note: opts.note ?? null, reasons: [...(opts.reasons ?? [])], from, to: 'QUARANTINED', prev: { ...prev }, ...(opts.override && overrode ? { overrodeClaimOf: overrode } : {}),
      },
    });
    return { outcome: 'changed', row: this.item(q) };
  }

  async progress(principal: string, since: Date): Promise<ReviewProgressCounts> {
    const mine = ofPrincipal(principal);
    const decisions = new Set<string>([AUDIT_ACTION.approve, AUDIT_ACTION.restore, AUDIT_ACTION.purge, REDACT_AUDIT_ACTION]);
    const rows = this.auditRows().filter((a) => a.entityType === 'QuarantineRecord' && a.at >= since && (decisions.has(a.action) || a.action === UNDO_AUDIT_ACTION));
    const sum = (xs: AuditRow[]) => xs.reduce((n, a) => n + (a.action === UNDO_AUDIT_ACTION ? -1 : 1), 0);
    const reviewers = new Set(rows.filter((a) => decisions.has(a.action)).map((a) => a.actor.split(' key:')[0])).size;
    return { mine: Math.max(0, sum(rows.filter((a) => mine(a.actor)))), team: Math.max(0, sum(rows)), reviewers };
  }

  async remembered(collection: string, textHash: string): Promise<RememberedDecision[]> {
    return this.r.memory.filter((m) => m.collection === collection && m.textHash === textHash).sort((a, b) => b.at.getTime() - a.at.getTime() || cmpId(b.id, a.id)).map(copy);
  }

  async beginBulk(b: Omit<BulkRequestRow, 'result' | 'createdAt' | 'finishedAt'>): Promise<{ row: BulkRequestRow; created: boolean }> {
    const existing = this.r.bulk.get(b.requestId);
    if (existing) return { row: copy(existing), created: false };
    const row: BulkRequestRow = { ...copy(b), result: null, createdAt: this.now(), finishedAt: null };
    this.r.bulk.set(b.requestId, row);
    return { row: copy(row), created: true };
  }

  async finishBulk(requestId: string, result: NonNullable<BulkRequestRow['result']>): Promise<void> {
    const row = this.r.bulk.get(requestId);
    if (row && !row.finishedAt) Object.assign(row, { result: copy(result), finishedAt: this.now() });
  }

  async countDecidedBy(requestId: string): Promise<number> {
    return [...this.r.extra.values()].filter((x) => x.decisionRequestId === requestId).length;
  }

  async listEvents(filter: ReviewEventFilter): Promise<ReviewEventRow[]> {
    return [...this.s.feedback.values()]
      .filter((f) => (!filter.status || f.status === filter.status) && (!filter.collection || f.collection === filter.collection))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || cmpId(b.id, a.id))
      .filter((f) => !filter.after || f.createdAt.getTime() < new Date(filter.after.createdAt).getTime() || (f.createdAt.getTime() === new Date(filter.after.createdAt).getTime() && f.id < filter.after.id))
      .slice(0, filter.limit).map((f) => this.event(f.id));
  }

  async getEvent(id: string): Promise<ReviewEventRow | null> {
    return this.s.feedback.has(id) ? this.event(id) : null;
  }

  private event(id: string): ReviewEventRow {
    const f = this.s.feedback.get(id)!;
    const verdicts = { YES: 0, NO: 0, UNDETERMINED: 0 };
    for (const v of this.s.verdicts) if (v.feedbackId === id) verdicts[v.label]++;
    const items: Record<QuarantineState, number> = { NEEDS_REVIEW: 0, QUARANTINED: 0, RESTORED: 0, PURGED: 0 };
    for (const q of this.s.quarantines.values()) if (q.feedbackId === id) items[q.state]++;
    const enhancements = [...this.s.enhancements.values()].filter((e) => e.feedbackId === id).length;
    return {
      id, collection: f.collection, query: f.query, wrongAnswer: f.wrongAnswer, correctAnswer: f.correctAnswer, reporter: f.reporter, reporterKind: reporterKindOf(f), status: f.status, step: f.step,
      verification: f.verification, createdAt: new Date(f.createdAt), verdicts, items, enhancements,
    };
  }

  private auditRows(): AuditRow[] {
    return this.s.audit.map((a, i) => ({ id: String(i + 1), at: new Date(a.at), actor: a.actor, action: a.action, entityType: a.entityType, entityId: a.entityId, details: a.details ? copy(a.details) : null }));
  }

  async listAudit(query: AuditQuery): Promise<AuditRow[]> {
    const q = query.q?.toLowerCase();
    return this.auditRows().reverse().filter((a) => (!query.actor || a.actor === query.actor) && (!query.action || a.action === query.action)
      && (!query.entityId || a.entityId === query.entityId) && (!query.reason || (Array.isArray(a.details?.reasons) && (a.details.reasons as unknown[]).includes(query.reason))) && (!query.from || a.at >= query.from) && (!query.to || a.at < query.to)
      && (query.beforeId === undefined || (/^\d+$/.test(query.beforeId) && Number(a.id) < Number(query.beforeId)))
      && (!q || [a.entityId, a.actor, a.action, JSON.stringify(a.details ?? null)].some((s) => s.toLowerCase().includes(q))))
      .slice(0, query.limit);
  }

  async auditFor(entityIds: readonly string[]): Promise<AuditRow[]> {
    const want = new Set(entityIds);
    return this.auditRows().filter((a) => want.has(a.entityId));
  }
}
