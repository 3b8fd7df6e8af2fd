import { z } from 'zod';
import { ValidationError } from '../errors';
import { MAX_LISTED_PROBLEMS, parseRequest } from '../request-schema';
import {
  AnswerFeedbackRequest, AnswerQueryRequest, CorrectAnswerRequest, INGEST_MAX_RECORDS, IngestDocumentsRequest, IngestRecordSchema, ListEnhancementsQuery,
  ListQuarantinesQuery, LogAnswerRequest, QUARANTINE_STATES, REVIEW_NOTE_LIMIT, ReviewNoteRequest, SubmitFeedbackRequest,
  type AnswerFeedbackRequestBody, type AnswerQueryRequestBody, type CorrectAnswerRequestBody, type IngestDocumentsRequestBody, type ListEnhancementsQueryParams,
  type ListQuarantinesQueryParams, type LogAnswerRequestBody, type ReviewNoteRequestBody, type SubmitFeedbackRequestBody,
} from '../../schemas';
import { ANSWER_LIMITS, validateAnswerQuery } from '../../use-cases/serving/answer-query/answer-query.use-case';
import { CORRECT_ANSWER_LIMIT } from '../../use-cases/serving/enhance-answer/enhance-answer.use-case';
import { INGEST_TEXT_LIMIT, parseIngestRecord } from '../../use-cases/collections/ingest-corpus/ingest-corpus.use-case';
import { validateAnswerFeedback } from '../../use-cases/serving/log-answer/answer-feedback.use-case';
import { validateLogAnswer } from '../../use-cases/serving/log-answer/log-answer.use-case';
import { FEEDBACK_LIMITS, validateFeedback } from '../../use-cases/feedback/submit-feedback/submit-feedback.use-case';

/** The ValidationError a parse throws (fails the test when it does not throw one). */
function failure(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}
const problemsOf = (schema: z.ZodType, input: unknown) => failure(() => parseRequest(schema, input)).details;

/** The JSON schema the API documents (apps/api/src/http/zod-request.ts adds only a clean-up). */
const openApi = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }) as {
  type?: string; required?: string[]; additionalProperties?: unknown; properties: Record<string, Record<string, unknown> & { items?: Record<string, unknown> }>;
};

const ID = '6f1c1f0e-3c55-4c59-9d0a-2b8f4f3b2a10';

describe('parseRequest', () => {
  it('returns the typed output, and throws ONE ValidationError listing every problem (message = problems joined by "; ")', () => {
    const ok: AnswerQueryRequestBody = parseRequest(AnswerQueryRequest, { query: 'q', k: 3 });
    expect(ok).toEqual({ query: 'q', k: 3 });
    const e = failure(() => parseRequest(AnswerQueryRequest, { collection: 'bad name', query: 7, k: 0 }));
    expect(e.details).toEqual(['collection must match [A-Za-z0-9_-]{1,64}', 'query must be a string', 'k must be an integer in [1, 50]']);
    expect(e.message).toBe(e.details.join('; '));
  });

  it('lists one "unknown field" per unknown key, after the field problems', () => {
    expect(problemsOf(AnswerQueryRequest, { zz: 1, query: '', aa: 2 })).toEqual(['query must not be empty', "unknown field 'zz'", "unknown field 'aa'"]);
  });

  it('a body that is not a JSON object is one problem', () => {
    for (const body of [null, undefined, [1], 'x', 5]) expect(problemsOf(SubmitFeedbackRequest, body)).toEqual(['body must be a JSON object']);
  });

  it('one problem per field (the first), never the same message twice', () => {
    expect(problemsOf(AnswerQueryRequest, { query: [] })).toEqual(['query must be a string']);
    expect(problemsOf(SubmitFeedbackRequest, { query: 'q', wrongAnswer: 'a', servedIds: ['', 3, 'x'.repeat(201)] })).toEqual(['servedIds must be an array of non-empty strings']);
  });

  it(`summarises past ${MAX_LISTED_PROBLEMS} problems`, () => {
    const p = problemsOf(IngestDocumentsRequest, { documents: Array.from({ length: 150 }, () => ({ text: '' })) });
    expect(p).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(p[0]).toBe('documents[0]: text must be a non-empty string');
    expect(p[MAX_LISTED_PROBLEMS - 1]).toBe('… and 51 more problems');
  });
});

