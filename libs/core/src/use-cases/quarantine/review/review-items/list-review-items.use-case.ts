import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewCounts, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewListQuery, toReviewFilter } from './review.schema';
import { decodeCursor, encodeCursor, itemSummary, type ItemSummary } from './review-view';

export interface ListReviewItemsDeps { review: ReviewRepository }

export interface ReviewItemsPage { items: ItemSummary[]; nextCursor: string | null; counts: ReviewCounts; total: number }

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
    const [page, counts] = await Promise.all([
      this.deps.review.search(filter, { sort, limit: p.limit ?? 50, after }),
      this.deps.review.countByState(filter),
    ]);
    const total = (filter.states ?? []).reduce((n, s) => n + counts[s], 0);
    return { items: page.rows.map(itemSummary), nextCursor: page.next ? encodeCursor(page.next) : null, counts, total };
  }
}
