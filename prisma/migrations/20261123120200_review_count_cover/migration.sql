-- Review console (issue 11): counts per state under the queue's usual filters (collection, state, judge,
-- suspicion range, dates, decided) read from the index alone (index-only scan). Supersedes the plain
-- (collection, state) index of 20261123120100_review_counts (same key columns).
CREATE INDEX "QuarantineRecord_review_counts_idx" ON "QuarantineRecord" ("collection", "state") INCLUDE ("judgeKind", "suspicion", "createdAt", "decision");
DROP INDEX IF EXISTS "QuarantineRecord_collection_state_idx";