describe('SubmitFeedbackRequest (POST /v1/feedback with an API key)', () => {
  it('valid input → typed output; the default collection is the caller\'s, k stays undefined (the use case applies the configured k)', () => {
    const b: SubmitFeedbackRequestBody = parseRequest(SubmitFeedbackRequest, { query: 'who wrote hamlet', wrongAnswer: 'Marlowe', servedIds: [ID], k: 7, correctAnswer: null });
    expect(b).toEqual({ query: 'who wrote hamlet', wrongAnswer: 'Marlowe', servedIds: [ID], k: 7, correctAnswer: null });
    expect(validateFeedback({ query: 'q', wrongAnswer: 'a' }, 'default')).toEqual({ collection: 'default', query: 'q', wrongAnswer: 'a', correctAnswer: null, servedIds: undefined, reporter: null, k: undefined });
    expect(validateFeedback({ collection: 'c_1', query: 'q', wrongAnswer: 'a', reporter: 'me' }, 'default')).toMatchObject({ collection: 'c_1', reporter: 'me' });
  });

  it('lists every problem in the API\'s words', () => {
    const e = failure(() => validateFeedback({ collection: 'c', query: '' }, 'default'));
    expect(e.message).toBe('query must not be empty; wrongAnswer is required');
    expect(failure(() => validateFeedback({ query: 'q', wrongAnswer: 'a', wrongAnser: 'x' }, 'default')).message).toBe("unknown field 'wrongAnser'");
    expect(problemsOf(SubmitFeedbackRequest, {
      query: null, wrongAnswer: 5, correctAnswer: 'x'.repeat(FEEDBACK_LIMITS.correctAnswer + 1), reporter: 'x'.repeat(FEEDBACK_LIMITS.reporter + 1),
      collection: 'bad name', servedIds: 'x', k: 0.5, zz: 1,
    })).toEqual([
      'query is required', 'wrongAnswer must be a string', 'correctAnswer is longer than 4000 characters', 'reporter is longer than 200 characters',
      'collection must match [A-Za-z0-9_-]{1,64}', 'servedIds must be an array of non-empty strings', 'k must be an integer in [1, 50]', "unknown field 'zz'",
    ]);
    expect(problemsOf(SubmitFeedbackRequest, { query: ' ', wrongAnswer: 'a', servedIds: Array.from({ length: 101 }, (_, i) => `id${i}`), k: 51 }))
      .toEqual(['query must not be empty', 'servedIds has more than 100 entries', 'k must be an integer in [1, 50]']);
  });

  it('OpenAPI: required fields and limits', () => {
    const js = openApi(SubmitFeedbackRequest);
    expect(js.required).toEqual(['query', 'wrongAnswer']);
    expect(js.additionalProperties).toBe(false);
    expect(js.properties.query).toMatchObject({ type: 'string', minLength: 1, maxLength: FEEDBACK_LIMITS.query });
    expect(js.properties.wrongAnswer).toMatchObject({ maxLength: FEEDBACK_LIMITS.wrongAnswer });
    expect(js.properties.correctAnswer).toMatchObject({ maxLength: FEEDBACK_LIMITS.correctAnswer, nullable: true });
    expect(js.properties.reporter).toMatchObject({ maxLength: FEEDBACK_LIMITS.reporter });
    expect(js.properties.servedIds).toMatchObject({ type: 'array', maxItems: FEEDBACK_LIMITS.servedIds, items: { type: 'string', minLength: 1, maxLength: 200 } });
    expect(js.properties.k).toMatchObject({ type: 'integer', minimum: 1, maximum: ANSWER_LIMITS.kMax });
    expect(js.properties.collection).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' });
  });
});

