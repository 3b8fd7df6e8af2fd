-- CreateEnum
CREATE TYPE "DocumentStatus" AS ENUM ('ACTIVE', 'QUARANTINED', 'PURGED');

-- CreateEnum
CREATE TYPE "FeedbackStatus" AS ENUM ('RECEIVED', 'QUEUED', 'TRACING', 'TRACED', 'BOUNDED', 'FAILED');

-- CreateEnum
CREATE TYPE "VerdictLabel" AS ENUM ('YES', 'NO', 'UNDETERMINED');

-- CreateEnum
CREATE TYPE "QuarantineState" AS ENUM ('QUARANTINED', 'RESTORED', 'PURGED');

-- CreateTable
CREATE TABLE "Document" (
    "id" UUID NOT NULL,
    "collection" TEXT NOT NULL,
    "externalId" TEXT,
    "textHash" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "metadata" JSONB,
    "status" "DocumentStatus" NOT NULL DEFAULT 'ACTIVE',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Document_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Collection" (
    "name" TEXT NOT NULL,
    "embedder" TEXT NOT NULL,
    "dimension" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Collection_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "FeedbackEvent" (
    "id" UUID NOT NULL,
    "collection" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "wrongAnswer" TEXT NOT NULL,
    "correctAnswer" TEXT,
    "servedIds" TEXT[],
    "reporter" TEXT,
    "idempotencyKey" TEXT,
    "status" "FeedbackStatus" NOT NULL DEFAULT 'RECEIVED',
    "k" INTEGER NOT NULL DEFAULT 5,
    "trace" JSONB,
    "failureReason" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "tracedAt" TIMESTAMP(3),

    CONSTRAINT "FeedbackEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JudgeVerdict" (
    "id" UUID NOT NULL,
    "feedbackId" UUID NOT NULL,
    "documentId" UUID NOT NULL,
    "round" INTEGER NOT NULL,
    "label" "VerdictLabel" NOT NULL,
    "judgeKind" TEXT NOT NULL,
    "judgeModel" TEXT NOT NULL,
    "promptVersion" TEXT NOT NULL,
    "reply" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "latencyMs" INTEGER NOT NULL,
    "cacheKey" TEXT NOT NULL,
    "cached" BOOLEAN NOT NULL DEFAULT false,
    "signals" JSONB,
    "retrievalRank" INTEGER,
    "retrievalScore" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JudgeVerdict_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "QuarantineRecord" (
    "id" UUID NOT NULL,
    "documentId" UUID NOT NULL,
    "feedbackId" UUID,
    "collection" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "policy" TEXT NOT NULL DEFAULT 'judge-only',
    "state" "QuarantineState" NOT NULL DEFAULT 'QUARANTINED',
    "storeSynced" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedBy" TEXT,
    "resolvedAt" TIMESTAMP(3),
    "note" TEXT,

    CONSTRAINT "QuarantineRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "details" JSONB,

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Document_collection_externalId_idx" ON "Document"("collection", "externalId");

-- CreateIndex
CREATE INDEX "Document_collection_status_idx" ON "Document"("collection", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Document_collection_textHash_key" ON "Document"("collection", "textHash");

-- CreateIndex
CREATE UNIQUE INDEX "FeedbackEvent_idempotencyKey_key" ON "FeedbackEvent"("idempotencyKey");

-- CreateIndex
CREATE INDEX "FeedbackEvent_status_idx" ON "FeedbackEvent"("status");

-- CreateIndex
CREATE INDEX "FeedbackEvent_collection_createdAt_idx" ON "FeedbackEvent"("collection", "createdAt");

-- CreateIndex
CREATE INDEX "JudgeVerdict_cacheKey_idx" ON "JudgeVerdict"("cacheKey");

-- CreateIndex
CREATE UNIQUE INDEX "JudgeVerdict_feedbackId_documentId_key" ON "JudgeVerdict"("feedbackId", "documentId");

-- CreateIndex
CREATE INDEX "QuarantineRecord_state_idx" ON "QuarantineRecord"("state");

-- CreateIndex
CREATE INDEX "QuarantineRecord_feedbackId_idx" ON "QuarantineRecord"("feedbackId");

-- CreateIndex
CREATE INDEX "QuarantineRecord_documentId_idx" ON "QuarantineRecord"("documentId");

-- CreateIndex
CREATE INDEX "AuditLog_entityType_entityId_idx" ON "AuditLog"("entityType", "entityId");

-- AddForeignKey
ALTER TABLE "JudgeVerdict" ADD CONSTRAINT "JudgeVerdict_feedbackId_fkey" FOREIGN KEY ("feedbackId") REFERENCES "FeedbackEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgeVerdict" ADD CONSTRAINT "JudgeVerdict_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "Document"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuarantineRecord" ADD CONSTRAINT "QuarantineRecord_documentId_fkey" FOREIGN KEY ("documentId") REFERENCES "Document"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "QuarantineRecord" ADD CONSTRAINT "QuarantineRecord_feedbackId_fkey" FOREIGN KEY ("feedbackId") REFERENCES "FeedbackEvent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written (not expressible in schema.prisma): at most one active quarantine per text, so a
-- retried traceback can never quarantine the same text twice.
CREATE UNIQUE INDEX "QuarantineRecord_active_document_key" ON "QuarantineRecord"("documentId") WHERE "state" = 'QUARANTINED';

-- Hand-written: the audit log is append-only.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'AuditLog is append-only (% refused)', TG_OP;
END;
$$;
CREATE TRIGGER "AuditLog_append_only" BEFORE UPDATE OR DELETE ON "AuditLog"
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
