-- Review console (issue 11): denormalised review columns, claims, remembered decisions, idempotent bulk requests.
-- Hand-written: only this change's tables, columns and indexes.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE "QuarantineRecord"
  ADD COLUMN "suspicion" DOUBLE PRECISION,
  ADD COLUMN "judgeKind" TEXT,
  ADD COLUMN "decision" TEXT,
  ADD COLUMN "decisionRequestId" TEXT,
  ADD COLUMN "claimedBy" TEXT,
  ADD COLUMN "claimedUntil" TIMESTAMP(3);

-- Backfill from the stored evidence: combined suspicion when the evidence was available, the judge kind,
-- and the decision of records a reviewer already resolved.
UPDATE "QuarantineRecord" SET
  "suspicion" = CASE
    WHEN jsonb_typeof("evidence"->'retrieverEvidence'->'combined'->'suspicion') = 'number'
     AND ("evidence"->'retrieverEvidence'->'combined'->>'available') = 'true'
    THEN ("evidence"->'retrieverEvidence'->'combined'->>'suspicion')::double precision END,
  "judgeKind" = "evidence"->'judge'->>'kind',
  "decision" = CASE
    WHEN "resolvedBy" IS NULL THEN NULL
    WHEN "state" = 'RESTORED' THEN 'restore'
    WHEN "state" = 'QUARANTINED' THEN 'approve'
    WHEN "state" = 'PURGED' THEN 'purge' END;

-- Keyset pagination of the review queue (no OFFSET): one index per sort, with and without the state prefix.
CREATE INDEX "QuarantineRecord_review_risk_idx" ON "QuarantineRecord" ((COALESCE("suspicion", -1)) DESC, "createdAt" DESC, "id" DESC);
CREATE INDEX "QuarantineRecord_review_state_risk_idx" ON "QuarantineRecord" ("state", (COALESCE("suspicion", -1)) DESC, "createdAt" DESC, "id" DESC);
CREATE INDEX "QuarantineRecord_review_age_idx" ON "QuarantineRecord" ("createdAt", "id");
CREATE INDEX "QuarantineRecord_review_state_age_idx" ON "QuarantineRecord" ("state", "createdAt", "id");
CREATE INDEX "QuarantineRecord_collection_createdAt_idx" ON "QuarantineRecord" ("collection", "createdAt");
-- Case-insensitive text search (ILIKE '%…%') in the texts.
CREATE INDEX "Document_text_trgm_idx" ON "Document" USING gin ("text" gin_trgm_ops);
-- Audit log browsing: newest first, by actor / action.
CREATE INDEX "AuditLog_at_idx" ON "AuditLog" ("at");
CREATE INDEX "AuditLog_actor_idx" ON "AuditLog" ("actor");
CREATE INDEX "AuditLog_entityId_idx" ON "AuditLog" ("entityId");
-- Events page: newest first, keyset.
CREATE INDEX "FeedbackEvent_createdAt_id_idx" ON "FeedbackEvent" ("createdAt", "id");

CREATE TABLE "ReviewMemory" (
    "id" UUID NOT NULL,
    "collection" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "queryKey" TEXT NOT NULL,
    "wrongAnswerKey" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "wrongAnswer" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "note" TEXT,
    "recordId" UUID NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ReviewMemory_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "ReviewMemory_collection_textHash_idx" ON "ReviewMemory"("collection", "textHash");

CREATE TABLE "ReviewBulkRequest" (
    "requestId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "ids" UUID[],
    "result" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    CONSTRAINT "ReviewBulkRequest_pkey" PRIMARY KEY ("requestId")
);
