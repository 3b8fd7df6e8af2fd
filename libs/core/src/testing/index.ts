/** In-memory fakes of the ports, shared by unit tests of the use cases and by the evaluation harness. */
export { createInMemoryRepositories, type InMemoryState } from './in-memory-repositories';
export { InMemoryDocumentRepository } from './in-memory-document.repository';
export { InMemoryFeedbackEventRepository } from './in-memory-feedback-event.repository';
export { InMemoryVerdictRepository } from './in-memory-verdict.repository';
export { InMemoryQuarantineRepository } from './in-memory-quarantine.repository';
export { InMemoryAnswerRepository } from './in-memory-answer.repository';
export { InMemoryEnhancementRepository } from './in-memory-enhancement.repository';
export { InMemoryAuditLogRepository } from './in-memory-audit-log.repository';
export { InMemoryApiKeyRepository, InMemorySessionRepository, InMemoryUserRepository } from './in-memory-identity.repository';
export { ConstraintViolation } from './in-memory-state';
export { InMemoryVectorStore } from './in-memory-vector-store';
export { InMemoryTracebackQueue } from './in-memory-traceback-queue';
export { InMemoryWebhookRepository } from './in-memory-webhook.repository';
export { HashingEmbedder, ScriptedJudge } from './test-doubles';
export { TEST_IDENTITY_SETTINGS } from './compose';
export { TEST_WEBHOOK_SETTINGS } from './compose';
export { composeUseCases, TEST_CORE_SETTINGS, type ComposePorts, type ComposedUseCases } from './compose';
export { InMemoryReviewRepository } from './in-memory-review.repository';
