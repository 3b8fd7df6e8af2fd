import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { MarkFeedbackFailedUseCase, ProcessFeedbackEventUseCase } from '@forensics/core';
import { rateLimitedErrorLog, withLogContext, type TracebackJobData } from '@forensics/infra';
import { RunningJobs } from './running-jobs';
import { describeOutcome, failureAction, isPermanent, jobResult, TracebackJobPayload, tracebackLogContext } from './traceback-job';

/**
 * Thin processor: validates the job, runs the pipeline use case, maps permanent failures to
 * UnrecoverableError (no retry); after the last failed attempt the event is marked FAILED or, when a
 * dependency was unreachable, left pending for the reconciler (traceback-job.ts: failureAction). A run
 * can be stopped at its next safe point — the drain timeout hands the job back to the queue, a lost lock
 * leaves it to the stalled check (running-jobs.ts).
 * Its queue and worker options are attached in WorkerModule.forRoot (they come from configuration).
 */
@Injectable()
export class TracebackProcessor extends WorkerHost {
  private readonly log = new Logger('traceback');
  private readonly running = new RunningJobs();
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
      const run = this.running.start(job, token);
      try {
        const onProgress = (step: string, detail?: Record<string, unknown>) => {
          run.progress(step === 'round' ? `round ${String(detail?.round)}` : step);
          if (process.env.FORENSICS_DEBUG) this.log.log(`${id}: ${step} ${JSON.stringify(detail ?? {})}`);
        };
        const out = await this.pipeline.execute({ feedbackId: id, onProgress, signal: run.signal });
        this.log.log(describeOutcome(id, out));
        return jobResult(out);
      } catch (e) {
        if (run.stopped) return await run.handBack((line) => this.log.warn(`${id}: ${line}`));
        throw isPermanent(e) ? new UnrecoverableError((e as Error).message) : e;
      } finally {
        run.done();
      }
    });
  }

  /** A job's lock was lost (job-locks.ts): its run stops at the next safe point, so it never overlaps the next run. */
  stopJob(jobId: string, why: 'lock-lost'): boolean {
    return this.running.stop(jobId, why);
  }

  /** The drain timeout passed (worker-drain.ts): every running job stops at its next safe point and is handed back. */
  handBackAll(): string[] {
    return this.running.stopAll('drain-timeout');
  }

  /** The jobs still running here. */
  runningJobs(): ReturnType<RunningJobs['list']> {
    return this.running.list();
  }

  /** The worker's Redis connection failing (an outage): one warn line per 30 s, not one per reconnect. */
  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.connectionError(err);
  }

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
      await this.markFailed.execute({ feedbackId: id, reason: err.message, attempts: job.attemptsMade })
        .catch((e) => this.log.error(`${id}: could not mark FAILED: ${(e as Error).message}`));
    });
  }
}
