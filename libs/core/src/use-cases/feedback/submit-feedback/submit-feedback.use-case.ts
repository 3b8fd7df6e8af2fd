import { ConflictError, echoInput, NotFoundError, ValidationError } from '../../../domain/errors';
import { parseRequest } from '../../../domain/request-schema';
import { stripReservedMarkers } from '../../../domain/text-identity';
import type { AuditLogRepository, DocumentRepository, FeedbackEventRepository, FeedbackRow, NewFeedback } from '../../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, FEEDBACK_EVENTS } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { DispatchTracebackUseCase } from '../dispatch-traceback/dispatch-traceback.use-case';
import { FEEDBACK_LIMITS, SubmitFeedbackRequest } from './submit-feedback.schema';
import { feedbackReportKey } from './report-key';

/** A feedback payload as received; `k` falls back to the configured default. */
export type SubmitFeedbackCommand = Omit<NewFeedback, 'k' | 'answerId'> & { k?: number };

export { FEEDBACK_LIMITS };

/** Checks a feedback payload; every problem is listed so the API can answer one clear 400. */
export function validateFeedback(input: unknown, defaultCollection: string): SubmitFeedbackCommand {
  const b = parseRequest(SubmitFeedbackRequest, input);
  return { collection: b.collection ?? defaultCollection, query: b.query, wrongAnswer: b.wrongAnswer, correctAnswer: b.correctAnswer ?? null, servedIds: b.servedIds, reporter: b.reporter ?? null, k: b.k };
}

export interface SubmitFeedbackDeps {
  documents: DocumentRepository; feedback: FeedbackEventRepository; audit: AuditLogRepository; dispatch: DispatchTracebackUseCase; settings: CoreSettings;
}

/**
 * Persists a feedback event BEFORE acknowledging it (written as QUEUED), then adds its traceback
 * job. If enqueueing fails the event goes back to RECEIVED and the worker's reconciler enqueues it
 * later: nothing acknowledged is ever lost.
 */
export class SubmitFeedbackUseCase {
  static readonly inject: InjectMap<SubmitFeedbackDeps> = { documents: DOCUMENTS, feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, dispatch: DispatchTracebackUseCase, settings: CORE_SETTINGS };
  constructor(private readonly deps: SubmitFeedbackDeps) {}

  async execute(cmd: SubmitFeedbackCommand): Promise<{ event: FeedbackRow; created: boolean; queued: boolean }> {
    const { documents, feedback } = this.deps;
    if (!(await documents.getCollection(cmd.collection))) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown: ingest texts into it first`);
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
      // Reporter trust (issue 13): the API sets it from the credentials, never from the body; in-process
      // callers that pass none (the eval harness, the CLI) are the operator's own code: identified.
      trust: cmd.trust ?? 'identified', reporterSource: cmd.reporterSource ?? null, reportKey: feedbackReportKey(clean(cmd.query)!, clean(cmd.wrongAnswer)!),
      // Written as QUEUED, its job added right after (dispatchNew): one write per report.
      status: 'QUEUED',
    });
    if (!created) {
      if (event.query !== clean(cmd.query) || event.wrongAnswer !== clean(cmd.wrongAnswer) || event.collection !== cmd.collection) {
        throw new ConflictError('Idempotency-Key was already used for a different feedback');
      }
      return { event, created, queued: event.status !== 'RECEIVED' };
    }
    // The audit entry and the job side by side (one round trip less per report); either failing answers
    // 5xx with the event persisted, and the reconciler gives it a job if it has none.
    const [, dispatched] = await Promise.all([
      this.deps.audit.append({ actor: cmd.reporter ?? 'anonymous', action: 'feedback.received', entityType: 'FeedbackEvent', entityId: event.id, details: { collection: event.collection } }),
      this.deps.dispatch.dispatchNew({ event }),
    ]);
    return { ...dispatched, created };
  }
}
