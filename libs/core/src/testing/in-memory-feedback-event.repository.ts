import { randomUUID } from 'node:crypto';
import type { TrustLevel } from '@forensics/algorithms';
import type { FeedbackEventRepository, FeedbackPatch, FeedbackRow, FeedbackStatus, NewFeedback } from '../ports/repositories';
import { byTimeThenId, ConstraintViolation, copy, definedOnly, InMemoryRepository, jsonColumn } from './in-memory-state';

/** A patch as stored: JSON columns as Postgres gives them back, undefined members left alone. */
function stored(patch: FeedbackPatch): Partial<FeedbackRow> {
  const p = definedOnly(patch);
  return {
    ...copy(p),
    ...('trace' in p ? { trace: jsonColumn(p.trace) } : {}),
    ...('verificationDetails' in p ? { verificationDetails: jsonColumn(p.verificationDetails) } : {}),
  };
}

/**
 * Feedback events: idempotent by key; the answer id is unique and must name a logged answer (a
 * second event for one answer is refused, as Postgres' unique index refuses it); status changes
 * only by compare-and-set; `updatedAt` advances on every write.
 */
export class InMemoryFeedbackEventRepository extends InMemoryRepository implements FeedbackEventRepository {
  async create(input: NewFeedback): Promise<{ event: FeedbackRow; created: boolean }> {
    const key = input.idempotencyKey ?? null;
    const byKey = key ? [...this.s.feedback.values()].find((f) => f.idempotencyKey === key) : undefined;
    if (byKey) return { event: copy(byKey), created: false };
    const answerId = input.answerId ?? null;
    if (answerId !== null && !this.s.answers.has(answerId)) throw new ConstraintViolation(`foreign key: answer ${answerId} does not exist`);
    if (answerId !== null && [...this.s.feedback.values()].some((f) => f.answerId === answerId)) throw new ConstraintViolation(`unique constraint: an event exists for answer ${answerId}`);
    const at = this.now();
    const event: FeedbackRow = {
      id: randomUUID(), collection: input.collection, query: input.query, wrongAnswer: input.wrongAnswer, correctAnswer: input.correctAnswer ?? null,
      servedIds: [...(input.servedIds ?? [])], reporter: input.reporter ?? null, idempotencyKey: key, status: input.status ?? 'RECEIVED', step: null, k: input.k,
      trace: null, failureReason: null, attempts: 0, createdAt: at, updatedAt: at, tracedAt: null, answerId, verification: null, verificationDetails: null,
      trust: input.trust ?? 'identified', reporterSource: input.reporterSource ?? null, reportKey: input.reportKey ?? null,
    };
    this.s.feedback.set(event.id, event);
    return { event: copy(event), created: true };
  }

  async get(id: string): Promise<FeedbackRow | null> {
    const f = this.s.feedback.get(id);
    return f ? copy(f) : null;
  }

  async findByAnswer(answerId: string): Promise<FeedbackRow | null> {
    const f = [...this.s.feedback.values()].find((x) => x.answerId === answerId);
    return f ? copy(f) : null;
  }

  async transition(id: string, change: { from: readonly FeedbackStatus[]; to: FeedbackStatus; set?: FeedbackPatch; incrementAttempts?: boolean }): Promise<FeedbackRow | null> {
    // Check and write with no await in between: atomic, like the conditional UPDATE.
    const f = this.s.feedback.get(id);
    if (!f || !change.from.includes(f.status)) return null;
    Object.assign(f, stored(change.set ?? {}), { status: change.to, updatedAt: this.now() });
    if (change.incrementAttempts) f.attempts++;
    return copy(f);
  }

  async update(id: string, patch: FeedbackPatch): Promise<void> {
    const f = this.s.feedback.get(id);
    if (f) Object.assign(f, stored(patch), { updatedAt: this.now() });
  }

  async listStale(statuses: readonly FeedbackStatus[], updatedBefore: Date, limit: number, after?: { updatedAt: Date; id: string }): Promise<FeedbackRow[]> {
    if (limit <= 0) return [];
    const isAfter = (f: FeedbackRow) => !after || f.updatedAt.getTime() > after.updatedAt.getTime() || (f.updatedAt.getTime() === after.updatedAt.getTime() && f.id > after.id);
    return [...this.s.feedback.values()].filter((f) => statuses.includes(f.status) && f.updatedAt < updatedBefore && isAfter(f))
      .sort(byTimeThenId((f) => f.updatedAt)).slice(0, limit).map(copy);
  }

  async listRecent(collection: string, opts: { trust: readonly TrustLevel[]; limit: number; before?: { createdAt: Date; id: string } }): Promise<FeedbackRow[]> {
    if (opts.limit <= 0) return [];
    const b = opts.before;
    const isBefore = (f: FeedbackRow) => !b || f.createdAt.getTime() < b.createdAt.getTime() || (f.createdAt.getTime() === b.createdAt.getTime() && f.id < b.id);
    return [...this.s.feedback.values()].filter((f) => f.collection === collection && opts.trust.includes(f.trust ?? 'anonymous') && isBefore(f))
      .sort(byTimeThenId((f) => f.createdAt)).reverse().slice(0, opts.limit).map(copy);
  }
}
