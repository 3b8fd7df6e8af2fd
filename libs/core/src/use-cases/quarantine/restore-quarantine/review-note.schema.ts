import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';

/** Longest reviewer note (characters) on restore / approve. */
export const REVIEW_NOTE_LIMIT = 2000;

const NOTE = `note must be a string of at most ${REVIEW_NOTE_LIMIT} characters`;

/**
 * Body of POST /v1/quarantine/:id/restore and /approve: `{note?}`. The body itself may be absent:
 * the caller parses `body ?? {}`.
 */
export const ReviewNoteRequest = strictBody({
  note: z.string({ error: NOTE }).max(REVIEW_NOTE_LIMIT, { error: NOTE }).optional().describe('why (kept in the audit log)'),
});
export type ReviewNoteRequestBody = z.infer<typeof ReviewNoteRequest>;
