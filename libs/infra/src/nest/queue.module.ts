import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import { AUDIT_QUEUE, AUDIT_SCHEDULES, FAILED_JOBS, TRACEBACK_QUEUE } from '@forensics/core';
import type { AppConfig } from '../config/app-config';
import { BullMqTracebackQueue } from '../queue/bullmq-traceback-queue';
import { BatchingTracebackQueue } from '../queue/batching-traceback-queue';
import { BullMqFailedJobs } from '../queue/dead-letters';
import { QueueRegistry } from '../queue/queue-registry';
import { QueueErrorLogs } from '../queue/queue-error-logs';
import { AUDIT_QUEUE_NAME, MAINTENANCE_QUEUE_NAME, TRACEBACK_QUEUE_NAME, WEBHOOK_QUEUE_NAME } from '../queue/queue.constants';
import { BullMqAuditQueue, BullMqAuditSchedules } from '../audits/bullmq-audit-queue';
import { REDIS_CONNECTION } from './infra.tokens';

/**
 * BullMQ through @nestjs/bullmq: one Redis connection (REDIS_CONNECTION, from the global
 * infrastructure module) with the deployment's key prefix, the traceback and maintenance queues
 * registered, and the TRACEBACK_QUEUE port bound to its producer. Workers (apps/worker) attach to
 * the same queues (the maintenance queue carries the reconciler's job scheduler).
 */
@Module({})
export class QueueModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        BullModule.forRootAsync({ useFactory: (connection: IORedis) => ({ connection, prefix: config.queue.prefix }), inject: [REDIS_CONNECTION] }),
        BullModule.registerQueue({ name: TRACEBACK_QUEUE_NAME }, { name: MAINTENANCE_QUEUE_NAME }, { name: WEBHOOK_QUEUE_NAME }, { name: AUDIT_QUEUE_NAME }),
        DiscoveryModule,
      ],
      providers: [
        // Every registered queue, discovered in the container (metrics, dead letters, queue dashboard).
        QueueRegistry,
        // An `error` listener (warn, rate-limited) on every queue and worker that has none.
        QueueErrorLogs,
        { provide: FAILED_JOBS, useFactory: (registry: QueueRegistry) => new BullMqFailedJobs(() => registry.all()), inject: [QueueRegistry] },
        {
          provide: TRACEBACK_QUEUE,
          // Intake enqueues as one addBulk per batch of concurrent requests (batching-traceback-queue.ts).
          useFactory: (queue: Queue, connection: IORedis) => {
            const opts = { attempts: config.queue.attempts, backoffMs: config.queue.backoffMs, enqueueTimeoutMs: config.queue.enqueueTimeoutMs };
            return new BatchingTracebackQueue(new BullMqTracebackQueue(queue, connection, opts), queue, opts);
          },
          inject: [getQueueToken(TRACEBACK_QUEUE_NAME), REDIS_CONNECTION],
        },
        { provide: AUDIT_QUEUE, useFactory: (queue: Queue) => new BullMqAuditQueue(queue), inject: [getQueueToken(AUDIT_QUEUE_NAME)] },
        { provide: AUDIT_SCHEDULES, useFactory: (queue: Queue) => new BullMqAuditSchedules(queue), inject: [getQueueToken(AUDIT_QUEUE_NAME)] },
      ],
      exports: [TRACEBACK_QUEUE, AUDIT_QUEUE, AUDIT_SCHEDULES, BullModule, QueueRegistry, FAILED_JOBS],
    };
  }
}
