/** What scripts/client-types.ts generates, and from which routes (apart, so a jest test can read it without loading openapi-typescript). */
export const CLIENT_TYPES_FILE = 'libs/client/src/generated/openapi.ts';

/** Every path the SDK (libs/client) calls. */
export const SDK_PATHS = [
  '/v1/collections/{name}/documents',
  '/v1/collections/{name}/serving-status',
  '/v1/collections/{name}/vetted-before',
  '/v1/answers',
  '/v1/rag/answer',
  '/v1/feedback',
  '/v1/feedback/{id}',
  '/v1/feedback/{id}/correct-answer',
  '/v1/quarantine',
  '/v1/quarantine/{id}/approve',
  '/v1/quarantine/{id}/restore',
] as const;
