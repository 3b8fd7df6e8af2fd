-- The cluster scan's persisted k-NN lists (incremental scans).
CREATE TABLE IF NOT EXISTS "ScanNeighbour" (
    "collection" TEXT NOT NULL,
    "documentId" TEXT NOT NULL,
    "neighbourIds" TEXT[],
    "scores" DOUBLE PRECISION[],
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ScanNeighbour_pkey" PRIMARY KEY ("collection","documentId")
);
