import { answerMatches } from '@forensics/algorithms';
import { echoInput, NotFoundError } from '../../domain/errors';
import { verdictCacheKey } from '../../domain/text-identity';
import type { Embedder } from '../../ports/embedder.port';
import type { Generator } from '../../ports/generator.port';
import type { Judge } from '../../ports/judge.port';
import type {
  AuditLogRepository, DocumentRepository, EnhancementRepository, FeedbackEventRepository, FeedbackRow, QuarantineRepository, Verification, VerificationDetails, VerdictRepository,
} from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FEEDBACK_EVENTS, GENERATOR, JUDGE, QUARANTINES, VECTOR_STORE, VERDICTS } from '../../ports/tokens';
import type { VectorStore } from '../../ports/vector-store.port';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { servingView } from '../serving/serving-view';

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
 *  - with no LLM (offline generator): residual-support check — judge the new top-K (verdicts of this
 *    event are reused): any text still supporting t, or undetermined → INCONCLUSIVE (the trace is
 *    incomplete); none, and the traceback removed poisoned texts → POISONED; none, and it removed
 *    nothing → NON_POISONED (the feedback stands but no text in the knowledge base causes it).
 *  - any failure of the check → INCONCLUSIVE with the reason.
 */
export class VerifyTracebackUseCase {
  static readonly inject: InjectMap<VerifyTracebackDeps> = {
    feedback: FEEDBACK_EVENTS, verdicts: VERDICTS, documents: DOCUMENTS, quarantines: QUARANTINES, enhancements: ENHANCEMENTS, audit: AUDIT_LOG,
    store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, generator: GENERATOR, settings: CORE_SETTINGS,
  };
  constructor(private readonly deps: VerifyTracebackDeps) {}

  async execute(cmd: { feedbackId: string }): Promise<VerificationResult> {
    const { feedback, verdicts, generator } = this.deps;
    const ev = await feedback.get(cmd.feedbackId);
    if (!ev) throw new NotFoundError(`feedback event ${echoInput(cmd.feedbackId)} does not exist`);
    const quarantinedCount = (await this.deps.quarantines.list({ feedbackId: ev.id, state: 'QUARANTINED' })).length;
    let result: VerificationResult;
    try {
      const view = await servingView(this.deps, ev.collection, ev.query, ev.k);
      const servedIds = view.contexts.map((c) => c.id);
      if (generator.kind !== 'offline') {
        const out = await generator.generate({ query: ev.query, contexts: view.contexts.map((c) => c.text), enhanced: view.enhanced });
        const stillWrong = answerMatches(out.answer, ev.wrongAnswer);
        result = {
          verification: stillWrong ? 'NON_POISONED' : 'POISONED',
          details: { method: 'rerun-rag', answerAfter: out.answer, matchesWrongAnswer: stillWrong, generator: `${generator.kind}:${generator.model}`, promptVersion: out.promptVersion, servedIds },
        };
      } else {
        const prior = new Map((await verdicts.list(ev.id)).map((v) => [v.documentId, v.label]));
        const supporting: string[] = [];
        const undetermined: string[] = [];
        for (const c of view.contexts) {
          if (c.enhancement) continue;
          const label = prior.get(c.id) ?? (await this.judgeResidual(ev, c.id, c.text));
          if (label === 'YES') supporting.push(c.id);
          else if (label === 'UNDETERMINED') undetermined.push(c.id);
        }
        const verification: Verification = supporting.length || undetermined.length ? 'INCONCLUSIVE' : quarantinedCount > 0 ? 'POISONED' : 'NON_POISONED';
        result = {
          verification,
          details: { method: 'residual-support', servedIds, stillSupporting: supporting, undetermined, quarantinedByTrace: quarantinedCount, generator: `${generator.kind}:${generator.model}` },
        };
      }
    } catch (e) {
      result = { verification: 'INCONCLUSIVE', details: { method: generator.kind !== 'offline' ? 'rerun-rag' : 'residual-support', error: (e as Error).message } };
    }
    await feedback.update(ev.id, { verification: result.verification, verificationDetails: result.details });
    await this.deps.audit.append({ actor: this.deps.settings.workerActor, action: `verification.${result.verification.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { method: result.details.method } });
    return result;
  }

  /**
   * Judges a served text the traceback never judged (cache first). The verdict is stored with
   * round -1 (= residual-support check) so it is explained like any other and cached for later events.
   */
  private async judgeResidual(ev: FeedbackRow, documentId: string, text: string): Promise<'YES' | 'NO' | 'UNDETERMINED'> {
    const { documents, verdicts, judge } = this.deps;
    const doc = (await documents.get([documentId]))[0];
    if (!doc) return (await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text })).label;
    const cacheKey = verdictCacheKey({ textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer, judgeModel: judge.model, promptVersion: judge.promptVersion });
    const cached = await verdicts.findByCacheKey(cacheKey);
    const base = { feedbackId: ev.id, documentId, round: -1, judgeKind: judge.kind, judgeModel: judge.model, promptVersion: judge.promptVersion, cacheKey, retrievalRank: null, retrievalScore: null, evidence: null };
    if (cached && cached.judgeKind === judge.kind) {
      await verdicts.save({ ...base, label: cached.label, reply: cached.reply, attempts: cached.attempts, latencyMs: 0, cached: true, signals: cached.signals });
      return cached.label;
    }
    const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text });
    await verdicts.save({ ...base, label: v.label, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs), cached: false, signals: v.signals ?? null });
    return v.label;
  }
}
