import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewNextQuery, ReviewProgressQuery, toReviewFilter } from '../review-items/review.schema';
import { encodeCursor, itemSummary } from '../review-items/review-view';

export interface ReviewProgressDeps { review: ReviewRepository }

/** Midnight UTC of a date. */
const utcMidnight = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/**
 * The progress line of the queue and item pages (issue 35): decisions by me since the start of my
 * day, decisions by the team (and how many reviewers), and what is left in the filter — undecided
 * items of the filter, and of those the ones I can decide now (not held by someone else's claim).
 * Decisions are counted from the audit log, so an undo takes one off.
 */
export class ReviewProgressUseCase {
  static readonly inject: InjectMap<ReviewProgressDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewProgressDeps) {}

  async execute(query: unknown, principal: string) {
    const p = parseRequest(ReviewProgressQuery, query);
    const since = p.since ?? utcMidnight(new Date());
    const filter = { ...toReviewFilter(p), decided: false };
    const [counts, mineCounts, done] = await Promise.all([
      this.deps.review.countByState(filter),
      this.deps.review.countByState({ ...filter, decidableBy: principal }),
      this.deps.review.progress(principal, since),
    ]);
    const sum = (c: Record<string, number>) => (filter.states ?? []).reduce((n, s) => n + (c[s] ?? 0), 0);
    return { since: since.toISOString(), decidedByMe: done.mine, decidedByTeam: done.team, reviewersToday: done.reviewers, left: sum(counts), leftForMe: sum(mineCounts) };
  }
}

/**
 * "Next item I can decide" (j on the item page): the first item after `after` in the queue's order
 * that is undecided and not claimed by another reviewer; wraps to the start of the queue once.
 * Returns `{ item: null }` when none is left.
 */
export class NextReviewItemUseCase {
  static readonly inject: InjectMap<ReviewProgressDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewProgressDeps) {}

  async execute(query: unknown, principal: string) {
    const p = parseRequest(ReviewNextQuery, query);
    const sort = p.sort ?? 'risk';
    const filter = { ...toReviewFilter(p), decidableBy: principal };
    const [cur] = p.after ? await this.deps.review.summaries([p.after]) : [];
    if (cur) {
      const next = await this.deps.review.search(filter, { sort, limit: 1, after: { sort, suspicion: cur.suspicion ?? -1, createdAt: cur.createdAt.toISOString(), id: cur.id } });
      if (next.rows[0]) return { item: itemSummary(next.rows[0]), wrapped: false };
    }
    const first = await this.deps.review.search(filter, { sort, limit: 2 });
    const row = first.rows.find((r) => r.id !== p.after);
    return { item: row ? itemSummary(row) : null, wrapped: !!cur, cursor: first.next ? encodeCursor(first.next) : null };
  }
}
