-- The cluster scan looks up logged answers that served a flagged group's texts (servedIds && ARRAY[...]).
CREATE INDEX IF NOT EXISTS "Answer_servedIds_idx" ON "Answer" USING GIN ("servedIds");
