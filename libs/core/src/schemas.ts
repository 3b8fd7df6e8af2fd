/**
 * The request schemas (one per request: type, runtime validation, OpenAPI) and their parser.
 * Re-exported by the core barrel. The limits moved into the schema files (ANSWER_LIMITS,
 * FEEDBACK_LIMITS, INGEST_TEXT_LIMIT) stay exported by their use-case modules, not from here.
 */
export { MAX_LISTED_PROBLEMS, SERVED_ID_MAX_LENGTH, assertStorable, parseRequest, requestProblems, unstorableProblems, unstorableReason } from './domain/request-schema';
export { AnswerQueryRequest, type AnswerQueryRequestBody } from './use-cases/serving/answer-query/answer-query.schema';
export { CorrectAnswerRequest, type CorrectAnswerRequestBody } from './use-cases/serving/enhance-answer/correct-answer.schema';
export { INGEST_MAX_RECORDS, IngestDocumentsRequest, IngestRecordSchema, type IngestDocumentsRequestBody, type IngestRecordInput } from './use-cases/collections/ingest-corpus/ingest-corpus.schema';
export { VetCollectionRequest, type VetCollectionRequestBody } from './use-cases/collections/vet-collection/vet-collection.schema';
export { ENHANCEMENT_STATES, ListEnhancementsQuery, type ListEnhancementsQueryParams } from './use-cases/serving/list-enhancements/list-enhancements.schema';
export { QUARANTINE_STATES, ListQuarantinesQuery, type ListQuarantinesQueryParams } from './use-cases/quarantine/list-quarantines/list-quarantines.schema';
export { AnswerFeedbackRequest, type AnswerFeedbackRequestBody } from './use-cases/serving/log-answer/answer-feedback.schema';
export { LogAnswerRequest, type LogAnswerRequestBody } from './use-cases/serving/log-answer/log-answer.schema';
export { REVIEW_NOTE_LIMIT, ReviewNoteRequest, type ReviewNoteRequestBody } from './use-cases/quarantine/restore-quarantine/review-note.schema';
export { SubmitFeedbackRequest, type SubmitFeedbackRequestBody } from './use-cases/feedback/submit-feedback/submit-feedback.schema';
export { SERVING_LOOKUP_MAX, ServingStatusRequest, ServingStatusResponse, type ServingStatusEntry, type ServingStatusRequestBody, type ServingStatusResponseBody } from './use-cases/serving/check-serving/check-serving.schema';
