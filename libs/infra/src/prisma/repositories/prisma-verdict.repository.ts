import type { ClaimSpan, JudgeSignals, NewVerdict, VerdictEvidence, VerdictRepository, VerdictRow } from '@forensics/core';
import type { JudgeVerdict, PrismaClient } from '../generated/client';
import { fromJson, isUuid, toJson } from './prisma-json';

const toRow = (v: JudgeVerdict): VerdictRow => ({
  id: v.id, feedbackId: v.feedbackId, documentId: v.documentId, round: v.round, label: v.label, judgeKind: v.judgeKind, judgeModel: v.judgeModel,
  promptVersion: v.promptVersion, reply: v.reply, attempts: v.attempts, latencyMs: v.latencyMs, cacheKey: v.cacheKey, cached: v.cached,
  signals: fromJson<JudgeSignals>(v.signals), retrievalRank: v.retrievalRank, retrievalScore: v.retrievalScore, evidence: fromJson<VerdictEvidence>(v.evidence),
  spans: fromJson<ClaimSpan[]>(v.spans), createdAt: v.createdAt,
});

export class PrismaVerdictRepository implements VerdictRepository {
  constructor(private readonly db: PrismaClient) {}

  async list(feedbackId: string): Promise<VerdictRow[]> {
    if (!isUuid(feedbackId)) return [];
    return (await this.db.judgeVerdict.findMany({ where: { feedbackId }, orderBy: [{ round: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }] })).map(toRow);
  }

  async findByCacheKey(cacheKey: string): Promise<VerdictRow | null> {
    const v = await this.db.judgeVerdict.findFirst({ where: { cacheKey, cached: false, label: { not: 'UNDETERMINED' } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    return v ? toRow(v) : null;
  }

  async save(v: NewVerdict): Promise<void> {
    const data = { ...v, signals: toJson(v.signals), evidence: toJson(v.evidence), spans: toJson(v.spans ?? null) };
    await this.db.judgeVerdict.upsert({ where: { feedbackId_documentId: { feedbackId: v.feedbackId, documentId: v.documentId } }, create: data, update: data });
  }
}
