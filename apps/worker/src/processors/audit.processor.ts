import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { z } from 'zod';
import { AUDIT_KINDS, RunAuditUseCase, StartAuditUseCase, ValidationError, type AuditKind } from '@forensics/core';
import { AUDIT_RUN_JOB, AUDIT_SCHEDULED_JOB, withLogContext, type AuditJobData } from '@forensics/infra';

const RunPayload = z.object({ runId: z.uuid() });
const ScheduledPayload = z.object({ kind: z.enum(AUDIT_KINDS as unknown as [AuditKind, ...AuditKind[]]), collection: z.string().min(1), params: z.record(z.string(), z.unknown()).optional() });

/**
 * The `audits` queue (issue 12):
 *  - `AuditRun` jobs (one per run, jobId audit-<runId>): RunAuditUseCase. A worker killed mid-run
 *    leaves its job to be retried (stalled-job detection, attempts with backoff); the handler resumes
 *    from the run's last checkpoint. On the last attempt a failure marks the run FAILED.
 *  - `ScheduledAudit` jobs, added by the job schedulers of AuditSchedules (recurring-jobs.ts) or of the
 *    API (PUT /v1/audits/schedules/:kind): the tick creates a run record and queues it as an `AuditRun` job.
 */
@Injectable()
export class AuditProcessor extends WorkerHost {
  private readonly log = new Logger('audits');

  constructor(@Inject(RunAuditUseCase) private readonly runAudit: RunAuditUseCase, @Inject(StartAuditUseCase) private readonly startAudit: StartAuditUseCase) {
    super();
  }

  async process(job: Job<AuditJobData>): Promise<unknown> {
    return withLogContext({ jobId: job.id }, () => (job.name === AUDIT_SCHEDULED_JOB ? this.tick(job) : this.run(job)));
  }

  private async tick(job: Job<AuditJobData>): Promise<unknown> {
    const p = ScheduledPayload.safeParse(job.data);
    if (!p.success) { this.log.warn(`scheduled audit job ${job.id} has bad data: ${p.error.message}`); return { skipped: 'bad data' }; }
    try {
      const run = await this.startAudit.execute({ kind: p.data.kind, collection: p.data.collection, params: p.data.params, trigger: 'schedule', actor: `scheduler:${p.data.kind}` });
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
    const out = await this.runAudit.execute({
      runId: p.data.runId, isFinalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
      log: (message, fields) => this.log.log({ runId: p.data.runId, ...fields }, message),
    });
    if (!out) return { skipped: 'run already finished or cancelled' };
    this.log.log(`audit ${out.run.kind} ${out.run.id} ${out.run.status} in ${out.seconds.toFixed(1)} s: ${JSON.stringify(out.run.counts)}, ${out.run.findingsCount} finding(s)`);
    return { status: out.run.status, counts: out.run.counts, findings: out.run.findingsCount };
  }
}
