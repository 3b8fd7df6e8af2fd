import type { Repositories } from '@forensics/core';
import type { PrismaClient } from '../generated/client';
import { PrismaAnswerRepository } from './prisma-answer.repository';
import { PrismaAuditLogRepository } from './prisma-audit-log.repository';
import { PrismaDatabaseHealth } from './prisma-database-health';
import { PrismaDocumentRepository } from './prisma-document.repository';
import { PrismaEnhancementRepository } from './prisma-enhancement.repository';
import { PrismaFeedbackEventRepository } from './prisma-feedback-event.repository';
import { PrismaQuarantineRepository } from './prisma-quarantine.repository';
import { PrismaVerdictRepository } from './prisma-verdict.repository';
import { PrismaApiKeyRepository } from './prisma-api-key.repository';
import { PrismaSessionRepository } from './prisma-session.repository';
import { PrismaUserRepository } from './prisma-user.repository';
import { BatchingAuditLogRepository, BatchingFeedbackEventRepository, withBatchedReads } from './batching-repositories';

export {
  PrismaAnswerRepository, PrismaAuditLogRepository, PrismaDatabaseHealth, PrismaDocumentRepository, PrismaEnhancementRepository,
  PrismaFeedbackEventRepository, PrismaQuarantineRepository, PrismaVerdictRepository,
  PrismaApiKeyRepository, PrismaSessionRepository, PrismaUserRepository,
  BatchingAuditLogRepository, BatchingFeedbackEventRepository,
};

/** Every repository over one Prisma client (Postgres); the intake's reads and writes batched (batching-repositories.ts). */
export function createPrismaRepositories(db: PrismaClient): Repositories {
  return withBatchedReads(db, {
    documents: new PrismaDocumentRepository(db),
    // Intake writes (events, audit entries, RECEIVED → QUEUED) as group commits: see batching-repositories.ts.
    feedback: new BatchingFeedbackEventRepository(db, new PrismaFeedbackEventRepository(db)),
    verdicts: new PrismaVerdictRepository(db),
    quarantines: new PrismaQuarantineRepository(db),
    answers: new PrismaAnswerRepository(db),
    enhancements: new PrismaEnhancementRepository(db),
    audit: new BatchingAuditLogRepository(db, new PrismaAuditLogRepository(db)),
    health: new PrismaDatabaseHealth(db),
    users: new PrismaUserRepository(db),
    apiKeys: new PrismaApiKeyRepository(db),
    sessions: new PrismaSessionRepository(db),
  });
}
