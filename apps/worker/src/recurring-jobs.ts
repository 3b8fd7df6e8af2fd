import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import {
  APP_CONFIG, AUDIT_QUEUE_NAME, AUDIT_SCHEDULED_JOB, auditSchedulerId, RecurringJob, REDIS_CONNECTION, WEBHOOK_QUEUE_NAME, WEBHOOK_REDRIVE_JOB,
  WEBHOOK_REDRIVE_SCHEDULER_ID, type AppConfig,
} from '@forensics/infra';

/** Starts recurring jobs when the application has booted and stops them on shutdown. */
abstract class RecurringJobs implements OnApplicationBootstrap, OnModuleDestroy {
  protected jobs: RecurringJob[] = [];

  async onApplicationBootstrap(): Promise<void> {
    for (const j of this.jobs) await j.start();
  }

  onModuleDestroy(): void {
    for (const j of this.jobs) j.stop();
  }
}

/**
 * The audit schedules of AUDIT_SCHEDULE: one BullMQ job scheduler per (kind, collection) on the
 * `audits` queue — id `audit-<kind>-<collection>`, so registering it again (a restart, a second
 * worker) updates it and each tick adds one job whatever the number of workers; registered at start
 * and again whenever Redis becomes ready. The ticks are run by AuditProcessor.
 */
@Injectable()
export class AuditSchedules extends RecurringJobs {
  private readonly log = new Logger('audits');

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectQueue(AUDIT_QUEUE_NAME) queue: Queue, @Inject(REDIS_CONNECTION) redis: IORedis) {
    super();
    this.jobs = config.audits.schedules.map((s) => {
      const collection = s.collection ?? config.defaultCollection;
      return new RecurringJob(queue, redis, {
        schedulerId: auditSchedulerId(s.kind, collection), jobName: AUDIT_SCHEDULED_JOB, cron: s.cron, data: { kind: s.kind, collection },
        what: `the ${s.kind} audit of '${collection}'`,
      }, (m) => this.log.warn(m));
    });
  }
}

/**
 * The webhook outbox sweep: a job scheduler (one id) on the `webhooks` queue every SWEEP_EVERY_MS; its
 * jobs (WebhookDeliveryProcessor) enqueue PENDING deliveries that have no live job.
 */
@Injectable()
export class WebhookOutboxSweep extends RecurringJobs {
  private readonly log = new Logger('webhooks');

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectQueue(WEBHOOK_QUEUE_NAME) queue: Queue, @Inject(REDIS_CONNECTION) redis: IORedis) {
    super();
    this.jobs = [new RecurringJob(queue, redis, {
      schedulerId: WEBHOOK_REDRIVE_SCHEDULER_ID, jobName: WEBHOOK_REDRIVE_JOB, everyMs: config.queue.sweepEveryMs, what: 'the webhook sweep',
    }, (m) => this.log.warn(m))];
  }
}
