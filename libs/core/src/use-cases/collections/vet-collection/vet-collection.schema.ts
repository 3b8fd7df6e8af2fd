import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';

/**
 * PUT /v1/collections/:name/vetted-before: `{ "before": ISO-8601 instant }` sets the collection's vetted baseline,
 * `{ "before": null }` clears it, `{}` sets it to now (every text registered so far is vouched for).
 */
export const VetCollectionRequest = strictBody({
  before: z.union([z.iso.datetime({ offset: true, error: 'before must be an ISO-8601 instant (e.g. 2026-11-28T07:00:00Z) or null' }), z.null()]).optional()
    .describe('texts registered before this instant are vouched for; null clears the baseline; omitted = now'),
}, 'body must be {"before"?: ISO-8601 instant | null}');
export type VetCollectionRequestBody = z.input<typeof VetCollectionRequest>;
