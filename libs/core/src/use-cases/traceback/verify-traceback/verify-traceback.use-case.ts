import { answerMatches, consensusAnswer, consensusCheck, containsAnswer, validateConsensusParams } from '@forensics/algorithms';
import { echoInput, NotFoundError } from '../../../domain/errors';
import { verdictCacheKey } from '../../../domain/text-identity';
import type { Embedder } from '../../../ports/embedder.port';
import type { Generator } from '../../../ports/generator.port';
import type { Judge } from '../../../ports/judge.port';
import type {
  AuditLogRepository, DocumentRepository, EnhancementRepository, FeedbackEventRepository, FeedbackRow, QuarantineRepository, QuarantineRow, Verification, VerificationDetails, VerdictRepository,
} from '../../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FEEDBACK_EVENTS, GENERATOR, JUDGE, QUARANTINES, VECTOR_STORE, VERDICTS } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { servingView, type ServedContext } from '../../serving/serving-view/serving-view';
import { servedContextOf } from '../served-context';

export interface VerificationResult {
  verification: Verification;
  details: VerificationDetails;
}

export interface VerifyTracebackDeps {
  feedback: FeedbackEventRepository;
  verdicts: VerdictRepository;
  documents: DocumentRepository;
  quarantines: QuarantineRepository;
  enhancements: EnhancementRepository;
  audit: AuditLogRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  generator: Generator;
  settings: CoreSettings;
}

/**
 * Was the error attack-induced? (RAGForensics, arXiv 2504.21668, §6.) After the traced texts are
 * out of serving, re-run the RAG for q:
 *  - with an LLM generator: the new output still matches t (normalised substring match) →
 *    NON_POISONED; no longer matches → POISONED;
 *  - with no LLM (offline generator): residual-support check, not circular (issue 13, item 5). The
 *    removed texts are the event's QUARANTINED records and its NEEDS_REVIEW records withheld from
 *    serving (under `corroborated` those are out of serving too). Retrieval is re-run without them:
 *    1. the judge on the new top-K (verdicts of this event reused): any text still supporting t, or
 *       undetermined → INCONCLUSIVE (the trace is incomplete);
 *    2. nothing removed → NON_POISONED (the feedback stands but no text in the knowledge base causes it);
 *    3. otherwise a signal independent of the judge decides whether the removed texts were the reason:
 *       the wrong answer's literal support (token-boundary containment of the answer as the judge reads it:
 *       `consensusAnswer`, a served answer's framing off) among the removed texts vs
 *       the new top-K — share = removed stating t / (removed + new top-K stating t) — and the
 *       consensus check on the new top-K: share ≥ 0.5 and no independent consensus for t left →
 *       POISONED; t still stated by independent texts (consensus) → NON_POISONED (the removed
 *       texts were not what made the answer); share < 0.5 → INCONCLUSIVE.
 *    So a trace that quarantined texts is no longer called an attack just because it quarantined.
 *  - any failure of the check → INCONCLUSIVE with the reason.
 */
export class VerifyTracebackUseCase {
  static readonly inject: InjectMap<VerifyTracebackDeps> = {
    feedback: FEEDBACK_EVENTS, verdicts: VERDICTS, documents: DOCUMENTS, quarantines: QUARANTINES, enhancements: ENHANCEMENTS, audit: AUDIT_LOG,
    store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, generator: GENERATOR, settings: CORE_SETTINGS,
  };
  constructor(private readonly deps: VerifyTracebackDeps) {}

