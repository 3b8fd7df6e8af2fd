import { z } from 'zod';
import { collectionName, strictBody, textField, topK } from '../../../domain/request-schema';

/** Limits of the answer path (the query, the stored answer, the served ids, k); re-exported by answer-query.use-case. */
export const ANSWER_LIMITS = { query: 4000, answer: 20_000, servedIds: 100, kMax: 50 } as const;

/**
 * Body of POST /v1/rag/answer: `{collection?, query, k?}`. `collection` and `k` stay undefined when
 * absent: their defaults come from the configuration, the caller fills them (validateAnswerQuery).
 */
export const AnswerQueryRequest = strictBody({
  collection: collectionName().optional(),
  query: textField('query', { max: ANSWER_LIMITS.query, nonEmpty: 'markers' }).meta({ example: 'who wrote Moby-Dick' }),
  k: topK(ANSWER_LIMITS.kMax).optional(),
});
export type AnswerQueryRequestBody = z.infer<typeof AnswerQueryRequest>;
