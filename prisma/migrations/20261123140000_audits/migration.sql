-- Database audits (issue 12): runs as records with persisted progress and resume cursor, and their findings.
CREATE TABLE "AuditRun" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "collection" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'QUEUED',
    "trigger" TEXT NOT NULL,
    "startedBy" TEXT NOT NULL,
    "progress" JSONB NOT NULL,
    "cursor" JSONB,
    "counts" JSONB NOT NULL,
    "findingsCount" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    CONSTRAINT "AuditRun_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "AuditRun_createdAt_idx" ON "AuditRun"("createdAt");
CREATE INDEX "AuditRun_kind_createdAt_idx" ON "AuditRun"("kind", "createdAt");
CREATE INDEX "AuditRun_collection_createdAt_idx" ON "AuditRun"("collection", "createdAt");

CREATE TABLE "AuditFinding" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "documentIds" TEXT[],
    "quarantineIds" TEXT[],
    "score" DOUBLE PRECISION,
    "detail" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "AuditFinding_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "AuditFinding_runId_createdAt_idx" ON "AuditFinding"("runId", "createdAt");
ALTER TABLE "AuditFinding" ADD CONSTRAINT "AuditFinding_runId_fkey" FOREIGN KEY ("runId") REFERENCES "AuditRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