describe('AnswerFeedbackRequest (POST /v1/feedback with a feedback token)', () => {
  it('valid input → typed output; an absent body is {}; token and answer id are accepted and ignored', () => {
    const b: AnswerFeedbackRequestBody = parseRequest(AnswerFeedbackRequest, { correctAnswer: 'Melville', wrongAnswer: null, feedbackToken: 't', answerId: ID });
    expect(b).toEqual({ correctAnswer: 'Melville', wrongAnswer: null, feedbackToken: 't', answerId: ID });
    expect(validateAnswerFeedback({ correctAnswer: '[LATEST]Herman Melville', feedbackToken: 'x', answerId: ID })).toEqual({ correctAnswer: '[LATEST]Herman Melville' });
    expect(validateAnswerFeedback(undefined)).toEqual({});
    expect(validateAnswerFeedback(null)).toEqual({});
  });

  it('fields of the logged answer are refused by name; unknown fields too; every problem listed', () => {
    expect(failure(() => validateAnswerFeedback({ query: 'other', servedIds: [] })).message)
      .toBe("'query' comes from the logged answer and cannot be set with a feedback token; 'servedIds' comes from the logged answer and cannot be set with a feedback token");
    expect(problemsOf(AnswerFeedbackRequest, { correctAnswer: 3, reporter: 'x'.repeat(201), k: 5, collection: 'c', extra: 1 })).toEqual([
      'correctAnswer must be a string', 'reporter is longer than 200 characters',
      "'collection' comes from the logged answer and cannot be set with a feedback token", "'k' comes from the logged answer and cannot be set with a feedback token",
      "unknown field 'extra'",
    ]);
    expect(problemsOf(AnswerFeedbackRequest, [])).toEqual(['body must be a JSON object']);
  });

  it('OpenAPI: no required field; the logged-answer fields are not documented as properties; limits', () => {
    const js = openApi(AnswerFeedbackRequest);
    expect(js.required ?? []).toEqual([]);
    expect(js.additionalProperties).toBe(false);
    expect(js.properties.correctAnswer).toMatchObject({ type: 'string', maxLength: FEEDBACK_LIMITS.correctAnswer });
    expect(js.properties.reporter).toMatchObject({ maxLength: FEEDBACK_LIMITS.reporter });
    expect(js.properties.query).toEqual({ not: {} }); // z.never(): the API's ZodBody drops these
  });
});

describe('LogAnswerRequest (POST /v1/answers)', () => {
  it('valid input → typed output; the caller fills the default collection', () => {
    const b: LogAnswerRequestBody = parseRequest(LogAnswerRequest, { query: 'q', answer: 'a', servedIds: [ID, 'p2'], servedScores: [0.9, 0.5] });
    expect(b).toEqual({ query: 'q', answer: 'a', servedIds: [ID, 'p2'], servedScores: [0.9, 0.5] });
    expect(validateLogAnswer({ query: 'q', answer: 'a', servedIds: [ID] }, 'default')).toEqual({ collection: 'default', query: 'q', answer: 'a', servedIds: [ID], servedScores: undefined });
  });

  it('lists every problem, the cross-field score check included', () => {
    expect(problemsOf(LogAnswerRequest, { collection: '', query: ' [LATEST] ', servedScores: [1, 2], x: 1 })).toEqual([
      'collection must match [A-Za-z0-9_-]{1,64}', 'query must not be empty', 'answer is required', 'servedIds is required (the ids of the texts the RAG served)', "unknown field 'x'",
    ]);
    expect(problemsOf(LogAnswerRequest, { query: 'q', answer: 'x'.repeat(ANSWER_LIMITS.answer + 1), servedIds: ['a', 'a'], servedScores: [1] }))
      .toEqual(['answer is longer than 20000 characters', 'servedIds must not repeat an id', 'servedScores must have one score per served id']);
    expect(problemsOf(LogAnswerRequest, { query: 'q', answer: 'a', servedIds: ['a'], servedScores: [1, 'x'] })).toEqual(['servedScores must be an array of finite numbers']);
    expect(problemsOf(LogAnswerRequest, { query: 3, answer: 'a', servedIds: 'a' })).toEqual(['query must be a string', 'servedIds must be an array of non-empty strings']);
  });

  it('OpenAPI: required fields and limits', () => {
    const js = openApi(LogAnswerRequest);
    expect(js.required).toEqual(['query', 'answer', 'servedIds']);
    expect(js.properties.query).toMatchObject({ maxLength: ANSWER_LIMITS.query });
    expect(js.properties.answer).toMatchObject({ maxLength: ANSWER_LIMITS.answer });
    expect(js.properties.servedIds).toMatchObject({ maxItems: ANSWER_LIMITS.servedIds });
    expect(js.properties.servedScores).toMatchObject({ type: 'array', items: { type: 'number' } });
  });
});

