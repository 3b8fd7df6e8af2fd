-- CreateEnum
CREATE TYPE "Verification" AS ENUM ('POISONED', 'NON_POISONED', 'INCONCLUSIVE');

-- CreateEnum
CREATE TYPE "EnhancementState" AS ENUM ('ACTIVE', 'DELETED');

-- AlterEnum
ALTER TYPE "QuarantineState" ADD VALUE 'NEEDS_REVIEW' BEFORE 'RESTORED';

-- AlterTable
ALTER TABLE "JudgeVerdict" ADD COLUMN "evidence" JSONB;

-- AlterTable
ALTER TABLE "FeedbackEvent" ADD COLUMN "answerId" UUID,
ADD COLUMN "verification" "Verification",
ADD COLUMN "verificationDetails" JSONB;

-- CreateTable
CREATE TABLE "Answer" (
    "id" UUID NOT NULL,
    "collection" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "answer" TEXT NOT NULL,
    "servedIds" TEXT[],
    "servedScores" DOUBLE PRECISION[],
    "source" TEXT NOT NULL,
    "generatorKind" TEXT,
    "generatorModel" TEXT,
    "promptVersion" TEXT,
    "embedder" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Answer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Enhancement" (
    "id" UUID NOT NULL,
    "collection" TEXT NOT NULL,
    "feedbackId" UUID NOT NULL,
    "query" TEXT NOT NULL,
    "correctAnswer" TEXT NOT NULL,
    "benignText" TEXT NOT NULL,
    "proxyId" UUID NOT NULL,
    "generatorKind" TEXT NOT NULL,
    "generatorModel" TEXT NOT NULL,
    "promptVersion" TEXT NOT NULL,
    "state" "EnhancementState" NOT NULL DEFAULT 'ACTIVE',
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMP(3),
    "deletedBy" TEXT,

    CONSTRAINT "Enhancement_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "FeedbackEvent_answerId_key" ON "FeedbackEvent"("answerId");

-- CreateIndex
CREATE INDEX "Answer_collection_createdAt_idx" ON "Answer"("collection", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Enhancement_proxyId_key" ON "Enhancement"("proxyId");

-- CreateIndex
CREATE INDEX "Enhancement_collection_state_idx" ON "Enhancement"("collection", "state");

-- CreateIndex
CREATE INDEX "Enhancement_feedbackId_idx" ON "Enhancement"("feedbackId");

-- AddForeignKey
ALTER TABLE "FeedbackEvent" ADD CONSTRAINT "FeedbackEvent_answerId_fkey" FOREIGN KEY ("answerId") REFERENCES "Answer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Enhancement" ADD CONSTRAINT "Enhancement_feedbackId_fkey" FOREIGN KEY ("feedbackId") REFERENCES "FeedbackEvent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
