import { z } from 'zod';
import { strictBody, textField } from '../../../domain/request-schema';
import { FEEDBACK_LIMITS } from '../../feedback/submit-feedback/submit-feedback.schema';

/** A field that comes from the logged answer: naming it with a feedback token is a client error. */
const fromAnswer = (name: string) => z.never({ error: `'${name}' comes from the logged answer and cannot be set with a feedback token` }).optional();

/**
 * Body of POST /v1/feedback with a feedback token (browsers): `{correctAnswer?, wrongAnswer?,
 * reporter?}`. `feedbackToken` (the token itself) and `answerId` (checked against the token by the
 * controller) are accepted and ignored; collection, query, servedIds and k come from the logged
 * answer and are refused. An absent body is `{}` (validateAnswerFeedback / the caller passes `body ?? {}`).
 */
export const AnswerFeedbackRequest = strictBody({
  correctAnswer: textField('correctAnswer', { max: FEEDBACK_LIMITS.correctAnswer }).nullish(),
  wrongAnswer: textField('wrongAnswer', { max: FEEDBACK_LIMITS.wrongAnswer }).nullish().describe("defaults to the logged answer's text"),
  reporter: textField('reporter', { max: FEEDBACK_LIMITS.reporter }).nullish(),
  feedbackToken: z.string({ error: 'feedbackToken must be a string' }).optional().describe('instead of an API key: the token returned with a logged answer'),
  answerId: z.string({ error: 'answerId must be a string' }).optional().describe('must be the answer the token was issued for'),
  collection: fromAnswer('collection'),
  query: fromAnswer('query'),
  servedIds: fromAnswer('servedIds'),
  k: fromAnswer('k'),
});
export type AnswerFeedbackRequestBody = z.infer<typeof AnswerFeedbackRequest>;
