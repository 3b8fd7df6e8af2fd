import { InjectQueue, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { z } from 'zod';
import { AUDIT_KINDS, RunAuditUseCase, StartAuditUseCase, ValidationError, type AuditKind } from '@forensics/core';
import {
  APP_CONFIG, AUDIT_QUEUE_NAME, AUDIT_RUN_JOB, AUDIT_SCHEDULED_JOB, auditSchedulerId, RecurringJob, REDIS_CONNECTION, withLogContext, type AppConfig, type AuditJobData,
} from '@forensics/infra';

const RunPayload = z.object({ runId: z.uuid() });
const ScheduledPayload = z.object({ kind: z.enum(AUDIT_KINDS as unknown as [AuditKind, ...AuditKind[]]), collection: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() });

/**
 * The `audits` queue (issue 12):
 *  - `AuditRun` jobs (one per run, jobId audit-<runId>): RunAuditUseCase. A worker killed mid-run
 *    leaves its job to be retried (stalled-job detection, attempts with backoff); the handler resumes
 *    from the run's last checkpoint. On the last attempt a failure marks the run FAILED.
 *  - `ScheduledAudit` jobs, added by one BullMQ job scheduler per (kind, collection) — id
 *    `audit-<kind>-<collection>`, so registering it again (a restart, a second worker) updates it and
 *    each tick adds one job whatever the number of workers. The tick creates a run record and queues
 *    it as an `AuditRun` job (so a scheduled run is resumable like any other).
 * Schedules come from AUDIT_SCHEDULE (registered at start and again whenever Redis becomes ready) and
 * from the API (PUT /v1/audits/schedules/:kind, kept by BullMQ in Redis).
 */
@Injectable()
export class AuditProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('audits');
  private readonly schedules: RecurringJob[];

  constructor(
    @Inject(RunAuditUseCase) private readonly runAudit: RunAuditUseCase,
    @Inject(StartAuditUseCase) private readonly startAudit: StartAuditUseCase,
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectQueue(AUDIT_QUEUE_NAME) queue: Queue,
    @Inject(REDIS_CONNECTION) redis: IORedis,
  ) {
    super();
    this.schedules = config.audits.schedules.map((s) => {
      const collection = s.collection ?? config.defaultCollection;
      return new RecurringJob(queue, redis, {
        schedulerId: auditSchedulerId(s.kind, collection), jobName: AUDIT_SCHEDULED_JOB, cron: s.cron, data: { kind: s.kind, collection },
        what: `the ${s.kind} audit of '${collection}'`,
      }, (m) => this.log.warn(m));
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const s of this.schedules) await s.start();
  }

  onModuleDestroy(): void {
    for (const s of this.schedules) s.stop();
  }

  async process(job: Job<AuditJobData>): Promise<unknown> {
    return withLogContext({ jobId: job.id }, () => (job.name === AUDIT_SCHEDULED_JOB ? this.tick(job) : this.run(job)));
  }

  private async tick(job: Job<AuditJobData>): Promise<unknown> {
    const p = ScheduledPayload.safeParse(job.data);
    if (!p.success) { this.log.warn(`scheduled audit job ${job.id} has bad data: ${p.error.message}`); return { skipped: 'bad data' }; }
    try {
      const run = await this.startAudit.execute({
        kind: p.data.kind, collection: p.data.collection, params: p.data.params, trigger: 'schedule', actor: `scheduler:${p.data.kind}`,
      });
      return { runId: run.id };
    } catch (e) {
      // A schedule for a collection that does not exist (yet) is skipped, not failed: nothing to audit.
      if (e instanceof ValidationError) { this.log.warn(`scheduled ${p.data.kind} audit skipped: ${e.message}`); return { skipped: e.message }; }
      throw e;
    }
  }

  private async run(job: Job<AuditJobData>): Promise<unknown> {
    if (job.name !== AUDIT_RUN_JOB) return { skipped: `unknown job ${job.name}` };
    const p = RunPayload.safeParse(job.data);
    if (!p.success) { this.log.warn(`audit job ${job.id} has bad data: ${p.error.message}`); return { skipped: 'bad data' }; }
    const attempts = job.opts.attempts ?? 1;
    const out = await this.runAudit.execute({
      runId: p.data.runId, isFinalAttempt: job.attemptsMade + 1 >= attempts,
      log: (message, fields) => this.log.log({ runId: p.data.runId, ...fields }, message),
    });
    if (!out) return { skipped: 'run already finished or cancelled' };
    this.log.log(`audit ${out.run.kind} ${out.run.id} ${out.run.status} in ${out.seconds.toFixed(1)} s: ${JSON.stringify(out.run.counts)}, ${out.run.findingsCount} finding(s)`);
    return { status: out.run.status, counts: out.run.counts, findings: out.run.findingsCount };
  }
}
