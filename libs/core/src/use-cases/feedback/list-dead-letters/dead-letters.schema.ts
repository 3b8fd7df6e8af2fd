import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';
import { COLLECTION_NAME } from '../../../domain/text-identity';

export const DEAD_LETTER_PAGE_MAX = 200;
/** Most feedback ids (or jobs) one re-drive request may name. */
export const REDRIVE_MAX_IDS = 500;
/** Most events one `{all: true}` re-drive moves; the answer says when more remain (call again). */
export const REDRIVE_ALL_MAX = 1000;

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);
const collection = z.string({ error: 'collection must be a string' }).regex(COLLECTION_NAME, { error: 'collection must be 1-64 characters of A-Z a-z 0-9 _ -' });
const cursor = (name: string) => z.preprocess(blankToUndefined, z.string({ error: `${name} must be a string` }).max(500, { error: `${name} is too long` }).optional());

/** GET /v1/dead-letters */
export const ListDeadLettersQuery = z.object({
  limit: z.preprocess((v) => (v === '' || v === undefined ? undefined : v), z.coerce.number({ error: 'limit must be an integer' }).int({ error: 'limit must be an integer' })
    .min(1, { error: 'limit must be at least 1' }).max(DEAD_LETTER_PAGE_MAX, { error: `limit must be at most ${DEAD_LETTER_PAGE_MAX}` }).default(50))
    .describe(`page size of each list (1-${DEAD_LETTER_PAGE_MAX}, default 50)`),
  include: z.preprocess(blankToUndefined, z.enum(['all', 'events', 'jobs'], { error: 'include must be one of all, events, jobs' }).default('all'))
    .describe('which lists to return: failed feedback events, failed queue jobs, or both (default all)'),
  collection: z.preprocess(blankToUndefined, collection.optional()).describe('only events of this collection'),
  queue: z.preprocess(blankToUndefined, z.string({ error: 'queue must be a string' }).max(100, { error: 'queue is too long' }).optional()).describe('only failed jobs of this queue'),
  eventsCursor: cursor('eventsCursor').describe('nextEventsCursor of the previous page'),
  jobsCursor: cursor('jobsCursor').describe('nextJobsCursor of the previous page'),
});
export type ListDeadLettersQueryInput = z.infer<typeof ListDeadLettersQuery>;

const uuid = z.string({ error: 'feedbackIds must contain strings' }).regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, { error: 'feedbackIds must contain feedback event ids (UUIDs)' });

/** POST /v1/dead-letters/redrive */
export const RedriveRequest = strictBody({
  feedbackIds: z.array(uuid, { error: 'feedbackIds must be an array of feedback event ids' }).min(1, { error: 'feedbackIds must not be empty' })
    .max(REDRIVE_MAX_IDS, { error: `feedbackIds may name at most ${REDRIVE_MAX_IDS} events` }).optional().describe('FAILED events to move back to RECEIVED with a fresh job'),
  all: z.literal(true, { error: 'all must be true when given' }).optional().describe(`every FAILED event (at most ${REDRIVE_ALL_MAX} per call; \`more: true\` says to call again)`),
  collection: collection.optional().describe('with all: only events of this collection'),
  jobs: z.array(strictBody({
    queue: z.string({ error: 'jobs[].queue must be a string' }).min(1, { error: 'jobs[].queue must not be empty' }).max(100, { error: 'jobs[].queue is too long' }),
    id: z.string({ error: 'jobs[].id must be a string' }).min(1, { error: 'jobs[].id must not be empty' }).max(300, { error: 'jobs[].id is too long' }),
  }, 'jobs[] entries must be objects {queue, id}'), { error: 'jobs must be an array of {queue, id}' }).min(1, { error: 'jobs must not be empty' })
    .max(REDRIVE_MAX_IDS, { error: `jobs may name at most ${REDRIVE_MAX_IDS} jobs` }).optional().describe('failed jobs of any queue to retry (BullMQ job.retry); a traceback job re-drives its event'),
})
  .refine((b) => b.feedbackIds !== undefined || b.all !== undefined || b.jobs !== undefined, { error: 'body must set feedbackIds, all or jobs' })
  .refine((b) => !(b.all && b.feedbackIds), { error: 'send either all or feedbackIds, not both' })
  .refine((b) => b.collection === undefined || b.all === true, { error: 'collection is only allowed with all: true' });
export type RedriveRequestBody = z.infer<typeof RedriveRequest>;
