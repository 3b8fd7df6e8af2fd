import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Job, Worker } from 'bullmq';
import { APP_CONFIG, AUDIT_QUEUE_NAME, MAINTENANCE_QUEUE_NAME, NOT_A_CONNECTION_LOG, TRACEBACK_QUEUE_NAME, WEBHOOK_QUEUE_NAME, type AppConfig } from '@forensics/infra';

/** The longest a job's lock goes without renewal while its worker and Redis are well (BullMQ renews every half of it or sooner). */
export const LOCK_RENEW_MS = 5_000;

/**
 * The lock and stall options of every processor (worker.module.ts). A job is run again when its lock
 * (WORKER_LOCK_MS) expires before it is renewed: its worker died — or Redis did not answer for that long
 * (a paused VM, a fork, a failover), or the worker's event loop was blocked. The stalled checker of any
 * worker then moves it back to wait; a job that finished during the pause cannot be recorded as
 * completed either (BullMQ's moveToFinished needs the lock) and runs again too.
 *
 * With BullMQ's defaults (renewal every lockDuration/2) and the old 30 s lock, a lock had 15–22 s left
 * when a pause began, and a 30 s Redis pause re-ran every job in flight (a scratch run with two workers
 * and four jobs: 4 re-runs of 4). Renewing every 5 s at most keeps at least WORKER_LOCK_MS − 5 s on
 * every lock, so a pause shorter than that (55 s at the default 60 s lock) re-runs nothing; the cost is
 * one small Lua call per worker every 2.5–5 s while it has jobs. A dead worker's job is taken over
 * WORKER_LOCK_MS to WORKER_LOCK_MS + 5 s after its last renewal (the stalled check runs every 5 s);
 * a stopped worker hands its jobs back itself (worker-drain.ts) and does not wait for the lock.
 */
export function jobLockOptions(lockMs: number): { lockDuration: number; lockRenewTime: number; stalledInterval: number } {
  const renew = Math.max(500, Math.min(LOCK_RENEW_MS, Math.floor(lockMs / 2)));
  return { lockDuration: lockMs, lockRenewTime: renew, stalledInterval: Math.max(1000, renew) };
}

/** Why running a queue's job a second time does no harm, in the words of a log line. */
const RERUN_IS_HARMLESS: Record<string, string> = {
  [TRACEBACK_QUEUE_NAME]: 'the next run finds the event TRACED and does nothing, or resumes after its last completed step',
  [WEBHOOK_QUEUE_NAME]: 'the next run skips a delivery already recorded',
  [AUDIT_QUEUE_NAME]: 'the next run resumes from the audit run\'s last checkpoint, or skips a finished run',
  [MAINTENANCE_QUEUE_NAME]: 'the reconciler enqueues only what has no live job',
};

/** A processor that can stop one of its running jobs at the job's next safe point (TracebackProcessor.running). */
export interface StoppableJobs {
  running: { stop(jobId: string, why: 'lock-lost'): boolean };
}

function isStoppable(host: unknown): host is StoppableJobs {
  return typeof (host as Partial<StoppableJobs>).running?.stop === 'function';
}

/**
 * Says, at warn and in operator words, what a Redis pause did to the jobs of this process — in place of
 * BullMQ's "could not renew lock for job X" and "Missing lock for job X. moveToFinished", which the
 * connection-error lines used to report as a "redis connection error" (it is not one: Redis answered,
 * late). For every processor's worker:
 *  - a lock renewed late (no answer for more than LOCK_RENEW_MS + 5 s) but in time: one line, "no job runs twice";
 *  - a lock that could not be renewed (expired meanwhile): one line per job saying how long Redis did not
 *    answer, that the job will run again and why that is harmless. When Redis was the clear cause (no
 *    renewal for longer than the lock, this process not blocked), a traceback job still running here is
 *    stopped at its next safe point (StoppableJobs), so its re-run does not overlap it. Otherwise — this
 *    process's own event loop was blocked long enough to explain it, or the gap is not known — the run goes on:
 *    the cause is here and would come back in the re-run (stopping each run would end, after
 *    maxStalledCount stalls, in a FAILED event), while a run that goes on finishes and its re-run finds it done;
 *  - a job that finished here after its lock expired: one line, the same reassurance;
 *  - a job this worker's stalled check moved back to wait: one line.
 * "How long" is the time since the job's lock was last renewed (or the job started), against the longest
 * stall of this process's event loop meanwhile, watched from the moment this provider is built (a
 * BullMQ worker takes jobs before the app has finished starting, while start-up work may block the loop).
 */
