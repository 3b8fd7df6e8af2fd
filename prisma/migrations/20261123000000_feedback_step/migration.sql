-- The feedback pipeline's last completed step (trace → verify → enhance), persisted on the row so a
-- retried job resumes after it. NULL = the traceback has not completed.
CREATE TYPE "PipelineStep" AS ENUM ('traced', 'verified', 'enhanced');
ALTER TABLE "FeedbackEvent" ADD COLUMN "step" "PipelineStep";

-- Sweeps look for events by status and age.
CREATE INDEX "FeedbackEvent_status_updatedAt_idx" ON "FeedbackEvent"("status", "updatedAt");
