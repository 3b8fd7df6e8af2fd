import type { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { TracebackQueue } from '@forensics/core';
import { TRACEBACK_JOB, tracebackJobId, tracebackJobOptions, type TracebackJobData } from './queue.constants';

export function createRedisConnection(url: string): IORedis {
  // BullMQ workers need maxRetriesPerRequest: null (blocking commands).
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/** Producer side of the traceback queue, over the BullMQ queue the Nest module registered. */
export class BullMqTracebackQueue implements TracebackQueue {
  constructor(
    private readonly queue: Queue<TracebackJobData>,
    private readonly connection: IORedis,
    private readonly opts: { attempts: number; backoffMs: number },
  ) {}

  async enqueueTraceback(feedbackId: string): Promise<void> {
    await this.queue.add(TRACEBACK_JOB, { feedbackId }, { ...tracebackJobOptions(this.opts.attempts, this.opts.backoffMs), jobId: tracebackJobId(feedbackId) });
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
