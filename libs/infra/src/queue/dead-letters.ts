import type { Job, Queue } from 'bullmq';
import type { FailedJob, FailedJobRetryOutcome, FailedJobs } from '@forensics/core';
import { TRACEBACK_QUEUE_NAME } from './queue.constants';

function toFailedJob(queue: string, job: Job): FailedJob {
  const data = job.data as { feedbackId?: unknown } | undefined;
  return {
    queue,
    id: String(job.id),
    name: job.name,
    failedReason: job.failedReason ?? '',
    attemptsMade: job.attemptsMade,
    createdAt: job.timestamp ? new Date(job.timestamp) : null,
    failedAt: job.finishedOn ? new Date(job.finishedOn) : null,
    feedbackId: queue === TRACEBACK_QUEUE_NAME && typeof data?.feedbackId === 'string' ? data.feedbackId : null,
  };
}

/**
 * The FailedJobs port over BullMQ: the failed sets of every queue the registry knows (read with
 * getJobs / getJobCounts), and `job.retry('failed')` with fresh attempts for a re-drive.
 */
export class BullMqFailedJobs implements FailedJobs {
  constructor(private readonly queuesOf: () => readonly Queue[]) {}

  private queue(name: string): Queue | undefined {
    return this.queuesOf().find((q) => q.name === name);
  }

  async queues(): Promise<string[]> {
    return this.queuesOf().map((q) => q.name).sort();
  }

  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const q of this.queuesOf()) out[q.name] = (await q.getJobCounts('failed')).failed ?? 0;
    return out;
  }

  async list(name: string, offset: number, limit: number): Promise<FailedJob[]> {
    const q = this.queue(name);
    if (!q || limit <= 0) return [];
    // Newest failure first (the failed set is scored by finish time).
    const jobs = await q.getJobs(['failed'], offset, offset + limit - 1, false);
    return jobs.filter((j): j is Job => !!j).map((j) => toFailedJob(name, j));
  }

  async get(name: string, id: string): Promise<(FailedJob & { state: string }) | null> {
    const q = this.queue(name);
    const job = q ? await q.getJob(id) : undefined;
    if (!job) return null;
    return { ...toFailedJob(name, job), state: await job.getState() };
  }

  async retry(name: string, id: string): Promise<FailedJobRetryOutcome> {
    const q = this.queue(name);
    const job = q ? await q.getJob(id) : undefined;
    if (!job) return 'not-found';
    if ((await job.getState()) !== 'failed') return 'not-failed';
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch (e) {
      // Moved out of the failed set between the check and the retry (another re-drive): unchanged.
      if ((await job.getState()) !== 'failed') return 'not-failed';
      throw e;
    }
    return 'retried';
  }
}

/** A process without queues (ingest CLI, eval): no failed jobs. */
export const NO_FAILED_JOBS: FailedJobs = {
  queues: async () => [],
  counts: async () => ({}),
  list: async () => [],
  get: async () => null,
  retry: async () => 'not-found',
};