describe('AnswerQueryRequest (POST /v1/rag/answer)', () => {
  it('valid input → typed output; the caller fills the default collection and k', () => {
    expect(parseRequest(AnswerQueryRequest, { collection: 'c', query: 'q' })).toEqual({ collection: 'c', query: 'q' });
    expect(validateAnswerQuery({ query: 'q' }, { collection: 'C', k: 5 })).toEqual({ collection: 'C', query: 'q', k: 5 });
    expect(validateAnswerQuery({ query: 'q', k: 9, collection: 'x' }, { collection: 'C', k: 5 })).toEqual({ collection: 'x', query: 'q', k: 9 });
  });

  it('lists every problem', () => {
    expect(failure(() => validateAnswerQuery({ query: '', k: 99, colection: 'x' }, { collection: 'C', k: 5 })).message)
      .toBe("query must not be empty; k must be an integer in [1, 50]; unknown field 'colection'");
    expect(problemsOf(AnswerQueryRequest, {})).toEqual(['query is required']);
    expect(problemsOf(AnswerQueryRequest, { query: 'x'.repeat(4001), k: '3' })).toEqual(['query is longer than 4000 characters', 'k must be an integer in [1, 50]']);
  });

  it('OpenAPI: required fields and limits', () => {
    const js = openApi(AnswerQueryRequest);
    expect(js.required).toEqual(['query']);
    expect(js.properties.query).toMatchObject({ maxLength: ANSWER_LIMITS.query });
    expect(js.properties.k).toMatchObject({ type: 'integer', minimum: 1, maximum: ANSWER_LIMITS.kMax });
  });
});

describe('IngestDocumentsRequest / IngestRecordSchema (POST /v1/collections/:name/documents, CLI JSONL)', () => {
  it('valid input → typed output: ids become strings, null metadata/id dropped, extra record keys ignored', () => {
    const b: IngestDocumentsRequestBody = parseRequest(IngestDocumentsRequest, { documents: [{ text: 'a', id: 7, metadata: { src: 'x' } }, { text: 'b', id: null, title: 'kept out' }] });
    expect(b.documents).toEqual([{ id: '7', text: 'a', metadata: { src: 'x' } }, { id: undefined, text: 'b', metadata: undefined }]);
    expect(parseIngestRecord({ id: 'e1', text: 'hello' }, 'f.jsonl:1')).toEqual({ id: 'e1', text: 'hello', metadata: undefined });
  });

  it('names every bad record by its index', () => {
    expect(problemsOf(IngestDocumentsRequest, { documents: [{ text: 'ok' }, 5, { text: 'ok' }, { text: ' ', id: true }, { text: 'x', metadata: [] }] })).toEqual([
      'documents[1]: must be an object {id?, text, metadata?}', 'documents[3]: id must be a string or number', 'documents[3]: text must be a non-empty string',
      'documents[4]: metadata must be an object',
    ]);
    expect(problemsOf(IngestDocumentsRequest, { documents: [{ text: 'x'.repeat(INGEST_TEXT_LIMIT + 1) }] })).toEqual(['documents[0]: text is longer than 100000 characters']);
  });

  it('the body: documents required, 1..INGEST_MAX_RECORDS, nothing else', () => {
    const shape = 'body must be {"documents": [{"id"?, "text", "metadata"?}, …]}';
    expect(problemsOf(IngestDocumentsRequest, null)).toEqual([shape]);
    expect(problemsOf(IngestDocumentsRequest, {})).toEqual([shape]);
    expect(problemsOf(IngestDocumentsRequest, { documents: [] })).toEqual(['documents must not be empty']);
    expect(problemsOf(IngestDocumentsRequest, { documents: Array.from({ length: INGEST_MAX_RECORDS + 1 }, () => ({ text: 'x' })) }))
      .toEqual(['at most 5000 documents per request; split the upload']);
    expect(problemsOf(IngestDocumentsRequest, { documents: [{ text: 'x' }], collection: 'c' })).toEqual(["unknown field 'collection'"]);
  });

  it('parseIngestRecord prefixes every problem with the place it names', () => {
    const e = failure(() => parseIngestRecord({ text: '', metadata: 'x' }, 'corpus.jsonl:3'));
    expect(e.details).toEqual(['corpus.jsonl:3: text must be a non-empty string', 'corpus.jsonl:3: metadata must be an object']);
    expect(e.message).toBe(e.details.join('; '));
    expect(failure(() => parseIngestRecord([], 'corpus.jsonl:4')).message).toBe('corpus.jsonl:4: must be an object {id?, text, metadata?}');
  });

  it('OpenAPI: required fields and limits', () => {
    const js = openApi(IngestDocumentsRequest);
    expect(js.required).toEqual(['documents']);
    expect(js.properties.documents).toMatchObject({ type: 'array', minItems: 1, maxItems: INGEST_MAX_RECORDS, items: { type: 'object', required: ['text'] } });
    expect(js.properties.documents.items!.properties).toMatchObject({ text: { type: 'string', minLength: 1, maxLength: INGEST_TEXT_LIMIT }, metadata: { type: 'object' } });
    expect(openApi(IngestRecordSchema).required).toEqual(['text']);
  });
});

