import { echoInput, NotFoundError } from '../../../domain/errors';
import { inCollectionScope } from '../../../domain/collection-scope';
import { reporterKindOf } from '../../../domain/reporter-kind';
import type { DocumentRepository, EnhancementRepository, FeedbackEventRepository, QuarantineRepository, VerdictRepository } from '../../../ports/repositories';
import { DOCUMENTS, ENHANCEMENTS, FEEDBACK_EVENTS, QUARANTINES, VERDICTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';
import { publicFailureReason } from './public-failure-reason';

export interface GetFeedbackDeps {
  feedback: FeedbackEventRepository; verdicts: VerdictRepository; quarantines: QuarantineRepository; documents: DocumentRepository; enhancements: EnhancementRepository;
}

/** Everything an API client or reviewer needs about one event: status, verdicts with replies, quarantines. */
export class GetFeedbackUseCase {
  static readonly inject: InjectMap<GetFeedbackDeps> = { feedback: FEEDBACK_EVENTS, verdicts: VERDICTS, quarantines: QUARANTINES, documents: DOCUMENTS, enhancements: ENHANCEMENTS };
  constructor(private readonly deps: GetFeedbackDeps) {}

  /** `collections`: the caller's (a key limited to collections, issue 56 item 7b); an event of another is "does not exist". */
  async execute(cmd: { feedbackId: string; collections?: readonly string[] | null }) {
    const id = cmd.feedbackId;
    const ev = await this.deps.feedback.get(id);
    if (!ev || !inCollectionScope(cmd.collections, ev.collection)) throw new NotFoundError(`feedback event ${echoInput(id)} does not exist`);
    const verdicts = await this.deps.verdicts.list(id);
    const quarantines = await this.deps.quarantines.list({ feedbackId: id });
    // Clients get a short, sanitised reason; the full text (stack, paths) stays stored. Roles
    // arrive with the review console issue: admins will get the full text then.
    const failure = publicFailureReason(ev.failureReason);
    const docs = new Map((await this.deps.documents.get([...new Set([...verdicts.map((v) => v.documentId), ...quarantines.map((q) => q.documentId)])])).map((d) => [d.id, d]));
    return {
      id: ev.id,
      status: ev.status,
      step: ev.step,
      collection: ev.collection,
      query: ev.query,
      wrongAnswer: ev.wrongAnswer,
      correctAnswer: ev.correctAnswer,
      servedIds: ev.servedIds,
      reporter: ev.reporter,
      /** Where the name comes from: `self-declared` (a feedback token: nobody vouches for it), `named-by-key`, `key`, `system`; null without one. */
      reporterKind: reporterKindOf(ev),
      k: ev.k,
      attempts: ev.attempts,
      failureReason: failure.reason,
      /** True when the stored reason has more than `failureReason` shows (stack, paths, a longer message). */
      failureDetailsWithheld: failure.detailsWithheld,
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
      enhancements: (await this.deps.enhancements.list({ feedbackId: id })).map((e) => ({
        id: e.id, state: e.state, reason: e.reason, correctAnswer: e.correctAnswer, benignText: e.benignText, proxyId: e.proxyId,
        generator: { kind: e.generatorKind, model: e.generatorModel, promptVersion: e.promptVersion }, createdAt: e.createdAt,
        approvedAt: e.approvedAt, approvedBy: e.approvedBy, deletedAt: e.deletedAt,
      })),
    };
  }
}
