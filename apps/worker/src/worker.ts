import { Logger } from '@nestjs/common';
import { Worker } from 'bullmq';
import { QuarantineTextsUseCase } from '@forensics/core';
import { TRACEBACK_QUEUE, createRedisConnection, type Runtime, type TracebackJobData } from '@forensics/infra';
import { TracebackProcessor } from './processors/traceback.processor';

export interface WorkerHandle { close(): Promise<void> }

/**
 * Starts the traceback worker on a runtime: reconciles quarantines left half-done, sweeps
 * feedback that was persisted but never enqueued, and processes the queue.
 */
export async function startTracebackWorker(rt: Runtime, opts: { lockDurationMs?: number; sweepEveryMs?: number; failpoint?: (name: string) => void } = {}): Promise<WorkerHandle> {
  const log = new Logger('worker');
  const processor = new TracebackProcessor(rt, opts.failpoint);
  const synced = await new QuarantineTextsUseCase({ repo: rt.repo, store: rt.store }).syncPending();
  if (synced) log.log(`reconciled ${synced} quarantine record(s) with the vector store`);
  await rt.embedder.init();

  const connection = createRedisConnection(rt.redisUrl);
  const lockDuration = opts.lockDurationMs ?? 30_000;
  const worker = new Worker<TracebackJobData>(TRACEBACK_QUEUE, (job) => processor.process(job), {
    connection,
    prefix: rt.config.queue.prefix,
    concurrency: rt.config.queue.workerConcurrency,
    lockDuration,
    stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
    maxStalledCount: 3,
  });
  worker.on('failed', (job, err) => { void processor.onFailed(job, err).catch((e) => log.error(`failed-handler: ${(e as Error).message}`)); });
  worker.on('error', (err) => log.error(err.message));

  const sweep = async () => {
    const stuck = await rt.repo.listUnqueuedFeedback(new Date(Date.now() - 5_000), 100);
    for (const ev of stuck) {
      await rt.queue.enqueueTraceback(ev.id);
      await rt.repo.updateFeedback(ev.id, { status: 'QUEUED' });
      log.log(`enqueued feedback ${ev.id} that was persisted but not queued`);
    }
  };
  await sweep().catch((e) => log.warn(`sweep: ${(e as Error).message}`));
  const timer = setInterval(() => void sweep().catch((e) => log.warn(`sweep: ${(e as Error).message}`)), opts.sweepEveryMs ?? 30_000);
  timer.unref();
  await worker.waitUntilReady();
  log.log(`processing queue '${TRACEBACK_QUEUE}' (concurrency ${rt.config.queue.workerConcurrency}, judge ${rt.judge.kind}:${rt.judge.model})`);
  return {
    close: async () => {
      clearInterval(timer);
      await worker.close();
      connection.disconnect();
    },
  };
}