@Injectable()
export class JobLocks implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('job-locks');
  /** Per job id: when its lock was last renewed (or the job became active here). */
  private readonly renewedAt = new Map<string, number>();
  private readonly detach: Array<() => void> = [];
  private loopTimer: NodeJS.Timeout | null;
  private lastTick = Date.now();
  /** Stalls of this process's event loop over 1 s in the last 10 minutes: when each ended and how long. */
  private stalls: Array<{ at: number; ms: number }> = [];

  constructor(@Inject(DiscoveryService) private readonly discovery: DiscoveryService, @Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.loopTimer = setInterval(() => {
      const now = Date.now();
      const stall = now - this.lastTick - 500;
      this.lastTick = now;
      if (stall > 1000) this.stalls = [...this.stalls.filter((x) => x.at > now - 600_000), { at: now, ms: stall }];
    }, 500);
    this.loopTimer.unref();
  }

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const host = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
      if (!(host instanceof WorkerHost)) continue;
      let worker: Worker | undefined;
      try { worker = host.worker; } catch { worker = undefined; }
      if (worker) this.watch(worker, isStoppable(host) ? host : undefined);
    }
  }

  onApplicationShutdown(): void {
    if (this.loopTimer) clearInterval(this.loopTimer);
    this.loopTimer = null;
    for (const d of this.detach.splice(0)) d();
  }

  private watch(worker: Worker, stoppable: StoppableJobs | undefined): void {
    const queue = worker.name;
    const lockS = Math.round(this.config.queue.lockMs / 1000);
    const harmless = RERUN_IS_HARMLESS[queue] ?? 'the job is written to be run again';
    const on = <A extends unknown[]>(event: string, fn: (...args: A) => void) => {
      const listener = fn as (...args: unknown[]) => void;
      worker.on(event as 'error', listener);
      this.detach.push(() => worker.off(event as 'error', listener));
    };
    on('active', (job: Job) => { if (job?.id) this.renewedAt.set(job.id, Date.now()); });
    on('completed', (job: Job) => { if (job?.id) this.renewedAt.delete(job.id); });
    on('failed', (job: Job | undefined) => { if (job?.id) this.renewedAt.delete(job.id); });
    on('locksRenewed', ({ jobIds }: { count: number; jobIds: string[] }) => {
      const now = Date.now();
      const late = jobIds.map((id) => ({ id, ms: now - (this.renewedAt.get(id) ?? now) })).filter((j) => j.ms > LOCK_RENEW_MS + 5_000);
      for (const id of jobIds) this.renewedAt.set(id, now);
      if (!late.length) return;
      const ms = Math.max(...late.map((j) => j.ms));
      this.log.warn(`${this.cause(ms).words}: the ${queue} lock${late.length === 1 ? '' : 's'} of job${late.length === 1 ? '' : 's'} ${late.map((j) => j.id).join(', ')} went unrenewed that long, but a lock lasts ${lockS} s (WORKER_LOCK_MS) and ${late.length === 1 ? 'it was' : 'they were'} renewed in time: no job runs twice`);
    });
    on('lockRenewalFailed', (jobIds: string[]) => {
      const now = Date.now();
      for (const id of jobIds) {
        const since = this.renewedAt.get(id);
        this.renewedAt.delete(id);
        const gapMs = since === undefined ? null : now - since;
        const cause = this.cause(gapMs);
        // Stopped only when Redis is the clear cause: no renewal for longer than the lock, this process not blocked.
        const stopped = !cause.blocked && gapMs !== null && gapMs >= this.config.queue.lockMs && (stoppable?.running.stop(id, 'lock-lost') ?? false);
        const here = stopped ? '. This worker stops its own run at the next safe point, so the two runs do not overlap'
          : cause.blocked && stoppable ? '. Its run goes on here (stopping it would only meet the same block again); the re-run finds it done'
            : stoppable ? '. Its run goes on here; the re-run finds it done or resumes after it' : '';
        this.log.warn(`${queue} job ${id}: ${cause.words}, longer than its lock lasts (${lockS} s, WORKER_LOCK_MS), so the lock expired and could not be renewed; the queue will run the job again (here or on another worker) and that is harmless: ${harmless}${here}`);
      }
    });
    const onError = (err: Error) => {
      const m = /^(?:Missing lock for job (\S+?)\.|Lock mismatch for job (\S+?)\.|Job (\S+) is not in the active state\.).*?(moveToFinished|moveToFailed)/.exec(err?.message ?? '');
      if (!m) return; // connection errors: the processors' and QueueErrorLogs' lines; 'could not renew lock': lockRenewalFailed above
      const id = m[1] ?? m[2] ?? m[3];
      const what = m[4];
      this.log.warn(`${queue} job ${id}: ${what === 'moveToFinished' ? 'finished' : 'failed'} here, but its lock had expired meanwhile (Redis did not answer for longer than ${lockS} s, WORKER_LOCK_MS), so the queue could not record it; it runs again and that is harmless: ${harmless}`);
    };
    (onError as unknown as { [NOT_A_CONNECTION_LOG]: true })[NOT_A_CONNECTION_LOG] = true;
    on('error', onError);
    on('stalled', (jobId: string) => {
      this.log.warn(`${queue} job ${jobId}: its lock had expired (its worker died, or it could not reach Redis for longer than ${lockS} s, WORKER_LOCK_MS); moved back to the queue to run again, which is harmless: ${harmless}`);
    });
  }

  /**
   * Why a lock went `gapMs` without renewal (null: not known, the job started before this process watched):
   * this process's event loop was blocked long enough to explain it — for half the gap, or as long as a lock
   * outlives its renewal interval — or else Redis did not answer.
   */
  private cause(gapMs: number | null): { blocked: boolean; words: string } {
    const lockMs = this.config.queue.lockMs;
    const margin = lockMs - jobLockOptions(lockMs).lockRenewTime;
    const since = Date.now() - (gapMs ?? 2 * lockMs);
    const stall = Math.max(0, ...this.stalls.filter((x) => x.at >= since).map((x) => x.ms));
    const blocked = stall >= margin || (gapMs !== null && stall >= gapMs / 2);
    const gap = gapMs === null ? 'longer than its lock' : `about ${Math.round(gapMs / 1000)} s`;
    return blocked
      ? { blocked, words: `this worker's event loop was blocked for ${(stall / 1000).toFixed(1)} s (no lock renewal for ${gap})` }
      : { blocked, words: gapMs === null ? 'Redis did not answer this worker for longer than the lock' : `Redis did not answer this worker for ${gap}` };
  }
}
