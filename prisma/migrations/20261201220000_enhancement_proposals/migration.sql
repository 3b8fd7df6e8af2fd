-- Enhancements under the same trust as removals (issues 54, 56): a correct answer below the
-- configured trust is a proposal a reviewer approves; PROPOSED rows are never served.
ALTER TYPE "EnhancementState" ADD VALUE 'PROPOSED';
ALTER TABLE "Enhancement" ADD COLUMN "reason" TEXT, ADD COLUMN "approvedAt" TIMESTAMP(3), ADD COLUMN "approvedBy" TEXT;
