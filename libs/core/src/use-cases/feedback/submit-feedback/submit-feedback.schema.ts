import { z } from 'zod';
import { collectionName, servedIdList, strictBody, textField, topK } from '../../../domain/request-schema';
import { ANSWER_LIMITS } from '../../serving/answer-query/answer-query.schema';

/** Limits of a feedback payload (characters / entries); re-exported by submit-feedback.use-case. */
export const FEEDBACK_LIMITS = { query: 4000, wrongAnswer: 4000, correctAnswer: 4000, reporter: 200, idempotencyKey: 200, servedIds: 100 } as const;

/**
 * Body of POST /v1/feedback with an API key: `{collection?, query, wrongAnswer, correctAnswer?,
 * servedIds?, reporter?, k?}`. `collection` and `k` stay undefined when absent: their defaults come
 * from the configuration (the caller fills the collection, the use case the k). k has the answer
 * path's range.
 */
// Field order = the order problems are listed in (as the hand validator listed them).
export const SubmitFeedbackRequest = strictBody({
  query: textField('query', { max: FEEDBACK_LIMITS.query, nonEmpty: 'trim', nullIsMissing: true }).meta({ example: 'who wrote hamlet' }),
  wrongAnswer: textField('wrongAnswer', { max: FEEDBACK_LIMITS.wrongAnswer, nonEmpty: 'trim', nullIsMissing: true }).meta({ example: 'Christopher Marlowe' }),
  correctAnswer: textField('correctAnswer', { max: FEEDBACK_LIMITS.correctAnswer }).nullish(),
  reporter: textField('reporter', { max: FEEDBACK_LIMITS.reporter }).nullish(),
  collection: collectionName().optional(),
  servedIds: servedIdList(FEEDBACK_LIMITS.servedIds).optional().describe('ids of the texts the RAG served for this answer (judged first)'),
  k: topK(ANSWER_LIMITS.kMax).optional(),
});
export type SubmitFeedbackRequestBody = z.infer<typeof SubmitFeedbackRequest>;
