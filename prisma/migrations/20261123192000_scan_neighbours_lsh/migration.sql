-- LSH signatures kept with the cluster scan's k-NN lists (incremental scans of large collections).
ALTER TABLE "ScanNeighbour" ADD COLUMN IF NOT EXISTS "lsh" INTEGER[] NOT NULL DEFAULT ARRAY[]::INTEGER[];
