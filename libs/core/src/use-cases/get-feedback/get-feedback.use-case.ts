import { NotFoundError } from '../../domain/errors';
import type { ForensicsRepository } from '../../ports/forensics-repository.port';

/** Everything an API client or reviewer needs about one event: status, verdicts with replies, quarantines. */
export class GetFeedbackUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository }) {}

  async execute(id: string) {
    const { repo } = this.deps;
    const ev = await repo.getFeedback(id);
    if (!ev) throw new NotFoundError(`feedback event ${id} does not exist`);
    const verdicts = await repo.listVerdicts(id);
    const quarantines = await repo.listQuarantines({ feedbackId: id });
    const docs = new Map((await repo.getDocuments([...new Set([...verdicts.map((v) => v.documentId), ...quarantines.map((q) => q.documentId)])])).map((d) => [d.id, d]));
    return {
      id: ev.id,
      status: ev.status,
      collection: ev.collection,
      query: ev.query,
      wrongAnswer: ev.wrongAnswer,
      correctAnswer: ev.correctAnswer,
      servedIds: ev.servedIds,
      reporter: ev.reporter,
      k: ev.k,
      attempts: ev.attempts,
      failureReason: ev.failureReason,
      createdAt: ev.createdAt,
      tracedAt: ev.tracedAt,
      answerId: ev.answerId,
      verification: ev.verification,
      verificationDetails: ev.verificationDetails,
      trace: ev.trace,
      verdicts: verdicts.map((v) => ({
        documentId: v.documentId,
        externalId: docs.get(v.documentId)?.externalId ?? null,
        text: docs.get(v.documentId)?.text ?? null,
        round: v.round,
        label: v.label,
        judge: { kind: v.judgeKind, model: v.judgeModel, promptVersion: v.promptVersion },
        reply: v.reply,
        attempts: v.attempts,
        latencyMs: v.latencyMs,
        cached: v.cached,
        signals: v.signals,
        retrieval: v.retrievalRank === null ? null : { rank: v.retrievalRank, score: v.retrievalScore },
        evidence: v.evidence,
      })),
      quarantined: quarantines.map((q) => ({
        id: q.id,
        documentId: q.documentId,
        externalId: docs.get(q.documentId)?.externalId ?? null,
        text: docs.get(q.documentId)?.text ?? null,
        state: q.state,
        reason: q.reason,
        policy: q.policy,
        evidence: q.evidence,
        createdBy: q.createdBy,
        createdAt: q.createdAt,
        resolvedBy: q.resolvedBy,
        resolvedAt: q.resolvedAt,
        servedDuringReview: q.servedDuringReview,
      })),
      enhancements: (await repo.listEnhancements({ feedbackId: id })).map((e) => ({
        id: e.id, state: e.state, correctAnswer: e.correctAnswer, benignText: e.benignText, proxyId: e.proxyId,
        generator: { kind: e.generatorKind, model: e.generatorModel, promptVersion: e.promptVersion }, createdAt: e.createdAt, deletedAt: e.deletedAt,
      })),
    };
  }
}
