import { AUDIT_USE_CASES } from './audits';
import { BulkReviewUseCase } from './bulk-review/bulk-review.use-case';
import { ClaimReviewItemUseCase } from './claim-review-item/claim-review-item.use-case';
import { PurgeQuarantineUseCase } from './purge-quarantine/purge-quarantine.use-case';
import { ListAuditLogUseCase } from './review-audit/review-audit.use-case';
import { GetReviewEventUseCase, ListReviewEventsUseCase } from './review-events/review-events.use-case';
import { ExportReviewUseCase } from './review-export/review-export.use-case';
import { GetReviewItemUseCase } from './review-items/get-review-item.use-case';
import { ListReviewItemsUseCase } from './review-items/list-review-items.use-case';
import { NextReviewItemUseCase, ReviewProgressUseCase } from './review-workflow/review-progress.use-case';
import { ReviewReasonsUseCase } from './review-workflow/review-reasons.use-case';
import { UndoReviewDecisionUseCase } from './review-workflow/undo-review-decision.use-case';
import { ApproveQuarantineUseCase } from './approve-quarantine/approve-quarantine.use-case';
import { AnswerQueryUseCase } from './answer-query/answer-query.use-case';
import { CheckHealthUseCase } from './check-health/check-health.use-case';
import { DeleteEnhancementUseCase } from './delete-enhancement/delete-enhancement.use-case';
import { DescribeCollectionUseCase } from './describe-collection/describe-collection.use-case';
import { DispatchTracebackUseCase } from './dispatch-traceback/dispatch-traceback.use-case';
import { ReconcilePendingFeedbackUseCase } from './dispatch-traceback/reconcile-pending-feedback.use-case';
import { EnhanceAnswerUseCase } from './enhance-answer/enhance-answer.use-case';
import { GetFeedbackUseCase } from './get-feedback/get-feedback.use-case';
import { IngestCorpusUseCase } from './ingest-corpus/ingest-corpus.use-case';
import { ListEnhancementsUseCase } from './list-enhancements/list-enhancements.use-case';
import { ListQuarantinesUseCase } from './list-quarantines/list-quarantines.use-case';
import { AnswerFeedbackUseCase } from './log-answer/answer-feedback.use-case';
import { LogAnswerUseCase } from './log-answer/log-answer.use-case';
import { MarkFeedbackFailedUseCase } from './mark-feedback-failed/mark-feedback-failed.use-case';
import { ListDeadLettersUseCase } from './list-dead-letters/list-dead-letters.use-case';
import { RedriveFeedbackUseCase } from './redrive-feedback/redrive-feedback.use-case';
import { ProcessFeedbackEventUseCase } from './process-feedback-event/process-feedback-event.use-case';
import { QuarantineTextUseCase } from './quarantine-text/quarantine-text.use-case';
import { RestoreQuarantineUseCase } from './restore-quarantine/restore-quarantine.use-case';
import { RunTracebackUseCase } from './run-traceback/run-traceback.use-case';
import { SubmitFeedbackUseCase } from './submit-feedback/submit-feedback.use-case';
import { SyncQuarantinesUseCase } from './sync-quarantines/sync-quarantines.use-case';
import { VerifyTracebackUseCase } from './verify-traceback/verify-traceback.use-case';
import { AuthenticateKeyUseCase, CreateApiKeyUseCase, ListApiKeysUseCase, RevokeApiKeyUseCase } from './manage-keys/manage-keys.use-case';
import { CreateUserUseCase, DisableUserUseCase, ListUsersUseCase } from './manage-users/manage-users.use-case';
import { CreateSessionUseCase, DestroySessionUseCase, ResolveSessionUseCase } from './sessions/sessions.use-case';
import {
  CreateWebhookUseCase, DeleteWebhookUseCase, DeliverWebhookUseCase, GetWebhookUseCase, ListWebhookDeliveriesUseCase, ListWebhooksUseCase, PublishWebhookEventUseCase,
  PingWebhookUseCase, RedeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase, RotateWebhookSecretUseCase, UpdateWebhookUseCase,
} from './webhooks';

