-- The cluster scan's k-NN graph as binary parts (one row per text was too slow at 100k texts).
DROP TABLE IF EXISTS "ScanNeighbour";
CREATE TABLE IF NOT EXISTS "ScanGraphPart" (
    "collection" TEXT NOT NULL,
    "part" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ScanGraphPart_pkey" PRIMARY KEY ("collection","part")
);
