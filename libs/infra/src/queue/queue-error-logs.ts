import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Worker } from 'bullmq';
import { QueueRegistry } from './queue-registry';
import { rateLimitedErrorLog } from './transient-failure';

/**
 * Marks an `error` listener that is not a connection-error log (the worker's JobLocks, which reads lock
 * errors only): QueueErrorLogs still gives that worker its connection-error line.
 */
export const NOT_A_CONNECTION_LOG: unique symbol = Symbol('not a connection-error log');

/**
 * BullMQ queues and workers emit their Redis connection's errors as `error` events; with no
 * listener BullMQ prints each one (every reconnect attempt of an outage) as an unhandled error.
 * At bootstrap, every registered queue and every worker (any @Processor) that has no `error`
 * listener yet gets one that logs at warn, at most one line per 30 s per queue/worker — so a queue
 * or processor added later is covered without anyone remembering to.
 */
@Injectable()
export class QueueErrorLogs implements OnApplicationBootstrap {
  private readonly log = new Logger('queue');

  constructor(
    @Inject(QueueRegistry) private readonly queues: QueueRegistry,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
  ) {}

  onApplicationBootstrap(): void {
    for (const q of this.queues.all()) {
      if (q.listenerCount('error') === 0) q.on('error', rateLimitedErrorLog((m) => this.log.warn(m), `${q.name} queue: redis connection error (reconnecting)`));
    }
    for (const wrapper of this.discovery.getProviders()) {
      let instance: unknown;
      try { instance = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined; } catch { instance = undefined; }
      if (!(instance instanceof WorkerHost)) continue;
      let worker: Worker | undefined;
      try { worker = instance.worker; } catch { worker = undefined; } // not started (no worker in this process)
      const logs = worker?.listeners('error').filter((l) => !(l as { [NOT_A_CONNECTION_LOG]?: true })[NOT_A_CONNECTION_LOG]).length ?? 0;
      if (worker && logs === 0) worker.on('error', rateLimitedErrorLog((m) => this.log.warn(m), `${worker.name} worker: redis connection error (reconnecting)`));
    }
  }
}