export * from './audits';
export * from './bulk-review/bulk-review.use-case';
export * from './claim-review-item/claim-review-item.use-case';
export * from './purge-quarantine/purge-quarantine.use-case';
export * from './review-audit/review-audit.use-case';
export * from './review-decide/apply-decision';
export * from './review-events/review-events.use-case';
export * from './review-export/review-export.use-case';
export * from './review-items/get-review-item.use-case';
export * from './review-items/list-review-items.use-case';
export * from './review-items/review.schema';
export * from './review-items/review-view';
export * from './review-workflow/review-progress.use-case';
export * from './review-workflow/review-reasons.use-case';
export * from './review-workflow/undo-review-decision.use-case';
export * from './answer-query/answer-query.use-case';
export * from './approve-quarantine/approve-quarantine.use-case';
export * from './check-health/check-health.use-case';
export * from './delete-enhancement/delete-enhancement.use-case';
export * from './describe-collection/describe-collection.use-case';
export * from './dispatch-traceback/dispatch-traceback.use-case';
export * from './dispatch-traceback/reconcile-pending-feedback.use-case';
export * from './enhance-answer/enhance-answer.use-case';
export * from './get-feedback/get-feedback.use-case';
export * from './ingest-corpus/ingest-corpus.use-case';
export * from './list-enhancements/list-enhancements.use-case';
export * from './list-quarantines/list-quarantines.use-case';
export * from './log-answer/answer-feedback.use-case';
export * from './log-answer/log-answer.use-case';
export * from './mark-feedback-failed/mark-feedback-failed.use-case';
export * from './list-dead-letters/list-dead-letters.use-case';
export * from './list-dead-letters/dead-letters.schema';
export * from './redrive-feedback/redrive-feedback.use-case';
export * from './process-feedback-event/process-feedback-event.use-case';
export * from './quarantine-text/quarantine-text.use-case';
export * from './restore-quarantine/restore-quarantine.use-case';
export * from './run-traceback/collect-evidence';
export * from './run-traceback/run-traceback.use-case';
export * from './serving/serving-view';
export * from './submit-feedback/submit-feedback.use-case';
export * from './sync-quarantines/sync-quarantines.use-case';
export * from './verify-traceback/verify-traceback.use-case';
export * from './manage-keys';
export * from './manage-users';
export * from './sessions';
export * from './webhooks';

/** Every use case, for the composition root (each declares its dependencies in `static inject`). */
export const USE_CASES = [
  AnswerFeedbackUseCase, AnswerQueryUseCase, ApproveQuarantineUseCase, CheckHealthUseCase, DeleteEnhancementUseCase, DescribeCollectionUseCase,
  DispatchTracebackUseCase, EnhanceAnswerUseCase, GetFeedbackUseCase, IngestCorpusUseCase, ListEnhancementsUseCase, ListQuarantinesUseCase,
  LogAnswerUseCase, MarkFeedbackFailedUseCase, ProcessFeedbackEventUseCase, QuarantineTextUseCase, ReconcilePendingFeedbackUseCase, RestoreQuarantineUseCase, RunTracebackUseCase,
  SubmitFeedbackUseCase, SyncQuarantinesUseCase, VerifyTracebackUseCase,
  AuthenticateKeyUseCase, CreateApiKeyUseCase, ListApiKeysUseCase, RevokeApiKeyUseCase,
  CreateUserUseCase, DisableUserUseCase, ListUsersUseCase,
  CreateSessionUseCase, DestroySessionUseCase, ResolveSessionUseCase,
  CreateWebhookUseCase, DeleteWebhookUseCase, DeliverWebhookUseCase, GetWebhookUseCase, ListWebhookDeliveriesUseCase, ListWebhooksUseCase, PublishWebhookEventUseCase,
  PingWebhookUseCase, RedeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase, RotateWebhookSecretUseCase, UpdateWebhookUseCase,
  BulkReviewUseCase, ClaimReviewItemUseCase, ExportReviewUseCase, GetReviewEventUseCase, GetReviewItemUseCase, ListAuditLogUseCase, ListReviewEventsUseCase, ListReviewItemsUseCase, PurgeQuarantineUseCase,
  NextReviewItemUseCase, ReviewProgressUseCase, ReviewReasonsUseCase, UndoReviewDecisionUseCase,
  ListDeadLettersUseCase, RedriveFeedbackUseCase,
  ...AUDIT_USE_CASES,
] as const;
