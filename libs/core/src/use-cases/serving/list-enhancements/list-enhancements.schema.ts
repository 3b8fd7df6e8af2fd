import { z } from 'zod';
import type { EnhancementState } from '../../../ports/repositories';

/** Every enhancement state, for the `state` filter (the type check below keeps it complete). */
export const ENHANCEMENT_STATES = ['PROPOSED', 'ACTIVE', 'DELETED'] as const satisfies readonly EnhancementState[];
const complete: Exclude<EnhancementState, (typeof ENHANCEMENT_STATES)[number]> extends never ? true : never = true;
void complete;

/** An empty query value (`?state=`) means "no filter". */
const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);

/**
 * Query of GET /v1/enhancements: `collection?`, `feedbackId?`, `state?` (filters; absent = all).
 * Not strict: other query parameters are ignored, as they always were.
 */
export const ListEnhancementsQuery = z.object({
  collection: z.preprocess(blankIsAbsent, z.string({ error: 'collection must be a string' }).optional()).describe('filter by collection'),
  feedbackId: z.preprocess(blankIsAbsent, z.string({ error: 'feedbackId must be a string' }).optional()).describe('filter by feedback event'),
  state: z.preprocess(blankIsAbsent, z.enum(ENHANCEMENT_STATES, { error: `state must be ${ENHANCEMENT_STATES.join(' or ')}` }).optional()).describe('filter by state'),
});
export type ListEnhancementsQueryParams = z.infer<typeof ListEnhancementsQuery>;
