import { z } from 'zod';
import { AUDIT_KINDS, type AuditKind } from '../../ports/audits.port';
import { strictBody } from '../../domain/request-schema';

export const AUDIT_PAGE_MAX = 200;
const kind = z.enum(AUDIT_KINDS as unknown as [AuditKind, ...AuditKind[]], { error: `kind must be one of ${AUDIT_KINDS.join(', ')}` });
const collection = z.string({ error: 'collection must be a string' }).min(1, { error: 'collection must not be empty' }).max(200, { error: 'collection is longer than 200 characters' });
const params = z.record(z.string(), z.union([z.string().max(500), z.number(), z.boolean()]), { error: 'params must be an object of strings, numbers and booleans' })
  .refine((p) => Object.keys(p).length <= 32, { error: 'params has more than 32 entries' });

/** POST /v1/audits */
export const StartAuditRequest = strictBody({
  kind: kind.describe(`audit kind: ${AUDIT_KINDS.join(', ')}`),
  collection: collection.optional().describe('collection to audit (default: the default collection)'),
  params: params.optional().describe('kind-specific parameters (see README "Audits")'),
});
export type StartAuditRequestBody = z.infer<typeof StartAuditRequest>;

/** PUT /v1/audits/schedules/:kind */
export const ScheduleAuditRequest = strictBody({
  cron: z.string({ error: 'cron must be a string' }).min(9, { error: 'cron must be a cron pattern such as "0 * * * *"' }).max(100)
    .describe('cron pattern (5 or 6 fields, UTC), e.g. "0 * * * *" = hourly'),
  collection: collection.optional().describe('collection to audit (default: the default collection)'),
  params: params.optional(),
});
export type ScheduleAuditRequestBody = z.infer<typeof ScheduleAuditRequest>;

export const AuditKindParam = kind;
