import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { EVERY_COLLECTION } from '@forensics/core';
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
 * `audits` queue — id `audit-<kind>-<collection>`, `audit-<kind>-*` for an entry without a collection
 * (every collection, EVERY_COLLECTION), so registering it again (a restart, a second worker) updates it
 * and each tick adds one job whatever the number of workers; registered at start and again whenever
 * Redis becomes ready. The ticks are run by AuditProcessor.
 *
 * Job schedulers live in Redis, so an entry taken out of AUDIT_SCHEDULE (or the whole setting set to
 * `none`) would keep ticking for good: at start and on every `ready`, the schedulers this setting made
 * (their data says `source: AUDIT_SCHEDULE`) that it no longer lists are removed, and so are those an
 * older worker made from it (data of only kind and collection: the API's always carry `params`), such
 * as `audit-reconcile-default`, which an entry without a collection used to mean. Schedules set over
 * the API are left alone.
 */
@Injectable()
export class AuditSchedules extends RecurringJobs {
  private readonly log = new Logger('audits');
  private readonly configured: Set<string>;
  private readonly onReady = () => void this.prune();

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectQueue(AUDIT_QUEUE_NAME) private readonly queue: Queue, @Inject(REDIS_CONNECTION) private readonly redis: IORedis) {
    super();
    this.jobs = config.audits.schedules.map((s) => {
      const collection = s.collection ?? EVERY_COLLECTION;
      return new RecurringJob(queue, redis, {
        schedulerId: auditSchedulerId(s.kind, collection), jobName: AUDIT_SCHEDULED_JOB, cron: s.cron,
        data: { kind: s.kind, collection, source: 'AUDIT_SCHEDULE', entry: s.entry },
        what: collection === EVERY_COLLECTION ? `the ${s.kind} audit of every collection` : `the ${s.kind} audit of '${collection}'`,
      }, (m) => this.log.warn(m));
    });
    this.configured = new Set(config.audits.schedules.map((s) => auditSchedulerId(s.kind, s.collection ?? EVERY_COLLECTION)));
  }

  override async onApplicationBootstrap(): Promise<void> {
    await this.prune();
    this.redis.on('ready', this.onReady);
    await super.onApplicationBootstrap();
  }

  override onModuleDestroy(): void {
    this.redis.off('ready', this.onReady);
    super.onModuleDestroy();
  }

  /** Removes the schedulers AUDIT_SCHEDULE made and no longer lists; failures are logged (the next `ready` tries again). */
  private async prune(): Promise<void> {
    try {
      for (const s of await this.queue.getJobSchedulers(0, -1, true)) {
        const id = s.key ?? s.id;
        if (s.name !== AUDIT_SCHEDULED_JOB || !id || this.configured.has(id)) continue;
        const data = (s.template?.data ?? {}) as { source?: string; params?: unknown; entry?: string };
        const fromSetting = data.source === 'AUDIT_SCHEDULE' || (data.source === undefined && data.params === undefined);
        if (!fromSetting) continue;
        if (await this.queue.removeJobScheduler(id)) this.log.log(`audit schedule ${id}${data.entry ? ` ('${data.entry}')` : ''} removed: AUDIT_SCHEDULE no longer lists it`);
      }
    } catch (e) {
      this.log.warn(`could not remove the audit schedules AUDIT_SCHEDULE no longer lists (tried again when Redis is ready): ${(e as Error).message}`);
    }
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
