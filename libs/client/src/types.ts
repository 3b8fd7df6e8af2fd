/**
 * Request and response types of the routes the client calls, taken from the generated OpenAPI
 * types (./generated/openapi.ts, regenerated and checked by test/client-types.test.ts): nothing
 * here is written by hand but the names.
 */
import type { paths } from './generated/openapi.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type RequestOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
type ResponseOf<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: infer R } ? (S extends keyof R ? Json<R[S]> : never) : never;

export type IngestRequest = RequestOf<'/v1/collections/{name}/documents', 'post'>;
export type IngestDocument = IngestRequest['documents'][number];
export type IngestResult = ResponseOf<'/v1/collections/{name}/documents', 'post', 200>;
export type ServingStatusRequest = RequestOf<'/v1/collections/{name}/serving-status', 'post'>;
export type ServingStatus = ResponseOf<'/v1/collections/{name}/serving-status', 'post', 200>;
export type ServingStatusEntry = ServingStatus['texts'][number];
export type VettedBaseline = ResponseOf<'/v1/collections/{name}/vetted-before', 'put', 200>;
export type LogAnswerRequest = RequestOf<'/v1/answers', 'post'>;
export type LoggedAnswer = ResponseOf<'/v1/answers', 'post', 201>;
export type RagAnswerRequest = RequestOf<'/v1/rag/answer', 'post'>;
export type RagAnswer = ResponseOf<'/v1/rag/answer', 'post', 200>;
/** Both bodies of POST /v1/feedback (API key: the full report; feedback token: what the logged answer lacks). */
export type FeedbackRequestBody = RequestOf<'/v1/feedback', 'post'>;
export type FeedbackAccepted = ResponseOf<'/v1/feedback', 'post', 202>;
export type FeedbackEvent = ResponseOf<'/v1/feedback/{id}', 'get', 200>;
export type FeedbackStatus = FeedbackEvent['status'];
export type CorrectAnswerRequest = RequestOf<'/v1/feedback/{id}/correct-answer', 'post'>;
export type CorrectAnswerResult = ResponseOf<'/v1/feedback/{id}/correct-answer', 'post', 200>;
export type QuarantineList = ResponseOf<'/v1/quarantine', 'get', 200>;
export type QuarantineRecord = QuarantineList['items'][number];
export type QuarantineState = QuarantineRecord['state'];
export type QuarantineFilter = NonNullable<paths['/v1/quarantine']['get']['parameters']['query']>;
export type QuarantineDecision = ResponseOf<'/v1/quarantine/{id}/approve', 'post', 200>;
/** POST /v1/feedback with an API key (a back end forwarding its user's report). */
export type KeyFeedbackRequest = Extract<FeedbackRequestBody, { query: string }>;
/** POST /v1/feedback with a feedback token (what the logged answer does not already say). */
export type TokenFeedbackRequest = Omit<Exclude<FeedbackRequestBody, { query: string }>, 'feedbackToken'>;
