import type { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { RedriveOutcome, TracebackQueue } from '@forensics/core';
import { TRACEBACK_JOB, tracebackJobId, tracebackJobOptions, type TracebackJobData } from './queue.constants';

export function createRedisConnection(url: string): IORedis {
  // BullMQ workers need maxRetriesPerRequest: null (blocking commands).
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/**
 * Producer side of the traceback queue, over the BullMQ queue the Nest module registered.
 *
 * Enqueueing is bounded (`enqueueTimeoutMs`): the shared connection keeps commands while Redis is
 * away (the worker's blocking commands need that), so an unbounded `add` would hang intake until
 * Redis returns. Past the bound the caller sees a rejection and leaves the event RECEIVED; the
 * `add` still queued in ioredis may complete later, which is harmless — the job id is
 * deterministic (one job per event) and the processor moves RECEIVED or QUEUED events alike.
 */
export class BullMqTracebackQueue implements TracebackQueue {
  constructor(
    private readonly queue: Queue<TracebackJobData>,
    private readonly connection: IORedis,
    private readonly opts: { attempts: number; backoffMs: number; enqueueTimeoutMs?: number },
  ) {}

  async enqueueTraceback(feedbackId: string): Promise<void> {
    await this.bounded('enqueue', this.add(feedbackId));
  }

  async redriveTraceback(feedbackId: string): Promise<RedriveOutcome> {
    const job = await this.queue.getJob(tracebackJobId(feedbackId));
    if (!job) {
      await this.add(feedbackId);
      return 'added';
    }
    const state = await job.getState();
    if (state === 'failed') {
      // Attempts spent during an outage: a fresh set of attempts.
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return 'retried';
    }
    if (state === 'completed' || state === 'unknown') {
      // The job ended but the row says work is pending: a new job under the same id.
      await job.remove().catch(() => {});
      await this.add(feedbackId);
      return 'replaced';
    }
    return 'live';
  }

  private add(feedbackId: string): Promise<unknown> {
    return this.queue.add(TRACEBACK_JOB, { feedbackId }, { ...tracebackJobOptions(this.opts.attempts, this.opts.backoffMs), jobId: tracebackJobId(feedbackId) });
  }

  /** Rejects after `enqueueTimeoutMs`; the operation itself is left to finish (or fail) quietly. */
  private bounded<T>(what: string, op: Promise<T>): Promise<T> {
    const ms = this.opts.enqueueTimeoutMs;
    if (!ms) return op;
    op.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`queue unreachable: ${what} did not complete within ${ms} ms`)), ms);
      timer.unref();
    });
    return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
  }

  async ping(): Promise<void> {
    const pong = await this.connection.ping();
    if (pong !== 'PONG') throw new Error(`redis answered ${pong}`);
  }

  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  /** The queue's lifetime belongs to the Nest module that registered it. */
  async close(): Promise<void> {}
}
