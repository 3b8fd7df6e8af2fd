import { Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import type { RedriveOutcome, TracebackQueue } from '@forensics/core';
import { TRACEBACK_JOB, tracebackJobId, tracebackJobOptions, type TracebackJobData } from './queue.constants';
import { rateLimitedErrorLog } from './transient-failure';

/**
 * The producer's own connection (see BullMqTracebackQueue): commands fail at once while Redis is
 * unreachable instead of waiting in ioredis' offline queue. BullMQ accepts it for a Queue (only
 * blocking connections need `maxRetriesPerRequest: null`). It reconnects on its own.
 */
export function createProducerConnection(from: IORedis): IORedis {
  return from.duplicate({ enableOfflineQueue: false, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, connectionName: 'forensics-producer' });
}

/** Thrown (as a transient failure) when the producer connection is not connected: nothing is buffered. */
export class QueueUnreachableError extends Error {
  readonly transient = true;
  constructor(message: string) {
    super(`queue unreachable: ${message}`);
    this.name = 'QueueUnreachableError';
  }
}

/**
 * Producer side of the traceback queue, over the BullMQ queue the Nest module registered.
 *
 * Enqueueing goes through a connection of its own (`createProducerConnection`): no offline queue
 * (`enableOfflineQueue: false`), one try per command, no resend of unfulfilled commands after a
 * reconnect. While Redis is away an `add` fails at once instead of being buffered in memory and
 * replayed whenever Redis returns (late or piled-up enqueues); the event stays RECEIVED and the
 * reconciler enqueues it. The shared connection keeps its offline queue: BullMQ's workers need it
 * (blocking commands, `maxRetriesPerRequest: null`) and read-side calls (`getJob`) may wait.
 * `enqueueTimeoutMs` still bounds the whole call (a Redis that accepts the connection but does not
 * answer). The job id is deterministic (one job per event), so an `add` that did reach Redis after
 * its caller gave up is harmless: the processor moves RECEIVED or QUEUED events alike.
 */
export class BullMqTracebackQueue implements TracebackQueue {
  private producer: { connection: IORedis; queue: Queue<TracebackJobData>; ready: Promise<void> } | null = null;
  private closed = false;
  /** The shared connection's last error (`connect ECONNREFUSED …`), for the health check's reason. */
  private lastConnectionError: string | null = null;
  /** Whether the shared connection has been ready once: after that, not ready = lost. */
  private connectedOnce = false;

  constructor(
    private readonly queue: Queue<TracebackJobData>,
    private readonly connection: IORedis,
    private readonly opts: { attempts: number; backoffMs: number; enqueueTimeoutMs?: number },
  ) {
    // The registered queue emits its connection's errors; without a listener BullMQ prints every
    // reconnect attempt of an outage as an unhandled error. One warn line per 30 s instead.
    const log = new Logger('queue');
    queue.on('error', rateLimitedErrorLog((m) => log.warn(m), `${queue.name} queue: redis connection error (reconnecting)`));
    connection.on('error', (e: Error) => { this.lastConnectionError = e.message; });
    this.connectedOnce = connection.status === 'ready';
    connection.on('ready', () => { this.lastConnectionError = null; this.connectedOnce = true; });
  }

  async enqueueTraceback(feedbackId: string): Promise<void> {
    await this.bounded('enqueue', this.add(feedbackId));
  }

  /** Many events in one `addBulk` on the producer connection (the caller bounds it in time). */
  async enqueueBulk(feedbackIds: readonly string[]): Promise<void> {
    if (!feedbackIds.length) return;
    const queue = await this.producerQueue();
    const opts = tracebackJobOptions(this.opts.attempts, this.opts.backoffMs);
    await queue.addBulk(feedbackIds.map((feedbackId) => ({ name: TRACEBACK_JOB, data: { feedbackId }, opts: { ...opts, jobId: tracebackJobId(feedbackId) } })));
  }

  /**
   * The producer queue on its own connection, created on first use. The first connection attempt
   * is awaited (bounded by the caller); afterwards a command issued while the connection is down
   * is refused at once (QueueUnreachableError), never buffered.
   */
  private async producerQueue(): Promise<Queue<TracebackJobData>> {
    if (this.closed) throw new QueueUnreachableError('the producer is closed');
    if (!this.producer) {
      const connection = createProducerConnection(this.connection);
      // Connection errors surface through the commands that fail; reconnecting is ioredis' job.
      connection.on('error', () => {});
      const queue = new Queue<TracebackJobData>(this.queue.name, { connection, prefix: this.queue.opts.prefix });
      queue.on('error', () => {});
      const ready = new Promise<void>((resolve) => connection.once('ready', () => resolve()));
      this.producer = { connection, queue, ready };
    }
    const p = this.producer;
    if (p.connection.status !== 'ready') {
      // Still opening its first connection: wait for it (bounded by enqueueTimeoutMs); any later
      // disconnection: refuse now — the reconciler enqueues the event once Redis is back.
      if (p.connection.status === 'connecting' || p.connection.status === 'connect') {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([p.ready, new Promise((r) => { timer = setTimeout(r, this.opts.enqueueTimeoutMs || 2_000); timer.unref(); })]).finally(() => clearTimeout(timer));
      }
      if ((p.connection.status as string) !== 'ready') throw new QueueUnreachableError(`redis connection is ${p.connection.status}`);
    }
    return p.queue;
  }

  /** Closes the producer's own connection (the registered queue belongs to the Nest module). */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    const p = this.producer;
    this.producer = null;
    if (!p) return;
    // Disconnect first: a queue still waiting for its first connection then gives up at once.
    p.connection.disconnect();
    await p.queue.close().catch(() => {});
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

  /**
   * One pipeline for the page: per id, whether the job's hash exists and whether the job sits in the
   * failed or completed set (EXISTS + two ZSCOREs: constant time each). A job that exists and is in
   * neither is waiting, delayed, prioritized or active — live; the reconciler leaves it alone.
   * (`redriveTraceback` costs two round trips per event — `getJob`, then `Job.getState`, which also
   * looks the id up in the wait list; one reconciler pass over 20k waiting jobs took 13.1 s that way,
   * 1.9 s with this.)
   */
  async liveJobs(feedbackIds: readonly string[]): Promise<Set<string>> {
    const live = new Set<string>();
    if (!feedbackIds.length) return live;
    const q = this.queue;
    // On the producer's connection: refused at once while Redis is down, never buffered.
    await this.producerQueue();
    const pipe = this.producer!.connection.pipeline();
    for (const id of feedbackIds) {
      const jobId = tracebackJobId(id);
      pipe.exists(q.toKey(jobId)).zscore(q.keys.failed, jobId).zscore(q.keys.completed, jobId);
    }
    const out = (await pipe.exec()) ?? [];
    feedbackIds.forEach((id, i) => {
      const [exists, failed, completed] = [out[3 * i], out[3 * i + 1], out[3 * i + 2]].map((r) => (r?.[0] ? undefined : r?.[1]));
      if (exists === 1 && (failed === null || failed === undefined) && (completed === null || completed === undefined)) live.add(id);
    });
    return live;
  }

  private async add(feedbackId: string): Promise<unknown> {
    const queue = await this.producerQueue();
    return queue.add(TRACEBACK_JOB, { feedbackId }, { ...tracebackJobOptions(this.opts.attempts, this.opts.backoffMs), jobId: tracebackJobId(feedbackId) });
  }

  /** Rejects after `enqueueTimeoutMs`; the operation itself is left to finish (or fail) quietly. */
  private bounded<T>(what: string, op: Promise<T>): Promise<T> {
    const ms = this.opts.enqueueTimeoutMs;
    if (!ms) return op;
    op.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnreachableError(`${what} did not complete within ${ms} ms`)), ms);
      timer.unref();
    });
    return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
  }

  async ping(): Promise<void> {
    // Connection lost: said at once with its last error, instead of a PING waiting in the offline
    // queue until the health check's timeout ("timeout after 3000 ms" said nothing of why). A first
    // connection still being made is waited for.
    if (this.connectedOnce && this.connection.status !== 'ready') throw new Error(`not connected (${this.connection.status}${this.lastConnectionError ? `; last error: ${this.lastConnectionError}` : ''})`);
    const pong = await this.connection.ping();
    if (pong !== 'PONG') throw new Error(`redis answered ${pong}`);
  }

  async counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  /** Closes the producer connection; the registered queue's lifetime belongs to the Nest module. */
  async close(): Promise<void> {
    await this.onModuleDestroy();
  }
}
