/** @forensics/client — typed client of the RAG forensics service (no server code; Node ≥ 20's fetch). */
export { ForensicsClient, FINAL_FEEDBACK_STATUSES, type ForensicsClientOptions, type RetryOptions, type WaitOptions } from './forensics-client.js';
export { ForensicsApiError, parseRetryAfter, type Problem } from './errors.js';
export { SERVING_STATUS_BATCH, SERVING_STATUS_INVALIDATING_EVENTS, ServingStatusCache, type ServingStatusCacheOptions } from './serving-status-cache.js';
export { readWebhookEvent, verifyWebhookSignature, type VerifyOptions, type WebhookEvent, type WebhookEventType } from './webhooks.js';
export type * from './types.js';
export type { paths as ForensicsPaths } from './generated/openapi.js';
