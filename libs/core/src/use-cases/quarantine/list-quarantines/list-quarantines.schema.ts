import { z } from 'zod';
import type { QuarantineState } from '../../../ports/repositories';

/** Every quarantine state, for the `state` filter (the type check below keeps it complete). */
export const QUARANTINE_STATES = ['QUARANTINED', 'NEEDS_REVIEW', 'RESTORED', 'PURGED'] as const satisfies readonly QuarantineState[];
const complete: Exclude<QuarantineState, (typeof QUARANTINE_STATES)[number]> extends never ? true : never = true;
void complete;

/** An empty query value (`?state=`) means "no filter". */
const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);

/**
 * Query of GET /v1/quarantine: `state?`, `collection?` (filters; absent = all). Not strict: other
 * query parameters (cache busters …) are ignored, as they always were.
 */
export const ListQuarantinesQuery = z.object({
  state: z.preprocess(blankIsAbsent, z.enum(QUARANTINE_STATES, { error: `state must be one of ${QUARANTINE_STATES.join(', ')}` }).optional()).describe('filter by state'),
  collection: z.preprocess(blankIsAbsent, z.string({ error: 'collection must be a string' }).optional()).describe('filter by collection'),
});
export type ListQuarantinesQueryParams = z.infer<typeof ListQuarantinesQuery>;
