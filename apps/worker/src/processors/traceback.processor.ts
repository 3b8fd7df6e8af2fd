import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import { GeneratorError, JudgeError, MarkFeedbackFailedUseCase, PermanentError, ProcessFeedbackEventUseCase } from '@forensics/core';
import { withLogContext, type TracebackJobData } from '@forensics/infra';
import { isTransientFailure, rateLimitedErrorLog } from '@forensics/infra';

/** The job payload: the feedback id only (the row holds everything else, including the step). */
const TracebackJobPayload = z.object({ feedbackId: z.uuid() });

/** Failures that retrying cannot fix: bad payload, unknown entity, misconfiguration, a 4xx from the LLM. */
function isPermanent(e: unknown): boolean {
  return e instanceof PermanentError || ((e instanceof JudgeError || e instanceof GeneratorError) && !e.transient);
}

/**
 * Thin processor: validates the job, runs the pipeline use case, maps permanent failures to
 * UnrecoverableError (no retry) and, after the last failed attempt, marks the event FAILED — unless
 * that attempt failed because a dependency was unreachable (`isTransientFailure`: Postgres, Redis,
 * an LLM endpoint down): then the event stays pending, its job in the failed set, and the
 * reconciler re-drives it (fresh attempts) once the dependency is back. Only permanent failures
 * (and failures of unknown cause that outlast every attempt) end in FAILED.
 * Its queue and worker options are attached in WorkerModule.forRoot (they come from configuration).
 */
@Injectable()
export class TracebackProcessor extends WorkerHost {
  private readonly log = new Logger('traceback');
  private readonly connectionError = rateLimitedErrorLog((m) => this.log.warn(m), 'traceback worker: redis connection error (BullMQ reconnects on its own)');

  constructor(
    @Inject(ProcessFeedbackEventUseCase) private readonly pipeline: ProcessFeedbackEventUseCase,
    @Inject(MarkFeedbackFailedUseCase) private readonly markFailed: MarkFeedbackFailedUseCase,
  ) {
    super();
  }

  /** Every log line of the job, however deep, carries its job id and feedback event id. */
  async process(job: Job<TracebackJobData>): Promise<unknown> {
    return withLogContext({ jobId: job.id, feedbackId: typeof job.data?.feedbackId === 'string' ? job.data.feedbackId.slice(0, 64) : undefined }, () => this.run(job));
  }

  private async run(job: Job<TracebackJobData>): Promise<unknown> {
    const payload = TracebackJobPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: feedbackId must be a UUID, got ${JSON.stringify(job.data).slice(0, 200)}`);
    const id = payload.data.feedbackId;
    try {
      const out = await this.pipeline.execute({
        feedbackId: id,
        onProgress: (step, detail) => { if (process.env.FORENSICS_DEBUG) this.log.log(`${id}: ${step} ${JSON.stringify(detail ?? {})}`); },
      });
      if (out.skipped) this.log.log(`${id}: already ${out.status}; nothing to do`);
      else {
        const t = out.trace;
        const traced = t ? ` poisoned=${t.poisoned.length} benign=${t.benign.length} undetermined=${t.undetermined.length} review=${t.review.length} judgeCalls=${t.judgeCalls}` : '';
        this.log.log(`${id}: ${out.status}${out.resumedAfter ? ` (resumed after '${out.resumedAfter}')` : ''}${traced} verification=${out.verification}${out.enhanced ? ' enhanced' : ''}`);
      }
      return { status: out.status, skipped: out.skipped, resumedAfter: out.resumedAfter, verification: out.verification, enhanced: out.enhanced };
    } catch (e) {
      if (isPermanent(e)) throw new UnrecoverableError((e as Error).message);
      throw e;
    }
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
    return withLogContext({ jobId: job.id, feedbackId: typeof job.data?.feedbackId === 'string' ? job.data.feedbackId.slice(0, 64) : undefined }, () => this.failed(job, err));
  }

  private async failed(job: Job<TracebackJobData>, err: Error): Promise<void> {
    const final = err instanceof UnrecoverableError || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    const id = job.data?.feedbackId;
    this.log.warn(`${id}: attempt ${job.attemptsMade} failed: ${err.message}${final ? ' (final)' : ' (will retry)'}`);
    if (!final || !TracebackJobPayload.safeParse(job.data).success) return;
    const unrecoverable = err instanceof UnrecoverableError || err.name === 'UnrecoverableError';
    if (!unrecoverable && isTransientFailure(err)) {
      this.log.warn(`${id}: a dependency is unreachable; left pending for the reconciler`);
      return;
    }
    await this.markFailed.execute({ feedbackId: id, reason: err.message, attempts: job.attemptsMade })
      .catch((e) => this.log.error(`${id}: could not mark FAILED: ${(e as Error).message}`));
  }
}
