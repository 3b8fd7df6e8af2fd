import { NotFoundError, ValidationError } from '../../domain/errors';
import { signFeedbackToken } from '../../domain/feedback-token';
import { COLLECTION_NAME, stripReservedMarkers } from '../../domain/text-identity';
import type { AnswerRepository, DocumentRepository, EnhancementRepository } from '../../ports/repositories';
import type { Clock } from '../../ports/runtime.port';
import { ANSWERS, CLOCK, CORE_SETTINGS, DOCUMENTS, ENHANCEMENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { ANSWER_LIMITS } from '../answer-query/answer-query.use-case';

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
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError('body must be a JSON object');
  const b = input as Record<string, unknown>;
  const errs: string[] = [];
  let collection = defaultCollection;
  if (b.collection !== undefined) {
    if (typeof b.collection !== 'string' || !COLLECTION_NAME.test(b.collection)) errs.push('collection must match [A-Za-z0-9_-]{1,64}');
    else collection = b.collection;
  }
  const str = (name: 'query' | 'answer', max: number): string => {
    const v = b[name];
    if (typeof v !== 'string') { errs.push(v === undefined ? `${name} is required` : `${name} must be a string`); return ''; }
    if (!stripReservedMarkers(v).trim()) { errs.push(`${name} must not be empty`); return ''; }
    if (v.length > max) { errs.push(`${name} is longer than ${max} characters`); return ''; }
    return v;
  };
  const query = str('query', ANSWER_LIMITS.query);
  const answer = str('answer', ANSWER_LIMITS.answer);
  let servedIds: string[] = [];
  if (!Array.isArray(b.servedIds) || b.servedIds.some((x) => typeof x !== 'string' || !x || x.length > 200)) {
    errs.push(b.servedIds === undefined ? 'servedIds is required (the ids of the texts the RAG served)' : 'servedIds must be an array of non-empty strings');
  } else if (b.servedIds.length > ANSWER_LIMITS.servedIds) errs.push(`servedIds has more than ${ANSWER_LIMITS.servedIds} entries`);
  else if (new Set(b.servedIds).size !== b.servedIds.length) errs.push('servedIds must not repeat an id');
  else servedIds = b.servedIds as string[];
  let servedScores: number[] | undefined;
  if (b.servedScores !== undefined) {
    if (!Array.isArray(b.servedScores) || b.servedScores.some((x) => typeof x !== 'number' || !Number.isFinite(x))) errs.push('servedScores must be an array of finite numbers');
    else if (Array.isArray(b.servedIds) && b.servedScores.length !== b.servedIds.length) errs.push('servedScores must have one score per served id');
    else servedScores = b.servedScores as number[];
  }
  for (const key of Object.keys(b)) if (!['collection', 'query', 'answer', 'servedIds', 'servedScores'].includes(key)) errs.push(`unknown field '${key}'`);
  if (errs.length) throw new ValidationError(errs.join('; '), errs);
  return { collection, query, answer, servedIds, servedScores };
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
    if (!(await documents.getCollection(cmd.collection))) throw new NotFoundError(`collection '${cmd.collection}' is unknown: ingest texts into it first`);
    const known = new Set((await documents.get(cmd.servedIds)).filter((d) => d.collection === cmd.collection).map((d) => d.id));
    const rest = cmd.servedIds.filter((id) => !known.has(id));
    if (rest.length) {
      for (const e of await enhancements.findActiveByProxyIds(rest)) if (e.collection === cmd.collection) known.add(e.proxyId);
    }
    const unknown = cmd.servedIds.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new ValidationError(`servedIds not found in collection '${cmd.collection}': ${unknown.join(', ')}`, unknown.map((id) => `unknown served id '${id}'`));
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
