import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';
import { stripReservedMarkers } from '../../../domain/text-identity';
import { CORRECT_ANSWER_LIMIT } from './enhance-answer.use-case';

/**
 * Body of POST /v1/feedback/:id/correct-answer: `{correctAnswer}` (at most CORRECT_ANSWER_LIMIT
 * characters, not blank once `[LATEST]` markers are removed). The use case checks the cleaned text
 * again with the same words.
 */
export const CorrectAnswerRequest = strictBody({
  correctAnswer: z.string({ error: 'correctAnswer must be a string' })
    .min(1, { error: 'correctAnswer must not be empty', abort: true })
    .refine((c) => stripReservedMarkers(c).trim() !== '', { error: 'correctAnswer must not be empty', abort: true })
    .max(CORRECT_ANSWER_LIMIT, { error: `correctAnswer is longer than ${CORRECT_ANSWER_LIMIT} characters` })
    .meta({ example: 'Herman Melville' }),
});
export type CorrectAnswerRequestBody = z.infer<typeof CorrectAnswerRequest>;
