import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import { COLLECTION_NAME, stripReservedMarkers } from '../../domain/text-identity';
import type { AuditLogRepository, DocumentRepository, FeedbackEventRepository, FeedbackRow, NewFeedback } from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, FEEDBACK_EVENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';
import { DispatchTracebackUseCase } from '../dispatch-traceback/dispatch-traceback.use-case';

/** A feedback payload as received; `k` falls back to the configured default. */
export type SubmitFeedbackCommand = Omit<NewFeedback, 'k' | 'answerId'> & { k?: number };

export const FEEDBACK_LIMITS = { query: 4000, wrongAnswer: 4000, correctAnswer: 4000, reporter: 200, idempotencyKey: 200, servedIds: 100 } as const;

/** Checks a feedback payload; every problem is listed so the API can answer one clear 400. */
export function validateFeedback(input: unknown, defaultCollection: string): SubmitFeedbackCommand {
  const errs: string[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ValidationError('body must be a JSON object', ['body must be a JSON object']);
  const b = input as Record<string, unknown>;
  const str = (name: keyof typeof FEEDBACK_LIMITS, required: boolean): string | undefined => {
    const v = b[name];
    if (v === undefined || v === null) { if (required) errs.push(`${name} is required`); return undefined; }
    if (typeof v !== 'string') { errs.push(`${name} must be a string`); return undefined; }
    if (required && !v.trim()) { errs.push(`${name} must not be empty`); return undefined; }
    if (v.length > FEEDBACK_LIMITS[name]) { errs.push(`${name} is longer than ${FEEDBACK_LIMITS[name]} characters`); return undefined; }
    return v;
  };
  const query = str('query', true);
  const wrongAnswer = str('wrongAnswer', true);
  const correctAnswer = str('correctAnswer', false);
  const reporter = str('reporter', false);
  let collection = defaultCollection;
  if (b.collection !== undefined) {
    if (typeof b.collection !== 'string' || !COLLECTION_NAME.test(b.collection)) errs.push('collection must match [A-Za-z0-9_-]{1,64}');
    else collection = b.collection;
  }
  let servedIds: string[] | undefined;
  if (b.servedIds !== undefined) {
    if (!Array.isArray(b.servedIds) || b.servedIds.some((x) => typeof x !== 'string' || !x || x.length > 200)) errs.push('servedIds must be an array of non-empty strings');
    else if (b.servedIds.length > FEEDBACK_LIMITS.servedIds) errs.push(`servedIds has more than ${FEEDBACK_LIMITS.servedIds} entries`);
    else servedIds = b.servedIds as string[];
  }
  let k: number | undefined;
  if (b.k !== undefined) {
    if (typeof b.k !== 'number' || !Number.isInteger(b.k) || b.k < 1 || b.k > 50) errs.push('k must be an integer in [1, 50]');
    else k = b.k;
  }
  const known = new Set(['collection', 'query', 'wrongAnswer', 'correctAnswer', 'servedIds', 'reporter', 'k']);
  for (const key of Object.keys(b)) if (!known.has(key)) errs.push(`unknown field '${key}'`);
  if (errs.length) throw new ValidationError(errs.join('; '), errs);
  return { collection, query: query!, wrongAnswer: wrongAnswer!, correctAnswer: correctAnswer ?? null, servedIds, reporter: reporter ?? null, k };
}

export interface SubmitFeedbackDeps {
  documents: DocumentRepository; feedback: FeedbackEventRepository; audit: AuditLogRepository; dispatch: DispatchTracebackUseCase; settings: CoreSettings;
}

/**
 * Persists a feedback event BEFORE acknowledging it, then dispatches its traceback.
 * If enqueueing fails the event stays RECEIVED and the worker's sweeper enqueues it later:
 * nothing acknowledged is ever lost.
 */
export class SubmitFeedbackUseCase {
  static readonly inject: InjectMap<SubmitFeedbackDeps> = { documents: DOCUMENTS, feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, dispatch: DispatchTracebackUseCase, settings: CORE_SETTINGS };
  constructor(private readonly deps: SubmitFeedbackDeps) {}

  async execute(cmd: SubmitFeedbackCommand): Promise<{ event: FeedbackRow; created: boolean; queued: boolean }> {
    const { documents, feedback } = this.deps;
    if (!(await documents.getCollection(cmd.collection))) throw new NotFoundError(`collection '${cmd.collection}' is unknown: ingest texts into it first`);
    if (cmd.idempotencyKey !== undefined && cmd.idempotencyKey !== null && (cmd.idempotencyKey.length > FEEDBACK_LIMITS.idempotencyKey || !cmd.idempotencyKey.trim())) {
      throw new ValidationError(`Idempotency-Key must be 1..${FEEDBACK_LIMITS.idempotencyKey} characters`);
    }
    const clean = (s: string | null | undefined) => (s === null || s === undefined ? s : stripReservedMarkers(s));
    const { event, created } = await feedback.create({
      collection: cmd.collection,
      query: clean(cmd.query)!,
      wrongAnswer: clean(cmd.wrongAnswer)!,
      correctAnswer: clean(cmd.correctAnswer) ?? null,
      servedIds: cmd.servedIds ?? [],
      reporter: clean(cmd.reporter) ?? null,
      idempotencyKey: cmd.idempotencyKey ?? null,
      k: cmd.k ?? this.deps.settings.defaultK,
    });
    if (!created) {
      if (event.query !== clean(cmd.query) || event.wrongAnswer !== clean(cmd.wrongAnswer) || event.collection !== cmd.collection) {
        throw new ConflictError('Idempotency-Key was already used for a different feedback');
      }
      return { event, created, queued: event.status !== 'RECEIVED' };
    }
    await this.deps.audit.append({ actor: cmd.reporter ?? 'anonymous', action: 'feedback.received', entityType: 'FeedbackEvent', entityId: event.id, details: { collection: event.collection } });
    return { ...(await this.deps.dispatch.execute({ event })), created };
  }
}
