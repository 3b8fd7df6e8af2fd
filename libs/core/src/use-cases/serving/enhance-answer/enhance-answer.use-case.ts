import { ConflictError, echoInput, NotFoundError, ValidationError } from '../../../domain/errors';
import { documentIdFor, stripReservedMarkers, textHash } from '../../../domain/text-identity';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { Generator } from '../../../ports/generator.port';
import type { EnhancementRepository, EnhancementRow, FeedbackEventRepository } from '../../../ports/repositories';
import { DOMAIN_EVENTS, EMBEDDER, ENHANCEMENTS, FEEDBACK_EVENTS, GENERATOR, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { BTE_PROXY_KIND } from '../serving-view/serving-view';

export const CORRECT_ANSWER_LIMIT = 500;

/** The only place that creates `[LATEST]` markers (RAGForensics arXiv 2504.21668, App. 8.3). */
export function wrapLatest(text: string): string {
  return `[LATEST] ${stripReservedMarkers(text).trim()} [/LATEST]`;
}

export interface EnhanceAnswerCommand { feedbackId: string; actor: string; correctAnswer?: string }
export interface EnhanceAnswerDeps { feedback: FeedbackEventRepository; enhancements: EnhancementRepository; store: VectorStore; embedder: Embedder; generator: Generator; events: DomainEventPublisher }

/**
 * Benign-text enhancement (BTE, RAGForensics arXiv 2504.21668, App. 8.3): with the correct answer c
 * known, generate a benign text for (q, c) with the `bte-v1` prompt (offline: a labelled
 * declarative template), wrap it `[LATEST] … [/LATEST]`, and store a retrieval proxy whose vector is
 * the embedding of q and whose payload marks it as a proxy; the answer path replaces it by the
 * benign text.
 *
 * Order: vector store first, then the enhancement row; when the row write fails the proxy vector is
 * deleted again before the error propagates. Why not the row first: an ACTIVE row is what the answer
 * path and `GET /v1/enhancements` trust, and an existing ACTIVE row short-circuits a retry, so a row
 * whose vector never arrived would be an enhancement that silently never serves. A proxy with no
 * row is never served: `substituteProxies` drops proxies that have no ACTIVE enhancement, so the
 * only trace a crash between the two writes (or a failed rollback) can leave is an unserved proxy,
 * which the retry overwrites (same proxy id, derived from the feedback id and answer) and completes.
 */
export class EnhanceAnswerUseCase {
  static readonly inject: InjectMap<EnhanceAnswerDeps> = { feedback: FEEDBACK_EVENTS, enhancements: ENHANCEMENTS, store: VECTOR_STORE, embedder: EMBEDDER, generator: GENERATOR, events: DOMAIN_EVENTS };
  constructor(private readonly deps: EnhanceAnswerDeps) {}

  async execute(cmd: EnhanceAnswerCommand): Promise<{ enhancement: EnhancementRow; created: boolean }> {
    const { feedback, enhancements, store, embedder, generator } = this.deps;
    const ev = await feedback.get(cmd.feedbackId);
    if (!ev) throw new NotFoundError(`feedback event ${echoInput(cmd.feedbackId)} does not exist`);
    let correct = ev.correctAnswer;
    if (cmd.correctAnswer !== undefined) {
      const c = stripReservedMarkers(cmd.correctAnswer).trim();
      if (!c) throw new ValidationError('correctAnswer must not be empty');
      if (c.length > CORRECT_ANSWER_LIMIT) throw new ValidationError(`correctAnswer is longer than ${CORRECT_ANSWER_LIMIT} characters`);
      if (ev.correctAnswer && ev.correctAnswer !== c) {
        const active = await enhancements.list({ feedbackId: ev.id, state: 'ACTIVE' });
        if (active.length) throw new ConflictError('this feedback already has an active enhancement for another correct answer; delete it first');
      }
      if (ev.correctAnswer !== c) await feedback.update(ev.id, { correctAnswer: c });
      correct = c;
    }
    if (!correct) throw new ValidationError('no correct answer is known for this feedback: set one first');
    const existing = (await enhancements.list({ feedbackId: ev.id, state: 'ACTIVE' }))[0];
    if (existing) return { enhancement: existing, created: false };

    const benign = await generator.benignText({ query: ev.query, correctAnswer: correct });
    const wrapped = wrapLatest(benign.text);
    await embedder.init();
    const [qv] = await embedder.embed([ev.query]);
    const proxyId = documentIdFor(ev.collection, textHash(`bte-proxy\u0000${ev.id}\u0000${correct}`));
    await store.upsert(ev.collection, [{ id: proxyId, vector: qv, text: wrapped, payload: { kind: BTE_PROXY_KIND, feedbackId: ev.id, query: ev.query } }]);
    const enhancement = await enhancements.create({
      collection: ev.collection, feedbackId: ev.id, query: ev.query, correctAnswer: correct, benignText: wrapped, proxyId,
      generatorKind: generator.kind, generatorModel: generator.model, promptVersion: benign.promptVersion, createdBy: cmd.actor,
    }).catch(async (e) => {
      // A concurrent run created it with the same proxy id: return that one.
      const row = await enhancements.list({ feedbackId: ev.id, state: 'ACTIVE' }).then((rows) => rows.find((x) => x.proxyId === proxyId), () => undefined);
      if (row) return row;
      // No row: take the proxy out of the store again (best effort — an unserved proxy is harmless).
      await store.delete(ev.collection, [proxyId]).catch(() => {});
      throw e;
    });
    await this.deps.events.publish({ type: 'enhancement.created', data: { enhancementId: enhancement.id, feedbackId: ev.id, collection: ev.collection, proxyId, generator: generator.kind } });
    return { enhancement, created: true };
  }
}
