import { z } from 'zod';
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../../ports/domain-events.port';
import { strictBody } from '../../domain/request-schema';

export const WEBHOOK_URL_MAX_LENGTH = 2000;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
export const WEBHOOK_PAGE_MAX = 100;

const eventList = z.array(z.enum(DOMAIN_EVENT_TYPES as [DomainEventType, ...DomainEventType[]], { error: `events must contain only ${DOMAIN_EVENT_TYPES.join(', ')}` }), { error: 'events must be an array of event types' })
  .min(1, { error: 'events must name at least one event type' })
  .max(DOMAIN_EVENT_TYPES.length * 2, { error: 'events lists too many entries' })
  .transform((a) => [...new Set(a)])
  .describe(`event types to receive: ${DOMAIN_EVENT_TYPES.join(', ')}`);
const url = z.string({ error: 'url must be a string' }).min(1, { error: 'url must not be empty' }).max(WEBHOOK_URL_MAX_LENGTH, { error: `url is longer than ${WEBHOOK_URL_MAX_LENGTH} characters` })
  .describe('https URL the events are POSTed to (http and private/loopback addresses only with WEBHOOK_ALLOW_PRIVATE=true)');
const description = z.string({ error: 'description must be a string' }).max(WEBHOOK_DESCRIPTION_MAX_LENGTH, { error: `description is longer than ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters` });

/** POST /v1/webhooks */
export const CreateWebhookRequest = strictBody({
  url,
  events: eventList,
  description: description.optional().describe('free text for admins'),
});
export type CreateWebhookRequestBody = z.infer<typeof CreateWebhookRequest>;

/** PATCH /v1/webhooks/:id (at least one field). `active: true` re-enables a disabled endpoint and resets its failure count. */
export const UpdateWebhookRequest = strictBody({
  url: url.optional(),
  events: eventList.optional(),
  description: description.nullable().optional().describe('free text for admins (null clears it)'),
  active: z.boolean({ error: 'active must be true or false' }).optional().describe('false pauses deliveries; true re-enables (resets consecutive failures)'),
}).refine((b) => Object.values(b).some((v) => v !== undefined), { error: 'body must set at least one of url, events, description, active' });
export type UpdateWebhookRequestBody = z.infer<typeof UpdateWebhookRequest>;

/** GET /v1/webhooks/:id/deliveries */
export const ListWebhookDeliveriesQuery = z.object({
  limit: z.preprocess((v) => (v === '' || v === undefined ? undefined : v), z.coerce.number({ error: 'limit must be an integer' }).int({ error: 'limit must be an integer' }).min(1, { error: 'limit must be at least 1' }).max(WEBHOOK_PAGE_MAX, { error: `limit must be at most ${WEBHOOK_PAGE_MAX}` }).default(20)).describe(`page size (1-${WEBHOOK_PAGE_MAX}, default 20)`),
  cursor: z.preprocess((v) => (v === '' ? undefined : v), z.string({ error: 'cursor must be a string' }).max(200, { error: 'cursor is too long' }).optional()).describe('nextCursor of the previous page'),
});
