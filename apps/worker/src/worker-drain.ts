import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Job, Worker } from 'bullmq';
import { APP_CONFIG, WORKER_HAND_BACK_GRACE_MS, type AppConfig } from '@forensics/infra';
import { TracebackProcessor } from './processors/traceback.processor';

const HAND_BACK_GRACE_MS = WORKER_HAND_BACK_GRACE_MS;

export interface DrainResult {
  ms: number;
  /** Traceback jobs stopped at the drain timeout (each handed back, one log line each). */
  handedBack: number;
  /** Jobs still running when the process gave up waiting (their locks expire; another worker takes them over). */
  leftRunning: number;
}

/**
 * The worker's graceful stop (issue 57 item 1), called by main.ts on SIGTERM/SIGINT with the app's close:
 *  1. at once: closing the app closes every BullMQ worker (@nestjs/bullmq: Worker.close()), which takes no
 *     new job and waits for the active ones; their locks are still renewed meanwhile;
 *  2. after WORKER_DRAIN_MS: every traceback job still running is stopped at its next safe point (between
 *     steps, judge calls, rounds, decisions; a judge call in flight is aborted) and handed back to the queue
 *     (running-jobs.ts) — another worker resumes it after its last completed step at once, not after its lock
 *     expires; one log line per job;
 *  3. HAND_BACK_GRACE_MS later, what still runs (a run stuck in a step it cannot leave, or another queue's
 *     job) is logged and the process exits without it: no run is cut between two writes that belong
 *     together by this code, and the job is taken over once its lock expires (WORKER_LOCK_MS), as after a crash.
 * Once the workers are closed the app closes the rest (vector store, Postgres, Redis: graceful-shutdown test).
 */
@Injectable()
export class WorkerDrain implements OnApplicationBootstrap {
  private readonly log = new Logger('worker');
  private traceback: TracebackProcessor[] = [];
  /** Active jobs of the other processors (they are not stopped; only counted), per worker. */
  private readonly others = new Map<Worker, Set<string>>();

  constructor(@Inject(DiscoveryService) private readonly discovery: DiscoveryService, @Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const host = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
      if (host instanceof TracebackProcessor) { this.traceback.push(host); continue; }
      if (!(host instanceof WorkerHost)) continue;
      let worker: Worker | undefined;
      try { worker = host.worker; } catch { worker = undefined; }
      if (!worker) continue;
      const active = new Set<string>();
      this.others.set(worker, active);
      worker.on('active', (job: Job) => { if (job.id) active.add(job.id); });
      const settled = (job: Job | undefined) => { if (job?.id) active.delete(job.id); };
      worker.on('completed', settled);
      worker.on('failed', settled);
    }
  }

  /** `why`: the signal (or 'supervisor gone'); `close`: the app's close. Resolves when it may exit. */
  async run(why: string, close: () => Promise<void>): Promise<DrainResult> {
    const t0 = Date.now();
    const drainMs = this.config.queue.drainMs;
    const running = () => this.traceback.flatMap((p) => p.running.list());
    const othersRunning = () => [...this.others.entries()].flatMap(([w, ids]) => [...ids].map((id) => `${w.name} job ${id}`));
    this.log.log(`${why}: taking no new jobs; ${running().length + othersRunning().length} running job(s) get up to ${drainMs} ms to finish (WORKER_DRAIN_MS)`);
    let handedBack = 0;
    const closed = close().then(() => 'closed' as const, (e: unknown) => { this.log.error(`closing failed: ${(e as Error).message}`); return 'closed' as const; });
    let handBack: NodeJS.Timeout | undefined;
    let giveUp: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'gave-up'>((resolve) => {
      handBack = setTimeout(() => {
        const ids = this.traceback.flatMap((p) => p.running.stopAll('drain-timeout'));
        handedBack = ids.length;
        if (ids.length) this.log.warn(`drain timeout after ${Date.now() - t0} ms: stopping ${ids.length} traceback job(s) at their next safe point to hand them back (${ids.join(', ')})`);
      }, drainMs);
      giveUp = setTimeout(() => resolve('gave-up'), drainMs + HAND_BACK_GRACE_MS);
    });
    const outcome = await Promise.race([closed, timedOut]);
    clearTimeout(handBack);
    clearTimeout(giveUp);
    const ms = Date.now() - t0;
    if (outcome === 'closed') {
      this.log.log(`stopped in ${ms} ms${handedBack ? `: ${handedBack} job(s) handed back` : ': every active job finished'}`);
      return { ms, handedBack, leftRunning: 0 };
    }
    const left = [
      ...running().map((r) => `traceback job ${r.jobId} (feedback ${String(r.feedbackId)}, ${r.seconds} s, after '${r.lastStep ?? 'start'}')`),
      ...othersRunning(),
    ];
    for (const what of left) this.log.warn(`${what} did not stop within ${HAND_BACK_GRACE_MS} ms of the drain timeout; exiting without it: another worker takes it over once its lock expires (WORKER_LOCK_MS ${this.config.queue.lockMs} ms)`);
    return { ms, handedBack, leftRunning: left.length };
  }
}
