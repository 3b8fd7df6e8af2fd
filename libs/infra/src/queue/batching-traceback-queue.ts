import type { Queue } from 'bullmq';
import type { RedriveOutcome, TracebackQueue } from '@forensics/core';
import { MicroBatcher, type MicroBatcherOptions } from '../batching/micro-batcher';
import { TRACEBACK_JOB, tracebackJobId, tracebackJobOptions, type TracebackJobData } from './queue.constants';

/**
 * TracebackQueue whose enqueues go to Redis as one `addBulk` per batch (issue 15): one BullMQ
 * `add` is a script call with its own round trip, so under concurrent intake the Redis round trips
 * were one per request. Concurrent enqueues are grouped (MicroBatcher: no wait when idle); each
 * caller still resolves only after the bulk add that carries its job returned. Job ids stay
 * deterministic (`trace-<feedbackId>`), so a job added twice — by a batch and a late retry, or by
 * the reconciler — is one job.
 *
 * Bounded like the single add (`enqueueTimeoutMs`): past the bound the caller sees a rejection and
 * leaves its event RECEIVED for the reconciler, while the bulk add may still complete later —
 * harmless for the same reason. Re-drive, ping and close go to the wrapped queue.
 */
export class BatchingTracebackQueue implements TracebackQueue {
  private readonly adds: MicroBatcher<string, void>;

  constructor(
    private readonly inner: TracebackQueue,
    queue: Queue<TracebackJobData>,
    private readonly opts: { attempts: number; backoffMs: number; enqueueTimeoutMs?: number } & MicroBatcherOptions,
  ) {
    this.adds = new MicroBatcher<string, void>(async (ids) => {
      const unique = [...new Set(ids)];
      // The producer's own connection when the inner queue has one (no offline queue: refused at
      // once while Redis is down, never buffered and replayed later — bullmq-traceback-queue.ts).
      if (isBulkEnqueuer(inner)) await inner.enqueueBulk(unique);
      else {
        const jobOpts = tracebackJobOptions(opts.attempts, opts.backoffMs);
        await queue.addBulk(unique.map((feedbackId) => ({ name: TRACEBACK_JOB, data: { feedbackId }, opts: { ...jobOpts, jobId: tracebackJobId(feedbackId) } })));
      }
      return ids.map(() => undefined);
    }, { maxBatch: opts.maxBatch ?? 500, maxConcurrent: opts.maxConcurrent ?? 2 });
  }

  enqueueTraceback(feedbackId: string): Promise<void> {
    const op = this.adds.submit(feedbackId);
    const ms = this.opts.enqueueTimeoutMs;
    if (!ms) return op;
    op.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`queue unreachable: enqueue did not complete within ${ms} ms`)), ms);
      timer.unref();
    });
    return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
  }

  redriveTraceback(feedbackId: string): Promise<RedriveOutcome> {
    return this.inner.redriveTraceback ? this.inner.redriveTraceback(feedbackId) : this.inner.enqueueTraceback(feedbackId).then(() => 'added' as const);
  }

  liveJobs(feedbackIds: readonly string[]): Promise<Set<string>> {
    return this.inner.liveJobs ? this.inner.liveJobs(feedbackIds) : Promise.resolve(new Set<string>());
  }

  ping(): Promise<void> { return this.inner.ping(); }

  close(): Promise<void> { return this.inner.close(); }

  /** Nest calls this on the provider (this wrapper): the inner queue's own connection closes with the app. */
  onModuleDestroy(): Promise<void> { return this.inner.close(); }
}

function isBulkEnqueuer(q: TracebackQueue): q is TracebackQueue & { enqueueBulk(ids: readonly string[]): Promise<void> } {
  return typeof (q as { enqueueBulk?: unknown }).enqueueBulk === 'function';
}
