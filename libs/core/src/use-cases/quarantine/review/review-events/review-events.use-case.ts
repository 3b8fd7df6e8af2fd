import { echoInput, NotFoundError } from '../../../../domain/errors';
import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewEventRow, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewEventsQuery } from '../review-items/review.schema';
import { decodeKey, encodeKey, itemSummary } from '../review-items/review-view';

export interface ReviewEventsDeps { review: ReviewRepository }

const eventView = (e: ReviewEventRow) => ({ ...e, createdAt: e.createdAt.toISOString() });

/** Feedback events for the console, newest first: status, step, verification, verdict counts, items per state, enhancements. */
export class ListReviewEventsUseCase {
  static readonly inject: InjectMap<ReviewEventsDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewEventsDeps) {}

  async execute(query: unknown) {
    const p = parseRequest(ReviewEventsQuery, query);
    const limit = p.limit ?? 50;
    const after = p.cursor ? (([createdAt, id]) => ({ createdAt, id }))(decodeKey(p.cursor, 2)) : undefined;
    if (after && (Number.isNaN(Date.parse(after.createdAt)) || !/^[0-9a-f-]{36}$/i.test(after.id))) decodeKey('', 2);
    const rows = await this.deps.review.listEvents({ status: p.status, collection: p.collection, limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { events: page.map(eventView), nextCursor: rows.length > limit && last ? encodeKey([last.createdAt.toISOString(), last.id]) : null };
  }
}

/** One feedback event with all its review items. */
export class GetReviewEventUseCase {
  static readonly inject: InjectMap<ReviewEventsDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewEventsDeps) {}

  async execute(cmd: { id: string }) {
    const e = await this.deps.review.getEvent(cmd.id);
    if (!e) throw new NotFoundError(`feedback event ${echoInput(cmd.id)} does not exist`);
    const items = await this.deps.review.search({ feedbackId: e.id }, { sort: 'risk', limit: 500 });
    return { event: eventView(e), items: items.rows.map(itemSummary) };
  }
}