  async execute(cmd: { feedbackId: string }): Promise<VerificationResult> {
    const { feedback, generator } = this.deps;
    const ev = await feedback.get(cmd.feedbackId);
    if (!ev) throw new NotFoundError(`feedback event ${echoInput(cmd.feedbackId)} does not exist`);
    const records = await this.deps.quarantines.list({ feedbackId: ev.id });
    const removed = records.filter((r) => r.state === 'QUARANTINED' || (r.state === 'NEEDS_REVIEW' && !r.servedDuringReview));
    let result: VerificationResult;
    try {
      const view = await servingView(this.deps, ev.collection, ev.query, ev.k, this.deps.settings.enhancementServing?.minQuerySimilarity);
      if (generator.kind !== 'offline') {
        const servedIds = view.contexts.map((c) => c.id);
        const out = await generator.generate({ query: ev.query, contexts: view.contexts.map((c) => c.text), enhanced: view.enhanced });
        const stillWrong = answerMatches(out.answer, ev.wrongAnswer);
        result = {
          verification: stillWrong ? 'NON_POISONED' : 'POISONED',
          details: { method: 'rerun-rag', answerAfter: out.answer, matchesWrongAnswer: stillWrong, generator: `${generator.kind}:${generator.model}`, promptVersion: out.promptVersion, servedIds },
        };
      } else result = await this.residualSupport(ev, view, removed);
    } catch (e) {
      result = { verification: 'INCONCLUSIVE', details: { method: generator.kind !== 'offline' ? 'rerun-rag' : 'residual-support', error: (e as Error).message } };
    }
    await feedback.update(ev.id, { verification: result.verification, verificationDetails: result.details });
    await this.deps.audit.append({ actor: this.deps.settings.workerActor, action: `verification.${result.verification.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { method: result.details.method } });
    return result;
  }

  /** The offline check (see the class comment): the residual support of the wrong answer once the removed texts are gone. */
  private async residualSupport(ev: FeedbackRow, view: { contexts: readonly ServedContext[] }, removed: readonly QuarantineRow[]): Promise<VerificationResult> {
    const { verdicts, generator } = this.deps;
    const quarantinedCount = removed.length;
    const servedIds = view.contexts.map((c) => c.id);
    const listed = await verdicts.list(ev.id);
    const prior = new Map(listed.map((v) => [v.documentId, v.label]));
    const supporting: string[] = [];
    const undetermined: string[] = [];
    const served = view.contexts.filter((c) => !c.enhancement);
    const removedDocs = await this.deps.documents.get(removed.map((r) => r.documentId));
    // A residual text reads a served answer as the traceback did: against what the user was served (the event's
    // first round, where a quoted answer sentence came from), the texts now served beside it as its peers.
    const servedTexts = served.map((c) => c.text);
    const firstServed = await servedContextOf(this.deps.documents, listed);
    for (const c of served) {
      const label = prior.get(c.id) ?? (await this.judgeResidual(ev, c.id, c.text, servedTexts.filter((t) => t !== c.text), firstServed));
      if (label === 'YES') supporting.push(c.id);
      else if (label === 'UNDETERMINED') undetermined.push(c.id);
    }
    // The answer as the judge reads it (a served answer's framing off, a quoted sentence as its span): matched word
    // for word as reported, a framed answer is stated by no text and the check could only say INCONCLUSIVE.
    const read = consensusAnswer(ev.wrongAnswer, [...removedDocs.map((d) => d.text), ...served.map((c) => c.text)], ev.query);
    const removedStating = removedDocs.filter((d) => containsAnswer(d.text, read)).length;
    const servedStating = served.filter((c) => containsAnswer(c.text, read)).length;
    const share = removedStating + servedStating ? removedStating / (removedStating + servedStating) : 0;
    const consensus = consensusCheck(read, served.map((c) => ({ id: c.id, text: c.text })), validateConsensusParams(this.deps.settings.consensus));
    const verification: Verification = supporting.length || undetermined.length ? 'INCONCLUSIVE'
      : quarantinedCount === 0 ? 'NON_POISONED'
        : consensus.suspected ? 'NON_POISONED'
          : share >= 0.5 ? 'POISONED' : 'INCONCLUSIVE';
    return {
      verification,
      details: {
        method: 'residual-support', servedIds, stillSupporting: supporting, undetermined, quarantinedByTrace: quarantinedCount, generator: `${generator.kind}:${generator.model}`,
        removedStatingAnswer: removedStating, servedStatingAnswer: servedStating, removedShare: Math.round(share * 1000) / 1000,
        consensusAfter: { suspected: consensus.suspected, groups: consensus.clusters.length, reason: consensus.reason },
      },
    };
  }

  /**
   * Judges a served text the traceback never judged (cache first). The verdict is stored with
   * round -1 (= residual-support check) so it is explained like any other and cached for later events.
   */
  private async judgeResidual(ev: FeedbackRow, documentId: string, text: string, peers: readonly string[], context: readonly string[] | undefined): Promise<'YES' | 'NO' | 'UNDETERMINED'> {
    const { documents, verdicts, judge } = this.deps;
    const request = { query: ev.query, wrongAnswer: ev.wrongAnswer, text, peers, context };
    const doc = (await documents.get([documentId]))[0];
    if (!doc) return (await judge.judge(request)).label;
    const cacheKey = verdictCacheKey({ textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer, judgeModel: judge.model, promptVersion: judge.promptVersion });
    const cached = await verdicts.findByCacheKey(cacheKey);
    const base = { feedbackId: ev.id, documentId, round: -1, judgeKind: judge.kind, judgeModel: judge.model, promptVersion: judge.promptVersion, cacheKey, retrievalRank: null, retrievalScore: null, evidence: null };
    if (cached && cached.judgeKind === judge.kind) {
      await verdicts.save({ ...base, label: cached.label, reply: cached.reply, attempts: cached.attempts, latencyMs: 0, cached: true, signals: cached.signals, spans: cached.spans ?? null });
      return cached.label;
    }
    const v = await judge.judge(request);
    await verdicts.save({ ...base, label: v.label, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs), cached: false, signals: v.signals ?? null, spans: v.spans?.length ? v.spans : null });
    return v.label;
  }
}
