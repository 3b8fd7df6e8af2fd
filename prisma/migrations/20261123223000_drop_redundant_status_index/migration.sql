-- "FeedbackEvent_status_idx" is a prefix of "FeedbackEvent_status_updatedAt_idx", which answers every
-- lookup by status it answered. Each event is written twice on intake (insert, then RECEIVED → QUEUED),
-- so every index on the table is maintained twice per feedback request; this one did nothing else.
DROP INDEX IF EXISTS "FeedbackEvent_status_idx";
