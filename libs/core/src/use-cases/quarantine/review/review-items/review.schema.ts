import { z } from 'zod';
import { strictBody } from '../../../../domain/request-schema';
import { REASON_KEY, REVIEW_STATES, type QuarantineState, type ReviewFilter } from '../../../../ports/repositories';
import { REVIEW_NOTE_LIMIT } from '../../restore-quarantine/review-note.schema';

/**
 * Request schemas of the review API (/v1/review, issue 11): the queue's list query (also the
 * `filter` of bulk requests and the export's filters), decisions, bulk requests, events and audit
 * log queries. Query values arrive as strings; an empty value means "no filter".
 */
const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);
const opt = <T extends z.ZodType>(t: T) => z.preprocess(blankIsAbsent, t.optional());

const STATES_MSG = `state must be a comma-separated list of ${REVIEW_STATES.join(', ')}`;
const stateList = z.union([z.string(), z.array(z.string())], { error: STATES_MSG })
  .transform((v, ctx) => {
    const parts = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
    const bad = parts.find((s) => !REVIEW_STATES.includes(s as QuarantineState));
    if (bad !== undefined || !parts.length) { ctx.addIssue({ code: 'custom', message: STATES_MSG }); return z.NEVER; }
    return [...new Set(parts)] as QuarantineState[];
  });

const isoDate = (name: string) => z.union([z.string(), z.date()], { error: `${name} must be an ISO date or date-time` }).transform((v, ctx) => {
  const d = v instanceof Date ? v : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? new Date(v) : new Date(NaN);
  if (Number.isNaN(d.getTime())) { ctx.addIssue({ code: 'custom', message: `${name} must be an ISO date or date-time (e.g. 2026-11-23 or 2026-11-23T10:00:00Z)` }); return z.NEVER; }
  return d;
});

const unit = (name: string) => z.union([z.string(), z.number()], { error: `${name} must be a number in [0, 1]` }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v);
  if (!(n >= 0 && n <= 1)) { ctx.addIssue({ code: 'custom', message: `${name} must be a number in [0, 1]` }); return z.NEVER; }
  return n;
});

const intIn = (name: string, min: number, max: number) => z.union([z.string(), z.number()], { error: `${name} must be an integer in [${min}, ${max}]` }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) { ctx.addIssue({ code: 'custom', message: `${name} must be an integer in [${min}, ${max}]` }); return z.NEVER; }
  return n;
});

const bool = (name: string) => z.union([z.enum(['true', 'false']), z.boolean()], { error: `${name} must be true or false` }).transform((v) => v === true || v === 'true');

const str = (name: string, max: number) => z.string({ error: `${name} must be a string of at most ${max} characters` }).max(max, { error: `${name} must be a string of at most ${max} characters` });

/** The queue's filters (list query, bulk `filter`, export). */
export const reviewFilterShape = {
  state: opt(stateList).describe('comma list of NEEDS_REVIEW, QUARANTINED, RESTORED, PURGED (default NEEDS_REVIEW,QUARANTINED)'),
  collection: opt(str('collection', 64)).describe('collection name'),
  feedbackId: opt(str('feedbackId', 64)).describe('items of one feedback event'),
  judge: opt(str('judge', 64)).describe('judge kind (offline, openai, …)'),
  from: opt(isoDate('from')).describe('created at or after (ISO date / date-time, UTC)'),
  to: opt(isoDate('to')).describe('created before (ISO date / date-time, UTC)'),
  minSuspicion: opt(unit('minSuspicion')).describe('combined evidence suspicion ≥ (0..1); items without evidence are excluded'),
  maxSuspicion: opt(unit('maxSuspicion')).describe('combined evidence suspicion ≤ (0..1); items without evidence are excluded'),
  q: opt(str('q', 200)).describe('case-insensitive substring of the text'),
  decided: opt(bool('decided')).describe('true: only items a reviewer decided; false: only undecided ones (absent: both)'),
  reason: opt(z.string({ error: 'reason must be a reason key' }).regex(REASON_KEY, { error: 'reason must be a reason key (a-z 0-9 -, at most 40)' })).describe('only items whose decision carries this reason label (key; GET /v1/review/reasons)'),
};

