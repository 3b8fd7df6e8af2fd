import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { TracebackQueue } from '@forensics/core';
import { TRACEBACK_JOB, TRACEBACK_QUEUE, tracebackJobId, tracebackJobOptions, type TracebackJobData } from './queue.constants';

export function createRedisConnection(url: string): IORedis {
  // BullMQ workers need maxRetriesPerRequest: null (blocking commands).
  return new IORedis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/** Producer side of the traceback queue. */
export class BullMqTracebackQueue implements TracebackQueue {
  private readonly queue: Queue<TracebackJobData>;
  private readonly connection: IORedis;

  constructor(redisUrl: string, private readonly opts: { attempts: number; backoffMs: number; prefix?: string }) {
    this.connection = createRedisConnection(redisUrl);
    this.queue = new Queue<TracebackJobData>(TRACEBACK_QUEUE, { connection: this.connection, prefix: opts.prefix });
  }

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

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}
