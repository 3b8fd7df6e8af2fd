import { ValidationError } from '../../../../domain/errors';
import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewAuditQuery } from '../review-items/review.schema';

export interface ReviewAuditDeps { review: ReviewRepository }

/** The audit log, newest first, filterable by actor, action, entity id, a text search and dates; keyset pages by entry id. */
export class ListAuditLogUseCase {
  static readonly inject: InjectMap<ReviewAuditDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewAuditDeps) {}

  async execute(query: unknown) {
    const p = parseRequest(ReviewAuditQuery, query);
    if (p.cursor !== undefined && !/^\d{1,19}$/.test(p.cursor)) throw new ValidationError('cursor is not a cursor of this list (pass nextCursor unchanged)');
    const limit = p.limit ?? 100;
    const rows = await this.deps.review.listAudit({ actor: p.actor, action: p.action, entityId: p.entityId, q: p.q, reason: p.reason, from: p.from, to: p.to, limit: limit + 1, beforeId: p.cursor });
    const page = rows.slice(0, limit);
    return {
      entries: page.map((r) => ({ id: r.id, at: r.at.toISOString(), actor: r.actor, action: r.action, entityType: r.entityType, entityId: r.entityId, details: r.details })),
      nextCursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }
}
