-- Issue 35, item 4: where the claim is. Each verdict stores the character spans of the judged text that
-- carry the claim ([{start, end}], offsets into the text as judged; null = none given or found).
ALTER TABLE "JudgeVerdict" ADD COLUMN "spans" JSONB;