export const DEFAULT_REVIEW_STATES: readonly QuarantineState[] = ['NEEDS_REVIEW', 'QUARANTINED'];

export const ReviewListQuery = z.object({
  ...reviewFilterShape,
  sort: opt(z.enum(['risk', 'age', 'newest'], { error: 'sort must be one of risk, age, newest' })).describe('risk (suspicion desc, newest first; default), age (oldest first), newest'),
  limit: opt(intIn('limit', 1, 200)).describe('page size, 1..200 (default 50)'),
  cursor: opt(str('cursor', 512)).describe('nextCursor of the previous page (opaque)'),
});
export type ReviewListQueryParams = z.infer<typeof ReviewListQuery>;

const FilterBody = z.object(reviewFilterShape, { error: 'filter must be an object' }).strict();

/** The repository filter of parsed filter params (default states when none given). */
export function toReviewFilter(p: Partial<z.infer<typeof FilterBody>>): ReviewFilter {
  return {
    states: p.state ?? DEFAULT_REVIEW_STATES, collection: p.collection, feedbackId: p.feedbackId, judgeKind: p.judge, from: p.from, to: p.to,
    minSuspicion: p.minSuspicion, maxSuspicion: p.maxSuspicion, q: p.q, decided: p.decided, reason: p.reason,
  };
}

const NOTE = `note must be a string of at most ${REVIEW_NOTE_LIMIT} characters`;
const note = z.string({ error: NOTE }).max(REVIEW_NOTE_LIMIT, { error: NOTE }).optional().describe('why (kept in the audit log and with the remembered decision)');

const REASONS = 'reasons must be an array of at most 9 reason keys (GET /v1/review/reasons)';
const reasons = z.array(z.string({ error: REASONS }).regex(REASON_KEY, { error: REASONS }), { error: REASONS }).max(9, { error: REASONS })
  .optional().describe('reason labels (keys of GET /v1/review/reasons): stored on the decision, in the audit log, exports and /metrics');

export const ReviewDecisionRequest = strictBody({
  action: z.enum(['approve', 'restore', 'purge'], { error: 'action must be one of approve, restore, purge' }).describe('approve (confirmed poison, out of serving), restore (served again exactly as it was), purge (admin: removed for good)'),
  note,
  reasons,
  confirm: z.string({ error: 'confirm must be a string' }).max(200, { error: 'confirm must be a string of at most 200 characters' }).optional()
    .describe("purge only: the item's documentId, typed by the admin"),
});
export type ReviewDecisionBody = z.infer<typeof ReviewDecisionRequest>;

export const BULK_ID_LIMIT = 5000;
export const ReviewBulkRequest = strictBody({
  action: z.enum(['approve', 'restore'], { error: 'action must be one of approve, restore' }).describe('approve or restore (purge is one item at a time)'),
  ids: z.array(z.string({ error: 'ids must be item ids (UUIDs)' }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { error: 'ids must be item ids (UUIDs)' }), { error: 'ids must be an array of item ids' })
    .min(1, { error: 'ids must not be empty' }).max(BULK_ID_LIMIT, { error: `ids holds at most ${BULK_ID_LIMIT} ids; use a filter for more` }).optional(),
  filter: FilterBody.optional().describe('the list query\'s filters (state defaults to NEEDS_REVIEW,QUARANTINED)'),
  requestId: z.string({ error: 'requestId is required: a client-generated id (8..100 characters of A-Z a-z 0-9 _ -)' })
    .regex(/^[A-Za-z0-9_-]{8,100}$/, { error: 'requestId must be 8..100 characters of A-Z a-z 0-9 _ -' }).describe('client-generated; a retry with the same requestId changes nothing and returns the first result'),
  note,
  reasons,
}).superRefine((b, ctx) => {
  if ((b.ids === undefined) === (b.filter === undefined)) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'give either ids or filter (exactly one)' });
});
export type ReviewBulkBody = z.infer<typeof ReviewBulkRequest>;

