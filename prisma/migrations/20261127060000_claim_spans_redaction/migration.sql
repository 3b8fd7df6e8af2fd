-- Issue 35, item 4: where the claim is. Each verdict stores the character spans of the judged text that
-- carry the claim ([{start, end}], offsets into the text as judged; null = none given or found).
ALTER TABLE "JudgeVerdict" ADD COLUMN "spans" JSONB;
-- Redaction instead of quarantine: the record remembers the redacted version it serves in the original's
-- place ({documentId, spans, marker, removedChars, at, by, active}); the original text stays in its
-- Document row (QUARANTINED) until purged.
ALTER TABLE "QuarantineRecord" ADD COLUMN "redaction" JSONB;
