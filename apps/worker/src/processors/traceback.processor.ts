import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { MarkFeedbackFailedUseCase, ProcessFeedbackEventUseCase } from '@forensics/core';
import { rateLimitedErrorLog, withLogContext, type TracebackJobData } from '@forensics/infra';
import { RunningJobs, type RunningJob } from './running-jobs';
import { describeOutcome, failureAction, isPermanent, jobProgress, jobResult, TracebackJobPayload, tracebackLogContext } from './traceback-job';

/**
 * Thin processor: validates the job, runs the pipeline use case as one of its `running` jobs (stopped at a safe point and
 * handed back at the drain timeout or when its lock is lost: running-jobs.ts), maps permanent failures to UnrecoverableError
 * (no retry); after the last failed attempt the event is marked FAILED or, when a dependency was unreachable, left pending for
 * the reconciler (traceback-job.ts: failureAction). Queue and worker options: WorkerModule.forRoot (from configuration).
 */
@Injectable()
export class TracebackProcessor extends WorkerHost {
  private readonly log = new Logger('traceback');
  readonly running = new RunningJobs(); // stopped by worker-drain.ts and job-locks.ts
  private readonly connectionError = rateLimitedErrorLog((m) => this.log.warn(m), 'traceback worker: redis connection error (BullMQ reconnects on its own)');

  constructor(@Inject(ProcessFeedbackEventUseCase) private readonly pipeline: ProcessFeedbackEventUseCase, @Inject(MarkFeedbackFailedUseCase) private readonly markFailed: MarkFeedbackFailedUseCase) {
    super();
  }

  /** Every log line of the job, however deep, carries its job id and feedback event id. */
  async process(job: Job<TracebackJobData>, token?: string): Promise<unknown> {
    return withLogContext(tracebackLogContext(job), async () => {
      const payload = TracebackJobPayload.safeParse(job.data);
      if (!payload.success) throw new UnrecoverableError(`invalid payload: feedbackId must be a UUID, got ${JSON.stringify(job.data).slice(0, 200)}`);
      const id = payload.data.feedbackId;
      const run = (r: RunningJob) => this.pipeline.execute({ feedbackId: id, signal: r.signal, onProgress: jobProgress(id, r, (m) => this.log.log(m)) });
      try {
        const out = await this.running.run(job, token, run, (line) => this.log.warn(`${id}: ${line}`));
        this.log.log(describeOutcome(id, out));
        return jobResult(out);
      } catch (e) {
        throw isPermanent(e) ? new UnrecoverableError((e as Error).message) : e;
      }
    });
  }

  /** The worker's Redis connection failing (an outage): one warn line per 30 s, not one per reconnect. */
  @OnWorkerEvent('error')
  onError(err: Error): void { this.connectionError(err); }

  /** Called for every failed attempt; acts after the last one (or a permanent failure). */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<TracebackJobData> | undefined, err: Error): Promise<void> {
    if (!job) return;
    return withLogContext(tracebackLogContext(job), async () => {
      const id = job.data?.feedbackId;
      const action = failureAction(job, err);
      this.log.warn(`${id}: attempt ${job.attemptsMade} failed: ${err.message}${action === 'retry' ? ' (will retry)' : ' (final)'}`);
      if (action === 'pending') this.log.warn(`${id}: a dependency is unreachable; left pending for the reconciler`);
      if (action !== 'fail') return;
      await this.markFailed.execute({ feedbackId: id, reason: err.message, attempts: job.attemptsMade }).catch((e) => this.log.error(`${id}: could not mark FAILED: ${(e as Error).message}`));
    });
  }
}
