import { z } from 'zod';
import { collectionName, servedIdList, strictBody, textField } from '../../../domain/request-schema';
import { ANSWER_LIMITS } from '../answer-query/answer-query.schema';

const SCORES = 'servedScores must be an array of finite numbers';

/**
 * Body of POST /v1/answers (an external RAG's answer): `{collection?, query, answer, servedIds,
 * servedScores?}`. `collection` stays undefined when absent (the caller applies the configured
 * default). Whether the served ids exist in the collection is the use case's check, not the schema's.
 */
export const LogAnswerRequest = strictBody({
  collection: collectionName().optional(),
  query: textField('query', { max: ANSWER_LIMITS.query, nonEmpty: 'markers' }),
  answer: textField('answer', { max: ANSWER_LIMITS.answer, nonEmpty: 'markers' }),
  servedIds: servedIdList(ANSWER_LIMITS.servedIds, 'servedIds is required (the ids of the texts the RAG served)')
    .refine((ids) => new Set(ids).size === ids.length, { error: 'servedIds must not repeat an id' }),
  servedScores: z.array(z.number({ error: SCORES }), { error: SCORES }).optional().meta({ description: 'retrieval scores, one per served id' }),
}).superRefine((b, ctx) => {
  // Runs even when other fields failed (as the hand validator did): one score per served id.
  const { servedIds, servedScores } = b as { servedIds?: unknown; servedScores?: unknown };
  if (!Array.isArray(servedIds) || !Array.isArray(servedScores)) return;
  if (servedScores.some((x) => typeof x !== 'number' || !Number.isFinite(x))) return;
  if (servedScores.length !== servedIds.length) ctx.addIssue({ code: 'custom', path: ['servedScores'], message: 'servedScores must have one score per served id' });
}, { when: (p) => typeof p.value === 'object' && p.value !== null && !Array.isArray(p.value) });
export type LogAnswerRequestBody = z.infer<typeof LogAnswerRequest>;
