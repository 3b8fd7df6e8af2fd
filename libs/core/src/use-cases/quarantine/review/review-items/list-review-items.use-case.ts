import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewCounts, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewListQuery, toReviewFilter } from './review.schema';
import { decodeCursor, encodeCursor, itemSummary, type ItemSummary } from './review-view';

export interface ListReviewItemsDeps { review: ReviewRepository }

/**
 * The console's tabs: per state for the filter without its state and without `decided` (each state tab lists every item
 * of its state), and `open` = the undecided NEEDS_REVIEW and QUARANTINED items (an approved or redacted item is
 * QUARANTINED but decided: not open).
 */
export type ReviewTabCounts = ReviewCounts & { open: number };
export interface ReviewItemsPage { items: ItemSummary[]; nextCursor: string | null; counts: ReviewCounts; total: number; tabs: ReviewTabCounts }

/**
 * The review queue: items matching the filters, in `sort` order, one keyset page at a time (no
 * OFFSET: a deep page costs what the first does), with the counts per state for the filters
 * (without the state filter) and the total of the full filter.
 */
export class ListReviewItemsUseCase {
  static readonly inject: InjectMap<ListReviewItemsDeps> = { review: REVIEW };
  constructor(private readonly deps: ListReviewItemsDeps) {}

  async execute(query: unknown): Promise<ReviewItemsPage> {
    const p = parseRequest(ReviewListQuery, query);
    const sort = p.sort ?? 'risk';
    const filter = toReviewFilter(p);
    const after = p.cursor ? decodeCursor(p.cursor, sort) : null;
    const [page, counts, every, undecided] = await Promise.all([
      this.deps.review.search(filter, { sort, limit: p.limit ?? 50, after }),
      this.deps.review.countByState(filter),
      filter.decided === undefined ? null : this.deps.review.countByState({ ...filter, decided: undefined }),
      this.deps.review.countByState({ ...filter, decided: false }),
    ]);
    const total = (filter.states ?? []).reduce((n, s) => n + counts[s], 0);
    const tabs = { ...(every ?? counts), open: undecided.NEEDS_REVIEW + undecided.QUARANTINED };
    return { items: page.rows.map(itemSummary), nextCursor: page.next ? encodeCursor(page.next) : null, counts, total, tabs };
  }
}
