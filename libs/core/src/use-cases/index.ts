import { NextReviewItemUseCase, ReviewProgressUseCase } from './quarantine/review/review-workflow/review-progress.use-case';
import { ReviewReasonsUseCase } from './quarantine/review/review-workflow/review-reasons.use-case';
import { UndoReviewDecisionUseCase } from './quarantine/review/review-workflow/undo-review-decision.use-case';
import { RedactReviewItemUseCase } from './quarantine/review/redact-review-item/redact-review-item.use-case';
import { AUDIT_USE_CASES } from './audits';
import { BulkReviewUseCase } from './quarantine/review/bulk-review/bulk-review.use-case';
import { ClaimReviewItemUseCase } from './quarantine/review/claim-review-item/claim-review-item.use-case';
import { PurgeQuarantineUseCase } from './quarantine/purge-quarantine/purge-quarantine.use-case';
import { ListAuditLogUseCase } from './quarantine/review/review-audit/review-audit.use-case';
import { GetReviewEventUseCase, ListReviewEventsUseCase } from './quarantine/review/review-events/review-events.use-case';
import { ExportReviewUseCase } from './quarantine/review/review-export/review-export.use-case';
import { GetReviewItemUseCase } from './quarantine/review/review-items/get-review-item.use-case';
import { ListReviewItemsUseCase } from './quarantine/review/review-items/list-review-items.use-case';
import { ApproveQuarantineUseCase } from './quarantine/approve-quarantine/approve-quarantine.use-case';
import { AnswerQueryUseCase } from './serving/answer-query/answer-query.use-case';
import { CheckServingUseCase } from './serving/check-serving/check-serving.use-case';
import { CheckHealthUseCase } from './health/check-health/check-health.use-case';
import { DeleteEnhancementUseCase } from './serving/delete-enhancement/delete-enhancement.use-case';
import { ApproveEnhancementUseCase } from './serving/approve-enhancement/approve-enhancement.use-case';
import { DescribeCollectionUseCase } from './collections/describe-collection/describe-collection.use-case';
import { VetCollectionUseCase } from './collections/vet-collection/vet-collection.use-case';
import { ListCollectionsUseCase } from './collections/list-collections/list-collections.use-case';
import { DispatchTracebackUseCase } from './feedback/dispatch-traceback/dispatch-traceback.use-case';
import { ReconcilePendingFeedbackUseCase } from './feedback/dispatch-traceback/reconcile-pending-feedback.use-case';
import { EnhanceAnswerUseCase } from './serving/enhance-answer/enhance-answer.use-case';
import { GetFeedbackUseCase } from './feedback/get-feedback/get-feedback.use-case';
import { IngestCorpusUseCase } from './collections/ingest-corpus/ingest-corpus.use-case';
import { ListEnhancementsUseCase } from './serving/list-enhancements/list-enhancements.use-case';
import { ListQuarantinesUseCase } from './quarantine/list-quarantines/list-quarantines.use-case';
import { AnswerFeedbackUseCase } from './serving/log-answer/answer-feedback.use-case';
import { LogAnswerUseCase } from './serving/log-answer/log-answer.use-case';
import { MarkFeedbackFailedUseCase } from './feedback/mark-feedback-failed/mark-feedback-failed.use-case';
import { ListDeadLettersUseCase } from './feedback/list-dead-letters/list-dead-letters.use-case';
import { RedriveFeedbackUseCase } from './feedback/redrive-feedback/redrive-feedback.use-case';
import { ProcessFeedbackEventUseCase } from './feedback/process-feedback-event/process-feedback-event.use-case';
import { QuarantineTextUseCase } from './quarantine/quarantine-text/quarantine-text.use-case';
import { RestoreQuarantineUseCase } from './quarantine/restore-quarantine/restore-quarantine.use-case';
import { RunTracebackUseCase } from './traceback/run-traceback/run-traceback.use-case';
import { SubmitFeedbackUseCase } from './feedback/submit-feedback/submit-feedback.use-case';
import { SyncQuarantinesUseCase } from './quarantine/sync-quarantines/sync-quarantines.use-case';
import { VerifyTracebackUseCase } from './traceback/verify-traceback/verify-traceback.use-case';
import { AuthenticateKeyUseCase, CreateApiKeyUseCase, ListApiKeysUseCase, RevokeApiKeyUseCase } from './identity/manage-keys/manage-keys.use-case';
import { CreateUserUseCase, DisableUserUseCase, ListUsersUseCase } from './identity/manage-users/manage-users.use-case';
import { CreateSessionUseCase, DestroySessionUseCase, ResolveSessionUseCase } from './identity/sessions/sessions.use-case';
import {
  CreateWebhookUseCase, DeleteWebhookUseCase, DeliverWebhookUseCase, GetWebhookUseCase, ListWebhookDeliveriesUseCase, ListWebhooksUseCase, PublishWebhookEventUseCase,
  PingWebhookUseCase, RedeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase, RotateWebhookSecretUseCase, UpdateWebhookUseCase,
} from './webhooks';

