import { ConflictError, echoInput, NotFoundError } from '../../../domain/errors';
import { parseRequest } from '../../../domain/request-schema';
import { stripReservedMarkers } from '../../../domain/text-identity';
import type { AnswerRepository, AuditLogRepository, DocumentRepository, FeedbackEventRepository, FeedbackRow } from '../../../ports/repositories';
import { ANSWERS, AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, FEEDBACK_EVENTS } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { DispatchTracebackUseCase } from '../../feedback/dispatch-traceback/dispatch-traceback.use-case';
import { AnswerFeedbackRequest } from './answer-feedback.schema';
import { feedbackReportKey } from '../../feedback/submit-feedback/report-key';

/** What a browser holding a feedback token may send: everything else comes from the logged answer. */
export interface AnswerFeedbackInput {
  correctAnswer?: string | null;
  /** Defaults to the logged answer's text. */
  wrongAnswer?: string | null;
  reporter?: string | null;
}

export interface AnswerFeedbackCommand extends AnswerFeedbackInput {
  /** From the verified token, never from the body. */
  answerId: string;
  /** Who reported, for corroboration and caps (issue 13): the client address's hash, set by the API. A token report is always `anonymous`. */
  reporterSource?: string | null;
}

export interface AnswerFeedbackResult {
  event: FeedbackRow;
  /** false: this answer already had its feedback event (one token → at most one event). */
  created: boolean;
  queued: boolean;
  /** Served ids left out of the event because the texts were purged since the answer was served. */
  droppedServedIds: string[];
}

/** Checks the body of a token-authenticated POST /v1/feedback (absent body = `{}`); every problem is listed. */
export function validateAnswerFeedback(input: unknown): AnswerFeedbackInput {
  const { correctAnswer, wrongAnswer, reporter } = parseRequest(AnswerFeedbackRequest, input ?? {});
  return { correctAnswer, wrongAnswer, reporter };
}

/**
 * Feedback on a logged answer, authorised by its feedback token. The event's collection, query,
 * wrong answer (unless the user gives one) and served ids come from the answer log, so the
 * traceback judges the served texts first. One answer → at most one event: a repeat returns the
 * existing event (created=false); concurrent first posts are settled by the unique answer id.
 * Served texts purged since are dropped from servedIds and reported back. `[LATEST]` markers are
 * stripped from every user field. The event is persisted before it is acknowledged, then enqueued.
 */
export interface AnswerFeedbackDeps {
  answers: AnswerRepository; documents: DocumentRepository; feedback: FeedbackEventRepository; audit: AuditLogRepository; dispatch: DispatchTracebackUseCase; settings: CoreSettings;
}

export class AnswerFeedbackUseCase {
  static readonly inject: InjectMap<AnswerFeedbackDeps> = {
    answers: ANSWERS, documents: DOCUMENTS, feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, dispatch: DispatchTracebackUseCase, settings: CORE_SETTINGS,
  };
  constructor(private readonly deps: AnswerFeedbackDeps) {}

  async execute(cmd: AnswerFeedbackCommand): Promise<AnswerFeedbackResult> {
    const { answers, documents, feedback } = this.deps;
    const answer = await answers.get(cmd.answerId);
    if (!answer) throw new NotFoundError(`answer ${echoInput(cmd.answerId)} does not exist`);
    const existing = await feedback.findByAnswer(answer.id);
    if (existing) return { event: existing, created: false, queued: existing.status !== 'RECEIVED', droppedServedIds: dropped(answer.servedIds, existing.servedIds) };

    // Keep served ids that are still texts of the collection (active or quarantined); purged or
    // vanished ones are dropped. Retrieval proxies are not documents: they are dropped too (the
    // traceback judges documents only).
    const live = new Set(
      (await documents.get(answer.servedIds)).filter((d) => d.collection === answer.collection && d.status !== 'PURGED').map((d) => d.id),
    );
    const servedIds = answer.servedIds.filter((id) => live.has(id));
    const clean = (s: string | null | undefined) => (s === null || s === undefined ? null : stripReservedMarkers(s).trim() || null);
    const wrongAnswer = clean(cmd.wrongAnswer) ?? (stripReservedMarkers(answer.answer).trim() || answer.answer);
    let event: FeedbackRow;
    let created: boolean;
    try {
      ({ event, created } = await feedback.create({
        collection: answer.collection,
        query: answer.query,
        wrongAnswer,
        correctAnswer: clean(cmd.correctAnswer),
        servedIds,
        reporter: clean(cmd.reporter),
        // The repository settles concurrent duplicates by idempotency key; the answer id's own
        // unique index is the second guard.
        idempotencyKey: `answer:${answer.id}`,
        k: this.deps.settings.defaultK,
        answerId: answer.id,
        trust: 'anonymous', reporterSource: cmd.reporterSource ?? null, reportKey: feedbackReportKey(answer.query, wrongAnswer),
        // Written as QUEUED, its job added right after (dispatchNew): one write per report.
        status: 'QUEUED',
      }));
    } catch (e) {
      const winner = await feedback.findByAnswer(answer.id);
      if (!winner) throw e;
      ({ event, created } = { event: winner, created: false });
    }
    if (event.answerId !== answer.id) throw new ConflictError(`idempotency key answer:${answer.id} belongs to another feedback event`);
    if (!created) return { event, created, queued: event.status !== 'RECEIVED', droppedServedIds: dropped(answer.servedIds, event.servedIds) };

    const droppedServedIds = dropped(answer.servedIds, servedIds);
    // The audit entry and the job side by side (one round trip less per report). Not queued (Redis
    // down): the event goes back to RECEIVED and the worker's reconciler dispatches it later.
    const [, dispatched] = await Promise.all([
      // The actor is the token: the name its holder typed proves nothing (issue 56, item 5), kept as the self-declared reporter.
      this.deps.audit.append({
        actor: 'feedback-token', action: 'feedback.received', entityType: 'FeedbackEvent', entityId: event.id,
        details: { collection: event.collection, answerId: answer.id, via: 'feedback-token', ...(event.reporter ? { reporter: event.reporter, reporterKind: 'self-declared' } : {}) },
      }),
      this.deps.dispatch.dispatchNew({ event }),
    ]);
    return { ...dispatched, created, droppedServedIds };
  }
}

function dropped(served: readonly string[], kept: readonly string[]): string[] {
  const k = new Set(kept);
  return served.filter((id) => !k.has(id));
}
