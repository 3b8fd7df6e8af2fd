import { ValidationError, type AuditQueue, type AuditSchedule, type AuditSchedules } from '@forensics/core';
import type { Queue } from 'bullmq';
import { AUDIT_JOB_OPTIONS, AUDIT_RUN_JOB, AUDIT_SCHEDULED_JOB, auditJobId, auditSchedulerId } from '../queue/queue.constants';

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

/** Audit schedules as BullMQ job schedulers on the `audits` queue (kept in Redis; the worker's AUDIT_SCHEDULE entries are registered at its start). */
export class BullMqAuditSchedules implements AuditSchedules {
  constructor(private readonly queue: Queue) {}

  async list(): Promise<AuditSchedule[]> {
    const all = await this.queue.getJobSchedulers(0, -1, true);
    return all.filter((s) => s.name === AUDIT_SCHEDULED_JOB).map((s) => {
      const data = (s.template?.data ?? {}) as { kind?: string; collection?: string; params?: Record<string, unknown> };
      return { kind: data.kind ?? '?', collection: data.collection ?? '?', cron: s.pattern ?? `every ${s.every} ms`, next: s.next ? new Date(s.next).toISOString() : null, params: data.params ?? {} };
    });
  }

  async upsert(s: { kind: string; collection: string; cron: string; params: Record<string, unknown> }): Promise<AuditSchedule> {
    try {
      await this.queue.upsertJobScheduler(auditSchedulerId(s.kind, s.collection), { pattern: s.cron, tz: 'UTC' }, {
        name: AUDIT_SCHEDULED_JOB, data: { kind: s.kind, collection: s.collection, params: s.params, source: 'api' }, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 50 } },
      });
    } catch (e) {
      if (/pattern|cron|Invalid/i.test((e as Error).message)) throw new ValidationError(`cron: ${(e as Error).message}`);
      throw e;
    }
    const found = (await this.list()).find((x) => x.kind === s.kind && x.collection === s.collection);
    return found ?? { ...s, next: null };
  }

  async remove(kind: string, collection: string): Promise<boolean> {
    return this.queue.removeJobScheduler(auditSchedulerId(kind, collection));
  }
}

/** No Redis in this process: no schedules. */
export class NoAuditSchedules implements AuditSchedules {
  async list(): Promise<AuditSchedule[]> { return []; }
  async upsert(): Promise<AuditSchedule> { throw new Error('no queue in this process: audit schedules need Redis'); }
  async remove(): Promise<boolean> { return false; }
}