export * from './quarantine/review/review-workflow/review-progress.use-case';
export * from './quarantine/review/review-workflow/review-reasons.use-case';
export * from './quarantine/review/review-workflow/undo-review-decision.use-case';
export * from './audits';
export * from './quarantine/review/bulk-review/bulk-review.use-case';
export * from './quarantine/review/claim-review-item/claim-review-item.use-case';
export * from './quarantine/purge-quarantine/purge-quarantine.use-case';
export * from './quarantine/review/review-audit/review-audit.use-case';
export * from './quarantine/review/review-decide/apply-decision';
export * from './quarantine/review/review-events/review-events.use-case';
export * from './quarantine/review/review-export/review-export.use-case';
export * from './quarantine/review/review-items/get-review-item.use-case';
export * from './quarantine/review/review-items/list-review-items.use-case';
export * from './quarantine/review/review-items/review.schema';
export * from './quarantine/review/review-items/review-view';
export * from './quarantine/review/review-items/locate-claim';
export * from './quarantine/review/redact-review-item/redact-review-item.use-case';
export * from './serving/answer-query/answer-query.use-case';
export * from './serving/check-serving/check-serving.use-case';
export * from './quarantine/approve-quarantine/approve-quarantine.use-case';
export * from './health/check-health/check-health.use-case';
export * from './serving/delete-enhancement/delete-enhancement.use-case';
export * from './serving/approve-enhancement/approve-enhancement.use-case';
export * from './collections/describe-collection/describe-collection.use-case';
export * from './collections/vet-collection/vet-collection.use-case';
export * from './collections/list-collections/list-collections.use-case';
export * from './feedback/dispatch-traceback/dispatch-traceback.use-case';
export * from './feedback/dispatch-traceback/reconcile-pending-feedback.use-case';
export * from './serving/enhance-answer/enhance-answer.use-case';
export * from './feedback/get-feedback/get-feedback.use-case';
export * from './collections/ingest-corpus/ingest-corpus.use-case';
export * from './serving/list-enhancements/list-enhancements.use-case';
export * from './quarantine/list-quarantines/list-quarantines.use-case';
export * from './serving/log-answer/answer-feedback.use-case';
export * from './serving/log-answer/log-answer.use-case';
export * from './feedback/mark-feedback-failed/mark-feedback-failed.use-case';
export * from './feedback/list-dead-letters/list-dead-letters.use-case';
export * from './feedback/list-dead-letters/dead-letters.schema';
export * from './feedback/redrive-feedback/redrive-feedback.use-case';
export * from './feedback/process-feedback-event/process-feedback-event.use-case';
export * from './quarantine/quarantine-text/quarantine-text.use-case';
export * from './quarantine/restore-quarantine/restore-quarantine.use-case';
export * from './traceback/run-traceback/collect-evidence';
export * from './traceback/run-traceback/run-traceback.use-case';
export * from './serving/serving-view/serving-view';
export * from './feedback/submit-feedback/submit-feedback.use-case';
export * from './quarantine/sync-quarantines/sync-quarantines.use-case';
export * from './traceback/verify-traceback/verify-traceback.use-case';
export * from './identity/manage-keys';
export * from './identity/manage-users';
export * from './identity/sessions';
export * from './webhooks';

/** Every use case, for the composition root (each declares its dependencies in `static inject`). */
export const USE_CASES = [
  AnswerFeedbackUseCase, AnswerQueryUseCase, ApproveQuarantineUseCase, CheckHealthUseCase, CheckServingUseCase, DeleteEnhancementUseCase, ApproveEnhancementUseCase, DescribeCollectionUseCase,
  DispatchTracebackUseCase, EnhanceAnswerUseCase, GetFeedbackUseCase, IngestCorpusUseCase, ListEnhancementsUseCase, ListQuarantinesUseCase,
  LogAnswerUseCase, MarkFeedbackFailedUseCase, ProcessFeedbackEventUseCase, QuarantineTextUseCase, ReconcilePendingFeedbackUseCase, RestoreQuarantineUseCase, RunTracebackUseCase,
  SubmitFeedbackUseCase, SyncQuarantinesUseCase, VerifyTracebackUseCase, VetCollectionUseCase, ListCollectionsUseCase,
  AuthenticateKeyUseCase, CreateApiKeyUseCase, ListApiKeysUseCase, RevokeApiKeyUseCase,
  CreateUserUseCase, DisableUserUseCase, ListUsersUseCase,
  CreateSessionUseCase, DestroySessionUseCase, ResolveSessionUseCase,
  CreateWebhookUseCase, DeleteWebhookUseCase, DeliverWebhookUseCase, GetWebhookUseCase, ListWebhookDeliveriesUseCase, ListWebhooksUseCase, PublishWebhookEventUseCase,
  PingWebhookUseCase, RedeliverWebhookUseCase, RedriveWebhookDeliveriesUseCase, RotateWebhookSecretUseCase, UpdateWebhookUseCase,
  BulkReviewUseCase, ClaimReviewItemUseCase, ExportReviewUseCase, GetReviewEventUseCase, GetReviewItemUseCase, ListAuditLogUseCase, ListReviewEventsUseCase, ListReviewItemsUseCase, PurgeQuarantineUseCase,
  ListDeadLettersUseCase, RedriveFeedbackUseCase,
  NextReviewItemUseCase, ReviewProgressUseCase, ReviewReasonsUseCase, UndoReviewDecisionUseCase, RedactReviewItemUseCase,
  ...AUDIT_USE_CASES,
] as const;
