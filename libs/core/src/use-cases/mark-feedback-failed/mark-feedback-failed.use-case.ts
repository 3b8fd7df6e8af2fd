import { PENDING_STATUSES } from '../../domain/feedback-status';
import type { AuditLogRepository, FeedbackEventRepository, FeedbackRow } from '../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, FEEDBACK_EVENTS } from '../../ports/tokens';
import type { CoreSettings } from '../../settings';
import type { InjectMap } from '../../use-case';

export interface MarkFeedbackFailedDeps { feedback: FeedbackEventRepository; audit: AuditLogRepository; settings: CoreSettings }

/** After the last attempt (or a permanent error): a pending event becomes FAILED with the reason, audited. */
export class MarkFeedbackFailedUseCase {
  static readonly inject: InjectMap<MarkFeedbackFailedDeps> = { feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, settings: CORE_SETTINGS };
  constructor(private readonly deps: MarkFeedbackFailedDeps) {}

  /** Returns the failed event, or null when it was already terminal (or unknown): nothing written then. */
  async execute(cmd: { feedbackId: string; reason: string; attempts: number }): Promise<FeedbackRow | null> {
    const reason = cmd.reason.slice(0, 2000);
    const failed = await this.deps.feedback.transition(cmd.feedbackId, { from: PENDING_STATUSES, to: 'FAILED', set: { failureReason: reason } });
    if (failed) await this.deps.audit.append({ actor: this.deps.settings.workerActor, action: 'traceback.failed', entityType: 'FeedbackEvent', entityId: cmd.feedbackId, details: { reason, attempts: cmd.attempts } });
    return failed;
  }
}
