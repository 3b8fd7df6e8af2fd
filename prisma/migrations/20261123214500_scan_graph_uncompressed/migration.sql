-- The scan graph's parts are stored uncompressed: they are dense binary arrays (ids, neighbour
-- indexes, cosines, signatures) that pglz barely shrinks, and compressing ~20 MB at 100k texts cost
-- about half a second of every incremental cluster-scan run (issue 12: 1k new texts in ≤ 10 s).
ALTER TABLE "ScanGraphPart" ALTER COLUMN "data" SET STORAGE EXTERNAL;
