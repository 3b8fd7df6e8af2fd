/**
 * The traceback job's contract, apart from the processor (traceback.processor.ts): its payload, which
 * failures are permanent, when a failed attempt is the last one and what then happens to the event,
 * and the job's log line and return value.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import { GeneratorError, JudgeError, PermanentError, type ProcessFeedbackEventUseCase } from '@forensics/core';
import { isTransientFailure, type TracebackJobData } from '@forensics/infra';
import type { RunningJob } from './running-jobs';

/** The job payload: the feedback id only (the row holds everything else, including the step). */
export const TracebackJobPayload = z.object({ feedbackId: z.uuid() });

type PipelineOutcome = Awaited<ReturnType<ProcessFeedbackEventUseCase['execute']>>;

/** Failures that retrying cannot fix: bad payload, unknown entity, misconfiguration, a 4xx from the LLM. */
export function isPermanent(e: unknown): boolean {
  return e instanceof PermanentError || ((e instanceof JudgeError || e instanceof GeneratorError) && !e.transient);
}

/** The log context of a job: its id and (bounded) feedback event id. */
export function tracebackLogContext(job: Job<TracebackJobData>): { jobId: string | undefined; feedbackId: string | undefined } {
  return { jobId: job.id, feedbackId: typeof job.data?.feedbackId === 'string' ? job.data.feedbackId.slice(0, 64) : undefined };
}

/** The job's progress callback: the step is kept by its running job (for a hand-back line) and, with FORENSICS_DEBUG set, logged. */
export function jobProgress(id: string, run: Pick<RunningJob, 'progress'>, log: (message: string) => void): (step: string, detail?: Record<string, unknown>) => void {
  return (step, detail) => {
    run.progress(step, detail);
    if (process.env.FORENSICS_DEBUG) log(`${id}: ${step} ${JSON.stringify(detail ?? {})}`);
  };
}

/** The job's log line for a finished pipeline run. */
export function describeOutcome(id: string, out: PipelineOutcome): string {
  if (out.skipped) return `${id}: already ${out.status}; nothing to do`;
  const t = out.trace;
  const traced = t ? ` poisoned=${t.poisoned.length} benign=${t.benign.length} undetermined=${t.undetermined.length} review=${t.review.length} judgeCalls=${t.judgeCalls}` : '';
  return `${id}: ${out.status}${out.resumedAfter ? ` (resumed after '${out.resumedAfter}')` : ''}${traced} verification=${out.verification}${out.enhanced ? ' enhanced' : ''}`;
}

/** The job's return value (kept by BullMQ with the completed job). */
export function jobResult(out: PipelineOutcome): unknown {
  return { status: out.status, skipped: out.skipped, resumedAfter: out.resumedAfter, verification: out.verification, enhanced: out.enhanced };
}

/**
 * What a failed attempt means for the event: 'retry' (attempts left), 'pending' (the last attempt failed
 * because a dependency was unreachable: left for the reconciler), 'ignore' (the payload was invalid: no
 * event to mark) or 'fail' (mark it FAILED).
 */
export function failureAction(job: Job<TracebackJobData>, err: Error): 'retry' | 'pending' | 'ignore' | 'fail' {
  const unrecoverable = err instanceof UnrecoverableError || err.name === 'UnrecoverableError';
  const final = unrecoverable || job.attemptsMade >= (job.opts.attempts ?? 1);
  if (!final) return 'retry';
  if (!TracebackJobPayload.safeParse(job.data).success) return 'ignore';
  if (!unrecoverable && isTransientFailure(err)) return 'pending';
  return 'fail';
}
