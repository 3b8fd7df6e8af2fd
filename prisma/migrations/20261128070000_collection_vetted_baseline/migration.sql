-- Issue 33: a collection's vetted baseline. Texts registered before "vettedBefore" are vouched for by the
-- operator: the decisions send their YES verdicts to review and keep them served. Null = no baseline.
ALTER TABLE "Collection" ADD COLUMN "vettedBefore" TIMESTAMP(3);
