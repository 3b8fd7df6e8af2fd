import { echoInput, NotFoundError, ValidationError } from '../../../domain/errors';
import { signFeedbackToken } from '../../../domain/feedback-token';
import { parseRequest } from '../../../domain/request-schema';
import { stripReservedMarkers } from '../../../domain/text-identity';
import type { AnswerRepository, DocumentRepository, EnhancementRepository } from '../../../ports/repositories';
import type { Clock } from '../../../ports/runtime.port';
import { ANSWERS, CLOCK, CORE_SETTINGS, DOCUMENTS, ENHANCEMENTS } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { LogAnswerRequest } from './log-answer.schema';

export interface LogAnswerCommand {
  collection: string;
  query: string;
  answer: string;
  /** Document ids (as returned by ingestion / found in the vector store) of the served texts, in rank order. */
  servedIds: string[];
  /** Optional retrieval scores, same length as servedIds. */
  servedScores?: number[];
}

/** Checks `{collection?, query, answer, servedIds, servedScores?}` of POST /v1/answers; every problem is listed. */
export function validateLogAnswer(input: unknown, defaultCollection: string): LogAnswerCommand {
  const b = parseRequest(LogAnswerRequest, input);
  return { collection: b.collection ?? defaultCollection, query: b.query, answer: b.answer, servedIds: b.servedIds, servedScores: b.servedScores };
}

/**
 * Answer logging for external RAGs (POST /v1/answers): the served ids must be texts of the
 * collection (registered documents, or retrieval proxies of the collection's enhancements);
 * unknown ids are refused with one 400 naming them all. `[LATEST]` markers are stripped from the
 * query and the answer. Returns a feedback token bound to the logged answer.
 */
export interface LogAnswerDeps { documents: DocumentRepository; enhancements: EnhancementRepository; answers: AnswerRepository; settings: CoreSettings; clock: Clock }

export class LogAnswerUseCase {
  static readonly inject: InjectMap<LogAnswerDeps> = { documents: DOCUMENTS, enhancements: ENHANCEMENTS, answers: ANSWERS, settings: CORE_SETTINGS, clock: CLOCK };
  constructor(private readonly deps: LogAnswerDeps) {}

  async execute(cmd: LogAnswerCommand): Promise<{ answerId: string; feedbackToken: string; feedbackTokenExpiresAt: Date }> {
    const { documents, enhancements, answers } = this.deps;
    if (!(await documents.getCollection(cmd.collection))) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown: ingest texts into it first`);
    const known = new Set((await documents.get(cmd.servedIds)).filter((d) => d.collection === cmd.collection).map((d) => d.id));
    const rest = cmd.servedIds.filter((id) => !known.has(id));
    if (rest.length) {
      for (const e of await enhancements.findActiveByProxyIds(rest)) if (e.collection === cmd.collection) known.add(e.proxyId);
    }
    const unknown = cmd.servedIds.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new ValidationError(`servedIds not found in collection '${echoInput(cmd.collection)}': ${unknown.map((id) => echoInput(id)).join(', ')}`, unknown.map((id) => `unknown served id '${echoInput(id)}'`));
    }
    const row = await answers.create({
      collection: cmd.collection,
      query: stripReservedMarkers(cmd.query).trim(),
      answer: stripReservedMarkers(cmd.answer).trim(),
      servedIds: cmd.servedIds,
      servedScores: cmd.servedScores ?? [],
      source: 'external',
      generatorKind: null,
      generatorModel: null,
      promptVersion: null,
      embedder: null,
    });
    const { token, expiresAt } = signFeedbackToken(row.id, this.deps.settings.feedbackTokens.secret, this.deps.settings.feedbackTokens.ttlSec, this.deps.clock.now());
    return { answerId: row.id, feedbackToken: token, feedbackTokenExpiresAt: expiresAt };
  }
}
