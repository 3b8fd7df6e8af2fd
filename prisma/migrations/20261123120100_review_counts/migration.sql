-- Review console (issue 11): counts per state for a collection read from an index (index-only scan)
-- instead of the table. A separate folder because 20261123120000_review may already be applied.
CREATE INDEX "QuarantineRecord_collection_state_idx" ON "QuarantineRecord" ("collection", "state");
