-- Issue 56, item 7b: a service key may be limited to collections. Empty (every existing key) = every collection, as before.
ALTER TABLE "ApiKey" ADD COLUMN "collections" TEXT[] DEFAULT ARRAY[]::TEXT[];
