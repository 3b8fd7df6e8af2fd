import type { DatabaseHealth, Repositories } from '../ports/repositories';
import { InMemoryAnswerRepository } from './in-memory-answer.repository';
import { InMemoryAuditLogRepository } from './in-memory-audit-log.repository';
import { InMemoryDocumentRepository } from './in-memory-document.repository';
import { InMemoryEnhancementRepository } from './in-memory-enhancement.repository';
import { InMemoryFeedbackEventRepository } from './in-memory-feedback-event.repository';
import { InMemoryQuarantineRepository } from './in-memory-quarantine.repository';
import { emptyState, type InMemoryState } from './in-memory-state';
import { InMemoryVerdictRepository } from './in-memory-verdict.repository';
import { InMemoryApiKeyRepository, InMemorySessionRepository, InMemoryUserRepository } from './in-memory-identity.repository';

export type { InMemoryState };

/**
 * In-memory repositories with the semantics the Prisma adapters give Postgres, proven by the same
 * contract suite (test/repositories.contract.test.ts): documents unique per id and per
 * (collection, textHash); feedback idempotent by key and unique per answer; compare-and-set status
 * transitions; verdicts upserted on (feedbackId, documentId) and a cross-event cache of labelled,
 * non-cached verdicts; one active quarantine per document, with the document status and an audit
 * entry written together; foreign keys and uuid columns checked; JSON columns stored as JSON.
 * Ids are map keys, so an id that is not a UUID is simply not found, as in Postgres. Rows are
 * deep-copied in and out: callers cannot mutate stored state. `now` is the clock of every timestamp.
 */
export function createInMemoryRepositories(now: () => Date = () => new Date()): Repositories & { state: InMemoryState } {
  const state = emptyState();
  const health: DatabaseHealth = { ping: async () => {} };
  return {
    state,
    documents: new InMemoryDocumentRepository(state, now),
    feedback: new InMemoryFeedbackEventRepository(state, now),
    verdicts: new InMemoryVerdictRepository(state, now),
    quarantines: new InMemoryQuarantineRepository(state, now),
    answers: new InMemoryAnswerRepository(state, now),
    enhancements: new InMemoryEnhancementRepository(state, now),
    audit: new InMemoryAuditLogRepository(state, now),
    health,
    users: new InMemoryUserRepository(state, now),
    apiKeys: new InMemoryApiKeyRepository(state, now),
    sessions: new InMemorySessionRepository(state, now),
  };
}
