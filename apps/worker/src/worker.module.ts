import { Processor } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AUDIT_QUEUE_NAME, CoreModule, MAINTENANCE_QUEUE_NAME, TRACEBACK_QUEUE_NAME, WEBHOOK_QUEUE_NAME, type AppConfig } from '@forensics/infra';
import { FeedbackSweeper } from './feedback-sweeper';
import { JobLocks, jobLockOptions } from './job-locks';
import { WorkerDrain } from './worker-drain';
import { WorkerMetrics } from './worker-metrics';
import { AuditProcessor } from './processors/audit.processor';
import { MaintenanceProcessor } from './processors/maintenance.processor';
import { TracebackProcessor } from './processors/traceback.processor';
import { WebhookDeliveryProcessor } from './processors/webhook-delivery.processor';
import { webhookBackoffStrategy } from './processors/webhook-retry';
import { AuditSchedules, WebhookOutboxSweep } from './recurring-jobs';

/**
 * The worker: @nestjs/bullmq runs TracebackProcessor on the traceback queue and MaintenanceProcessor
 * (the reconciler, fired by a job scheduler) on the maintenance queue; FeedbackSweeper does the
 * start-up housekeeping and registers that scheduler; AuditSchedules and WebhookOutboxSweep (recurring-jobs.ts)
 * register the audit schedules and the webhook outbox sweep; JobLocks and WorkerDrain (job-locks.ts,
 * worker-drain.ts) the jobs' locks and the graceful stop. `infrastructure` is the process's one InfrastructureModule.forRoot(config).
 */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, infrastructure: DynamicModule): DynamicModule {
    // Worker options come from configuration, so they are attached to a per-module subclass
    // (the @Processor decorator is static metadata on its class). Every processor gets the same lock and
    // stall options (job-locks.ts: a Redis pause shorter than WORKER_LOCK_MS − 5 s re-runs no job).
    const locks = jobLockOptions(config.queue.lockMs);
    class ConfiguredTracebackProcessor extends TracebackProcessor {}
    Processor(TRACEBACK_QUEUE_NAME, { concurrency: config.queue.workerConcurrency, ...locks, maxStalledCount: 3 })(ConfiguredTracebackProcessor);
    class ConfiguredMaintenanceProcessor extends MaintenanceProcessor {}
    Processor(MAINTENANCE_QUEUE_NAME, { concurrency: 1, ...locks })(ConfiguredMaintenanceProcessor);
    // Webhook deliveries (issue 14): several receivers may be slow (each attempt bounded by WEBHOOK_TIMEOUT_MS); jittered exponential backoff.
    class ConfiguredWebhookProcessor extends WebhookDeliveryProcessor {}
    Processor(WEBHOOK_QUEUE_NAME, { concurrency: 4, ...locks, settings: { backoffStrategy: webhookBackoffStrategy(config.webhooks.backoffMs) } })(ConfiguredWebhookProcessor);
    // Database audits (issue 12): long background runs, resumed from their checkpoint when retried.
    class ConfiguredAuditProcessor extends AuditProcessor {}
    Processor(AUDIT_QUEUE_NAME, { concurrency: config.audits.concurrency, ...locks, maxStalledCount: 5 })(ConfiguredAuditProcessor);
    return {
      module: WorkerModule,
      imports: [infrastructure, CoreModule, DiscoveryModule],
      // WorkerMetrics: queue wait / processing times of every processor, and WORKER_METRICS_PORT.
      // JobLocks: what a Redis pause did to the jobs' locks, in words; WorkerDrain: the stop on SIGTERM (main.ts).
      providers: [ConfiguredTracebackProcessor, ConfiguredMaintenanceProcessor, ConfiguredWebhookProcessor, ConfiguredAuditProcessor, FeedbackSweeper, WorkerMetrics, JobLocks, WorkerDrain, AuditSchedules, WebhookOutboxSweep],
    };
  }
}
