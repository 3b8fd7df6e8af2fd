-- AlterTable
ALTER TABLE "QuarantineRecord" ADD COLUMN "servedDuringReview" BOOLEAN NOT NULL DEFAULT false;

-- Hand-written: one active record per text, where active = QUARANTINED or NEEDS_REVIEW.
DROP INDEX "QuarantineRecord_active_document_key";
CREATE UNIQUE INDEX "QuarantineRecord_active_document_key" ON "QuarantineRecord"("documentId") WHERE "state" IN ('QUARANTINED', 'NEEDS_REVIEW');
