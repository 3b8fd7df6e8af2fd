-- Reporter trust and corroboration (issue 13, item 1): each feedback event carries its reporter's
-- trust level, the reporter's source (for independence and per-reporter caps) and the key of its
-- folded (query, wrong answer), indexed per collection for corroboration look-ups.
ALTER TABLE "FeedbackEvent" ADD COLUMN "trust" TEXT NOT NULL DEFAULT 'anonymous';
ALTER TABLE "FeedbackEvent" ADD COLUMN "reporterSource" TEXT;
ALTER TABLE "FeedbackEvent" ADD COLUMN "reportKey" TEXT;
-- Events reported before trust existed: by key unless they came through a feedback token.
UPDATE "FeedbackEvent" SET "trust" = 'identified' WHERE "answerId" IS NULL;
CREATE INDEX "FeedbackEvent_collection_reportKey_idx" ON "FeedbackEvent" ("collection", "reportKey");
