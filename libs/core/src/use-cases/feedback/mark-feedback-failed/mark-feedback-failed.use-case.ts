import { PENDING_STATUSES } from '../../../domain/feedback-status';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import { publicFailureReason } from '../get-feedback/public-failure-reason';
import type { AuditLogRepository, FeedbackEventRepository, FeedbackRow } from '../../../ports/repositories';
import { AUDIT_LOG, CORE_SETTINGS, DOMAIN_EVENTS, FEEDBACK_EVENTS } from '../../../ports/tokens';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';

export interface MarkFeedbackFailedDeps { feedback: FeedbackEventRepository; audit: AuditLogRepository; settings: CoreSettings; events: DomainEventPublisher }

/** After the last attempt (or a permanent error): a pending event becomes FAILED with the reason, audited. */
export class MarkFeedbackFailedUseCase {
  static readonly inject: InjectMap<MarkFeedbackFailedDeps> = { feedback: FEEDBACK_EVENTS, audit: AUDIT_LOG, settings: CORE_SETTINGS, events: DOMAIN_EVENTS };
  constructor(private readonly deps: MarkFeedbackFailedDeps) {}

  /** Returns the failed event, or null when it was already terminal (or unknown): nothing written then. */
  async execute(cmd: { feedbackId: string; reason: string; attempts: number }): Promise<FeedbackRow | null> {
    const reason = cmd.reason.slice(0, 2000);
    const failed = await this.deps.feedback.transition(cmd.feedbackId, { from: PENDING_STATUSES, to: 'FAILED', set: { failureReason: reason } });
    if (failed) await this.deps.audit.append({ actor: this.deps.settings.workerActor, action: 'traceback.failed', entityType: 'FeedbackEvent', entityId: cmd.feedbackId, details: { reason, attempts: cmd.attempts } });
    if (failed) {
      // The sanitised reason (first line, no paths), as GET /v1/feedback/:id shows it.
      await this.deps.events.publish({ type: 'feedback.failed', data: { feedbackId: failed.id, collection: failed.collection, attempts: cmd.attempts, reason: publicFailureReason(reason).reason } });
    }
    return failed;
  }
}
