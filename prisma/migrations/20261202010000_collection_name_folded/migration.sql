-- Issue 56, item 7c: collection names that differ only in case are one name. Each collection is a directory of the
-- embedded vector store (and a table or collection name elsewhere): on a case-insensitive filesystem "kb" and "KB"
-- would be one directory holding two collections' vectors. Names are [A-Za-z0-9_-] only, so lower() folds them exactly.
-- A database that already holds two spellings keeps them (nothing is renamed or merged here): the index is left out
-- with a warning and the service still refuses every new variant (DocumentRepository.ensureCollection); rename one of
-- them, then create the index by hand (the statement below).
DO $$
BEGIN
  IF EXISTS (SELECT lower("name") FROM "Collection" GROUP BY lower("name") HAVING count(*) > 1) THEN
    RAISE WARNING 'Collection names that differ only in case exist (%): "Collection_name_folded_key" not created; rename them, then CREATE UNIQUE INDEX "Collection_name_folded_key" ON "Collection" (lower("name"))',
      (SELECT string_agg("name", ', ' ORDER BY "name") FROM "Collection" WHERE lower("name") IN (SELECT lower("name") FROM "Collection" GROUP BY lower("name") HAVING count(*) > 1));
  ELSE
    CREATE UNIQUE INDEX "Collection_name_folded_key" ON "Collection" (lower("name"));
  END IF;
END $$;
