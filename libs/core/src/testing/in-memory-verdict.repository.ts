import { randomUUID } from 'node:crypto';
import type { NewVerdict, VerdictRepository, VerdictRow } from '../ports/repositories';
import { byTimeThenId, ConstraintViolation, copy, InMemoryRepository, jsonColumn } from './in-memory-state';

/**
 * Verdicts upserted on (feedbackId, documentId): an overwrite keeps the row's id and createdAt (as
 * the Prisma upsert does); the cache returns the most recently created non-cached, labelled verdict.
 */
export class InMemoryVerdictRepository extends InMemoryRepository implements VerdictRepository {
  async list(feedbackId: string): Promise<VerdictRow[]> {
    const byTime = byTimeThenId<VerdictRow>((v) => v.createdAt);
    return this.s.verdicts.filter((v) => v.feedbackId === feedbackId).sort((a, b) => a.round - b.round || byTime(a, b)).map(copy);
  }

  async findByCacheKey(cacheKey: string): Promise<VerdictRow | null> {
    const [latest] = this.s.verdicts.filter((v) => v.cacheKey === cacheKey && !v.cached && v.label !== 'UNDETERMINED')
      .sort(byTimeThenId((v) => v.createdAt)).reverse();
    return latest ? copy(latest) : null;
  }

  async save(v: NewVerdict): Promise<void> {
    if (!this.s.feedback.has(v.feedbackId)) throw new ConstraintViolation(`foreign key: feedback event ${v.feedbackId} does not exist`);
    if (!this.s.documents.has(v.documentId)) throw new ConstraintViolation(`foreign key: document ${v.documentId} does not exist`);
    const row = { ...copy(v), signals: jsonColumn(v.signals), evidence: jsonColumn(v.evidence), spans: jsonColumn(v.spans ?? null) };
    const i = this.s.verdicts.findIndex((x) => x.feedbackId === v.feedbackId && x.documentId === v.documentId);
    if (i >= 0) this.s.verdicts[i] = { ...row, id: this.s.verdicts[i].id, createdAt: this.s.verdicts[i].createdAt };
    else this.s.verdicts.push({ ...row, id: randomUUID(), createdAt: this.now() });
  }
}
