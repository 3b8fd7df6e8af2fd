import type { AuditQueue } from '@forensics/core';
import type { Queue } from 'bullmq';
import { AUDIT_JOB_OPTIONS, AUDIT_RUN_JOB, auditJobId } from '../queue/queue.constants';

/** The `audits` queue's producer: one job per run (idempotent by job id). */
export class BullMqAuditQueue implements AuditQueue {
  constructor(private readonly queue: Queue) {}

  async enqueue(runId: string): Promise<void> {
    await this.queue.add(AUDIT_RUN_JOB, { runId }, { ...AUDIT_JOB_OPTIONS, jobId: auditJobId(runId) });
  }
}

/** Without Redis (a process with no queue): runs can be created but must be run inline (the CLI does). */
export class NoAuditQueue implements AuditQueue {
  async enqueue(runId: string): Promise<void> {
    throw new Error(`no queue in this process: audit run ${runId} was created but must be run inline (npm run audit -- <kind> runs it in-process)`);
  }
}
