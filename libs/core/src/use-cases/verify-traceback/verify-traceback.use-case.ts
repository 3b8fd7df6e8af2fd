import { answerMatches } from '@forensics/algorithms';
import { verdictCacheKey } from '../../domain/text-identity';
import type { Embedder } from '../../ports/embedder.port';
import type { FeedbackRow, ForensicsRepository, Verification } from '../../ports/forensics-repository.port';
import type { Generator } from '../../ports/generator.port';
import type { Judge } from '../../ports/judge.port';
import type { VectorStore } from '../../ports/vector-store.port';
import { servingView } from '../serving/serving-view';

export interface VerificationResult {
  verification: Verification;
  method: 'rerun-rag' | 'residual-support';
  details: Record<string, unknown>;
}

/**
 * Was the error attack-induced? (ragforensics.md §6, algorithms.md §1 "Non-poisoned feedback").
 * After the traced texts are out of serving, re-run the RAG for q:
 *  - with an LLM generator: the new output still matches t (normalised substring match) →
 *    NON_POISONED; no longer matches → POISONED;
 *  - with no LLM (offline generator): residual-support check — judge the new top-K (verdicts of this
 *    event are reused): any text still supporting t, or undetermined → INCONCLUSIVE (the trace is
 *    incomplete); none, and the traceback removed poisoned texts → POISONED; none, and it removed
 *    nothing → NON_POISONED (the feedback stands but no text in the knowledge base causes it).
 *  - any failure of the check → INCONCLUSIVE with the reason.
 */
export class VerifyTracebackUseCase {
  constructor(private readonly deps: { repo: ForensicsRepository; store: VectorStore; embedder: Embedder; judge: Judge; generator: Generator }) {}

  /**
   * Judges a served text the traceback never judged (cache first). The verdict is stored with
   * round -1 (= residual-support check) so it is explained like any other and cached for later events.
   */
  private async judgeResidual(ev: FeedbackRow, documentId: string, text: string): Promise<'YES' | 'NO' | 'UNDETERMINED'> {
    const { repo, judge } = this.deps;
    const doc = (await repo.getDocuments([documentId]))[0];
    if (!doc) return (await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text })).label;
    const cacheKey = verdictCacheKey({ textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer, judgeModel: judge.model, promptVersion: judge.promptVersion });
    const cached = await repo.findVerdictByCacheKey(cacheKey);
    const base = { feedbackId: ev.id, documentId, round: -1, judgeKind: judge.kind, judgeModel: judge.model, promptVersion: judge.promptVersion, cacheKey, retrievalRank: null, retrievalScore: null, evidence: null };
    if (cached && cached.judgeKind === judge.kind) {
      await repo.saveVerdict({ ...base, label: cached.label, reply: cached.reply, attempts: cached.attempts, latencyMs: 0, cached: true, signals: cached.signals });
      return cached.label;
    }
    const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text });
    await repo.saveVerdict({ ...base, label: v.label, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs), cached: false, signals: (v.signals ?? null) as unknown });
    return v.label;
  }

  async execute(ev: FeedbackRow, quarantinedCount: number): Promise<VerificationResult> {
    const { repo, generator } = this.deps;
    let result: VerificationResult;
    try {
      const view = await servingView(this.deps, ev.collection, ev.query, ev.k);
      if (generator.kind !== 'offline') {
        const out = await generator.generate({ query: ev.query, contexts: view.contexts.map((c) => c.text), enhanced: view.enhanced });
        const stillWrong = answerMatches(out.answer, ev.wrongAnswer);
        result = {
          verification: stillWrong ? 'NON_POISONED' : 'POISONED',
          method: 'rerun-rag',
          details: { answerAfter: out.answer, matchesWrongAnswer: stillWrong, generator: `${generator.kind}:${generator.model}`, promptVersion: out.promptVersion, servedIds: view.contexts.map((c) => c.id) },
        };
      } else {
        const prior = new Map((await repo.listVerdicts(ev.id)).map((v) => [v.documentId, v.label]));
        const supporting: string[] = [];
        const undetermined: string[] = [];
        for (const c of view.contexts) {
          if (c.enhancement) continue;
          let label = prior.get(c.id);
          if (!label) label = await this.judgeResidual(ev, c.id, c.text);
          if (label === 'YES') supporting.push(c.id);
          else if (label === 'UNDETERMINED') undetermined.push(c.id);
        }
        const verification: Verification = supporting.length || undetermined.length ? 'INCONCLUSIVE' : quarantinedCount > 0 ? 'POISONED' : 'NON_POISONED';
        result = {
          verification,
          method: 'residual-support',
          details: { servedIds: view.contexts.map((c) => c.id), stillSupporting: supporting, undetermined, quarantinedByTrace: quarantinedCount, generator: `${generator.kind}:${generator.model}` },
        };
      }
    } catch (e) {
      result = { verification: 'INCONCLUSIVE', method: generator.kind !== 'offline' ? 'rerun-rag' : 'residual-support', details: { error: (e as Error).message } };
    }
    await repo.updateFeedback(ev.id, { verification: result.verification, verificationDetails: { method: result.method, ...result.details } });
    await repo.audit({ actor: 'traceback-worker', action: `verification.${result.verification.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { method: result.method } });
    return result;
  }
}