describe('CorrectAnswerRequest (POST /v1/feedback/:id/correct-answer)', () => {
  it('valid input → typed output', () => {
    const b: CorrectAnswerRequestBody = parseRequest(CorrectAnswerRequest, { correctAnswer: 'Herman Melville' });
    expect(b).toEqual({ correctAnswer: 'Herman Melville' });
  });

  it('lists every problem', () => {
    expect(problemsOf(CorrectAnswerRequest, {})).toEqual(['correctAnswer must be a string']);
    expect(problemsOf(CorrectAnswerRequest, { correctAnswer: ' [LATEST] ' })).toEqual(['correctAnswer must not be empty']);
    expect(problemsOf(CorrectAnswerRequest, { correctAnswer: 'x'.repeat(CORRECT_ANSWER_LIMIT + 1), note: 'n' })).toEqual(['correctAnswer is longer than 500 characters', "unknown field 'note'"]);
  });

  it('OpenAPI: required field and limit', () => {
    const js = openApi(CorrectAnswerRequest);
    expect(js.required).toEqual(['correctAnswer']);
    expect(js.properties.correctAnswer).toMatchObject({ type: 'string', maxLength: CORRECT_ANSWER_LIMIT });
  });
});

describe('ReviewNoteRequest (POST /v1/quarantine/:id/restore | approve)', () => {
  it('valid input → typed output (the note is optional)', () => {
    const b: ReviewNoteRequestBody = parseRequest(ReviewNoteRequest, { note: 'false positive' });
    expect(b).toEqual({ note: 'false positive' });
    expect(parseRequest(ReviewNoteRequest, {})).toEqual({});
  });

  it('lists every problem', () => {
    expect(problemsOf(ReviewNoteRequest, { note: 3, by: 'me' })).toEqual(['note must be a string of at most 2000 characters', "unknown field 'by'"]);
    expect(problemsOf(ReviewNoteRequest, { note: 'x'.repeat(REVIEW_NOTE_LIMIT + 1) })).toEqual(['note must be a string of at most 2000 characters']);
  });

  it('OpenAPI: nothing required; limit', () => {
    const js = openApi(ReviewNoteRequest);
    expect(js.required ?? []).toEqual([]);
    expect(js.properties.note).toMatchObject({ type: 'string', maxLength: REVIEW_NOTE_LIMIT });
  });
});

describe('list queries (GET /v1/quarantine, GET /v1/enhancements)', () => {
  it('valid input → typed output; an empty value means no filter; other parameters are ignored', () => {
    const q: ListQuarantinesQueryParams = parseRequest(ListQuarantinesQuery, { state: 'NEEDS_REVIEW', collection: 'c', _: '123' });
    expect(q).toEqual({ state: 'NEEDS_REVIEW', collection: 'c' });
    expect(parseRequest(ListQuarantinesQuery, { state: '', collection: '' })).toEqual({});
    const e: ListEnhancementsQueryParams = parseRequest(ListEnhancementsQuery, { state: 'ACTIVE', feedbackId: ID });
    expect(e).toEqual({ state: 'ACTIVE', feedbackId: ID });
  });

  it('lists every problem', () => {
    expect(problemsOf(ListQuarantinesQuery, { state: 'OPEN', collection: ['a', 'b'] })).toEqual(['state must be one of QUARANTINED, NEEDS_REVIEW, RESTORED, PURGED', 'collection must be a string']);
    expect(problemsOf(ListEnhancementsQuery, { state: 'GONE', feedbackId: ['a', 'b'] })).toEqual(['feedbackId must be a string', 'state must be PROPOSED or ACTIVE or DELETED']);
  });

  it('OpenAPI: optional parameters, states as enums', () => {
    const q = openApi(ListQuarantinesQuery);
    expect(q.required ?? []).toEqual([]);
    expect(q.properties.state).toMatchObject({ type: 'string', enum: [...QUARANTINE_STATES] });
    const e = openApi(ListEnhancementsQuery);
    expect(e.required ?? []).toEqual([]);
    expect(e.properties.state).toMatchObject({ enum: ['PROPOSED', 'ACTIVE', 'DELETED'] });
    expect(Object.keys(e.properties)).toEqual(['collection', 'feedbackId', 'state']);
  });
});
