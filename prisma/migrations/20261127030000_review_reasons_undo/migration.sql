-- Review console, issue 35: reason labels stored on the decision (and with the remembered decision),
-- filterable (GIN: "reasons" @> ARRAY[key]); decisions of a day counted from the audit log by action and time
-- (progress on the queue and item pages), and a reviewer's last decision found for undo.
ALTER TABLE "QuarantineRecord" ADD COLUMN "reasons" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "ReviewMemory" ADD COLUMN "reasons" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
CREATE INDEX "QuarantineRecord_reasons_idx" ON "QuarantineRecord" USING GIN ("reasons");
CREATE INDEX "AuditLog_action_at_idx" ON "AuditLog" ("action", "at");
