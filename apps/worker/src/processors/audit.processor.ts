import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { z } from 'zod';
import { AUDIT_KINDS, RunAuditUseCase, RunScheduledAuditUseCase, type AuditKind } from '@forensics/core';
import { AUDIT_RUN_JOB, AUDIT_SCHEDULED_JOB, withLogContext, type AuditJobData } from '@forensics/infra';

const RunPayload = z.object({ runId: z.uuid() });
const ScheduledPayload = z.object({
  kind: z.enum(AUDIT_KINDS as unknown as [AuditKind, ...AuditKind[]]), collection: z.string().min(1), params: z.record(z.string(), z.unknown()).optional(),
  source: z.enum(['AUDIT_SCHEDULE', 'api']).optional(), entry: z.string().optional(),
});

/**
 * The `audits` queue (issue 12):
 *  - `AuditRun` jobs (one per run, jobId audit-<runId>): RunAuditUseCase. A worker killed mid-run
 *    leaves its job to be retried (stalled-job detection, attempts with backoff); the handler resumes
 *    from the run's last checkpoint. On the last attempt a failure marks the run FAILED.
 *  - `ScheduledAudit` jobs, added by the job schedulers of AuditSchedules (recurring-jobs.ts) or of the
 *    API (PUT /v1/audits/schedules/:kind): the tick creates a run record per collection it covers (its
 *    own, or every collection) and queues each as an `AuditRun` job (RunScheduledAuditUseCase).
 */
@Injectable()
export class AuditProcessor extends WorkerHost {
  private readonly log = new Logger('audits');

  constructor(@Inject(RunAuditUseCase) private readonly runAudit: RunAuditUseCase, @Inject(RunScheduledAuditUseCase) private readonly scheduled: RunScheduledAuditUseCase) {
    super();
  }

  async process(job: Job<AuditJobData>): Promise<unknown> {
    return withLogContext({ jobId: job.id }, () => (job.name === AUDIT_SCHEDULED_JOB ? this.tick(job) : this.run(job)));
  }

  private async tick(job: Job<AuditJobData>): Promise<unknown> {
    const p = ScheduledPayload.safeParse(job.data);
    if (!p.success) { this.log.warn(`scheduled audit job ${job.id} has bad data: ${p.error.message}`); return { skipped: 'bad data' }; }
    const out = await this.scheduled.execute(p.data);
    // A schedule of every collection on a service with no texts yet has nothing to do: said, not warned.
    // A named collection that does not exist is a schedule to fix: warned, naming the setting.
    for (const s of out.skipped) {
      if (s.collection === null) this.log.log(`scheduled ${p.data.kind} audit: ${s.reason}`);
      else this.log.warn(`scheduled ${p.data.kind} audit of '${s.collection}' skipped: ${s.reason}`);
    }
    return { runIds: out.runs.map((r) => r.id), skipped: out.skipped.map((s) => s.reason) };
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