export const ReviewEventsQuery = z.object({
  status: opt(z.enum(['RECEIVED', 'QUEUED', 'TRACING', 'TRACED', 'BOUNDED', 'FAILED'], { error: 'status must be one of RECEIVED, QUEUED, TRACING, TRACED, BOUNDED, FAILED' })).describe('feedback status'),
  collection: opt(str('collection', 64)).describe('collection name'),
  limit: opt(intIn('limit', 1, 200)).describe('page size, 1..200 (default 50)'),
  cursor: opt(str('cursor', 512)).describe('nextCursor of the previous page (opaque)'),
});

export const ReviewAuditQuery = z.object({
  actor: opt(str('actor', 200)).describe('exact actor (e.g. "alice key:3f2a…")'),
  action: opt(str('action', 100)).describe('exact action (e.g. quarantine.restored)'),
  entityId: opt(str('entityId', 100)).describe('a record / document / event id'),
  q: opt(str('q', 200)).describe('substring of the entity id, actor, action or details'),
  reason: opt(z.string({ error: 'reason must be a reason key' }).regex(REASON_KEY, { error: 'reason must be a reason key (a-z 0-9 -, at most 40)' })).describe('decisions carrying this reason label'),
  from: opt(isoDate('from')).describe('at or after'),
  to: opt(isoDate('to')).describe('before'),
  limit: opt(intIn('limit', 1, 500)).describe('page size, 1..500 (default 100)'),
  cursor: opt(str('cursor', 64)).describe('nextCursor of the previous page'),
});

export const ReviewExportQuery = z.object({
  ...reviewFilterShape,
  what: z.preprocess(blankIsAbsent, z.enum(['queue', 'decisions'], { error: 'what must be queue or decisions' }).default('queue')).describe('queue (items matching the filters) or decisions (items a reviewer decided, any state unless filtered)'),
  format: z.preprocess(blankIsAbsent, z.enum(['csv', 'jsonl'], { error: 'format must be csv or jsonl' }).default('csv')).describe('csv or jsonl'),
  sort: opt(z.enum(['risk', 'age', 'newest'], { error: 'sort must be one of risk, age, newest' })).describe('row order (default risk)'),
});

/** Progress of the queue and item pages: the list filters, and the start of the reviewer's day. */
export const ReviewProgressQuery = z.object({
  ...reviewFilterShape,
  since: opt(isoDate('since')).describe('start of "today" (the console sends the reviewer\'s local midnight; default: midnight UTC)'),
});

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** "Next item I can decide": the list filters and sort, after the item on screen. */
export const ReviewNextQuery = z.object({
  ...reviewFilterShape,
  sort: opt(z.enum(['risk', 'age', 'newest'], { error: 'sort must be one of risk, age, newest' })).describe('queue order (default risk)'),
  after: opt(z.string({ error: 'after must be an item id' }).regex(UUID_RE, { error: 'after must be an item id (UUID)' })).describe('the item on screen: the next one after it in the sort order (wraps to the start)'),
});

export const ReviewUndoRequest = strictBody({
  id: z.string({ error: 'id must be an item id' }).regex(UUID_RE, { error: 'id must be an item id (UUID)' }).optional().describe('undo your last decision on this item (default: your last decision on any item)'),
});

/** Most spans one redaction takes. */
export const REDACT_SPAN_LIMIT = 50;
const SPAN = 'spans must be an array of at most 50 {start, end} character offsets (integers, 0 ≤ start < end)';
const offset = z.number({ error: SPAN }).int({ error: SPAN }).min(0, { error: SPAN }).max(100_000_000, { error: SPAN });
export const ReviewRedactRequest = strictBody({
  spans: z.array(z.object({ start: offset, end: offset }, { error: SPAN }).strict(), { error: SPAN }).min(1, { error: SPAN }).max(REDACT_SPAN_LIMIT, { error: SPAN }).optional()
    .describe("[start, end) character offsets (UTF-16) of the item's text to redact; default: the claim spans stored with the judge's verdict"),
  note,
  reasons,
});
export type ReviewRedactBody = z.infer<typeof ReviewRedactRequest>;
