import { defaultQuerySimilarity, servedTopK, type ServedContext } from '../serving-view/serving-view';
export { BTE_PROXY_KIND, isRetrievalProxy, type ServedContext } from '../serving-view/serving-view';
import { echoInput, NotFoundError, PermanentError, ValidationError } from '../../../domain/errors';
import { signFeedbackToken } from '../../../domain/feedback-token';
import { parseRequest } from '../../../domain/request-schema';
import { stripReservedMarkers } from '../../../domain/text-identity';
import type { Embedder } from '../../../ports/embedder.port';
import type { Generator } from '../../../ports/generator.port';
import type { AnswerRepository, DocumentRepository, EnhancementRepository } from '../../../ports/repositories';
import type { Clock } from '../../../ports/runtime.port';
import { ANSWERS, CLOCK, CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, GENERATOR, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { ANSWER_LIMITS, AnswerQueryRequest } from './answer-query.schema';
export type { FeedbackTokenSettings } from '../../../settings';

export { ANSWER_LIMITS };


export interface AnswerQueryCommand {
  collection: string;
  query: string;
  k: number;
}


export interface AnswerQueryResult {
  answerId: string;
  answer: string;
  contexts: ServedContext[];
  enhanced: boolean;
  generator: { kind: string; model: string; promptVersion: string };
  feedbackToken: string;
  feedbackTokenExpiresAt: Date;
}

/** Checks `{collection?, query, k?}` of POST /v1/rag/answer; every problem is listed. */
export function validateAnswerQuery(input: unknown, defaults: { collection: string; k: number }): AnswerQueryCommand {
  const b = parseRequest(AnswerQueryRequest, input);
  return { collection: b.collection ?? defaults.collection, query: b.query, k: b.k ?? defaults.k };
}

/**
 * The built-in RAG (POST /v1/rag/answer): top-k from the vector store (quarantined texts are out
 * of serving there), retrieval proxies replaced by their benign texts (a proxy without an active
 * enhancement is dropped), the generator answers — with the BTE prompt when a benign text is
 * served — and the answer is logged with what was served, so a later "wrong answer" report can
 * name the served texts. Returns a feedback token bound to the logged answer.
 */
export interface AnswerQueryDeps {
  documents: DocumentRepository; enhancements: EnhancementRepository; answers: AnswerRepository;
  store: VectorStore; embedder: Embedder; generator: Generator; settings: CoreSettings; clock: Clock;
}

export class AnswerQueryUseCase {
  static readonly inject: InjectMap<AnswerQueryDeps> = {
    documents: DOCUMENTS, enhancements: ENHANCEMENTS, answers: ANSWERS, store: VECTOR_STORE, embedder: EMBEDDER, generator: GENERATOR, settings: CORE_SETTINGS, clock: CLOCK,
  };
  constructor(private readonly deps: AnswerQueryDeps) {}

  async execute(cmd: AnswerQueryCommand): Promise<AnswerQueryResult> {
    const { documents, enhancements, answers, store, embedder, generator } = this.deps;
    const query = stripReservedMarkers(cmd.query).trim();
    if (!query) throw new ValidationError('query must not be empty');
    const coll = await documents.getCollection(cmd.collection);
    if (!coll) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown: ingest texts into it first`);
    await embedder.init();
    if (coll.embedder !== embedder.id) {
      throw new PermanentError(`collection '${cmd.collection}' was embedded with '${coll.embedder}' but this service embeds with '${embedder.id}'`);
    }
    const [qvec] = await embedder.embed([query]);
    const minSimilarity = this.deps.settings.enhancementServing?.minQuerySimilarity ?? defaultQuerySimilarity(embedder.id);
    const contexts = await servedTopK({ enhancements, store }, cmd.collection, query, qvec, cmd.k, minSimilarity);
    const enhanced = contexts.some((c) => c.enhancement);
    const gen = await generator.generate({ query, contexts: contexts.map((c) => c.text), enhanced });
    const row = await answers.create({
      collection: cmd.collection,
      query,
      answer: gen.answer.slice(0, ANSWER_LIMITS.answer),
      servedIds: contexts.map((c) => c.id),
      servedScores: contexts.map((c) => c.score),
      source: 'builtin',
      generatorKind: generator.kind,
      generatorModel: generator.model,
      promptVersion: gen.promptVersion,
      embedder: embedder.id,
    });
    const { token, expiresAt } = signFeedbackToken(row.id, this.deps.settings.feedbackTokens.secret, this.deps.settings.feedbackTokens.ttlSec, this.deps.clock.now());
    return {
      answerId: row.id,
      answer: row.answer,
      contexts,
      enhanced,
      generator: { kind: generator.kind, model: generator.model, promptVersion: gen.promptVersion },
      feedbackToken: token,
      feedbackTokenExpiresAt: expiresAt,
    };
  }
}
