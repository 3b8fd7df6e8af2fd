import type { Token } from './tokens';

/**
 * Failed jobs of every queue the service runs (traceback, maintenance, webhooks, …): the
 * job side of the dead letters (issue 14, item 3). Feedback events are the other side, read from
 * their repository. Implemented over BullMQ in libs/infra/src/queue/dead-letters.ts.
 */
export interface FailedJob {
  queue: string;
  id: string;
  name: string;
  /** The full reason BullMQ stored (the last attempt's error message). */
  failedReason: string;
  attemptsMade: number;
  /** When the job was created / failed for good (null when BullMQ did not record it). */
  createdAt: Date | null;
  failedAt: Date | null;
  /** The feedback event a traceback job is about (its payload's only field), else null. */
  feedbackId: string | null;
}

export type FailedJobRetryOutcome = 'retried' | 'not-found' | 'not-failed';

export interface FailedJobs {
  /** Names of every queue, sorted. */
  queues(): Promise<string[]>;
  /** Failed-set sizes per queue. */
  counts(): Promise<Record<string, number>>;
  /** A page of one queue's failed set, newest failure first (`offset` into that set). */
  list(queue: string, offset: number, limit: number): Promise<FailedJob[]>;
  /** One job of a queue (in any state; null when unknown). */
  get(queue: string, id: string): Promise<(FailedJob & { state: string }) | null>;
  /** Moves one failed job back to waiting with fresh attempts (BullMQ `job.retry`). */
  retry(queue: string, id: string): Promise<FailedJobRetryOutcome>;
}

export const FAILED_JOBS: Token<FailedJobs> = Symbol('FailedJobs') as Token<FailedJobs>;
