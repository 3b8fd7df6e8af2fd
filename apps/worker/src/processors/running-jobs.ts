import { WaitingError, type Job } from 'bullmq';

/** Why a running job is stopped before it finished: the worker's drain timeout, or its lock expired (job-locks.ts). */
export type StopReason = 'drain-timeout' | 'lock-lost';

export class JobStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(reason === 'drain-timeout' ? 'stopped: the worker is shutting down and its drain timeout passed' : 'stopped: the job lock was lost');
    this.name = 'JobStopped';
  }
}

interface Running {
  job: Job;
  token: string | undefined;
  controller: AbortController;
  startedAt: number;
  /** The last step the run reported (progress: 'round', 'traced', …), for the hand-back line. */
  lastStep: string | null;
  /** Why it was stopped (an AbortSignal keeps its first reason; a lost lock must win over the drain). */
  reason: StopReason | null;
}

/** One running job as its processor sees it: the signal to pass down, where it got to, and what to do once it stopped. */
export interface RunningJob {
  readonly signal: AbortSignal;
  /** A step the run reported (its onProgress): kept for the hand-back line ('round 2', 'traced', …). */
  progress(step: string, detail?: Record<string, unknown>): void;
  /** True when the run was stopped (the caught error is then the stop, whatever the run threw). */
  readonly stopped: boolean;
  /** Hands a stopped job back to the queue (drain) or leaves it to the stalled check (lock lost); logs one line; always throws WaitingError. */
  handBack(describe: (line: string) => void): Promise<never>;
  done(): void;
}

/**
 * The jobs a processor is running, each with an AbortController of its own (not BullMQ's job signal: that
 * one is passed only to a processor function declaring three parameters, which any wrapper silently
 * undoes, and its reason is a string). stop() aborts a run; the pipeline stops at its next safe point
 * (ProcessFeedbackEventCommand.signal) and the processor calls handBack():
 *  - drain timeout: `job.moveToWait(token)` (BullMQ's manual-retry pattern, then WaitingError so the worker
 *    neither completes nor fails it): the job is waiting again at once, for another worker, with no attempt
 *    used and no stall counted. It runs after this run has stopped writing, so two runs never overlap.
 *  - lock lost: the lock is gone, so the job cannot be moved; the stalled check of some worker puts it back.
 */
export class RunningJobs {
  private readonly running = new Map<string, Running>();

  start(job: Job, token: string | undefined): RunningJob {
    const r: Running = { job, token, controller: new AbortController(), startedAt: Date.now(), lastStep: null, reason: null };
    const key = job.id ?? '';
    this.running.set(key, r);
    return {
      signal: r.controller.signal,
      progress: (step, detail) => { r.lastStep = step === 'round' ? `round ${String(detail?.round)}` : step; },
      get stopped() { return r.controller.signal.aborted; },
      handBack: (describe) => this.handBack(r, describe),
      done: () => { if (this.running.get(key) === r) this.running.delete(key); },
    };
  }

  /**
   * Runs `fn` as the running job `job`: a run that was stopped is handed back (`say` gets its one line; WaitingError is
   * thrown, whatever `fn` threw); any other outcome is `fn`'s.
   */
  async run<T>(job: Job, token: string | undefined, fn: (run: RunningJob) => Promise<T>, say: (line: string) => void): Promise<T> {
    const run = this.start(job, token);
    try {
      return await fn(run);
    } catch (e) {
      if (run.stopped) return await run.handBack(say);
      throw e;
    } finally {
      run.done();
    }
  }

  /** Stops one running job (at its next safe point); false when it is not running here. */
  stop(jobId: string, reason: StopReason): boolean {
    const r = this.running.get(jobId);
    if (!r) return false;
    // A lost lock wins over the drain: the job cannot be moved any more.
    if (r.reason !== 'lock-lost') r.reason = reason;
    r.controller.abort(new JobStopped(reason));
    return true;
  }

  /** Stops every running job; returns their ids. */
  stopAll(reason: StopReason): string[] {
    const ids = [...this.running.keys()];
    for (const id of ids) this.stop(id, reason);
    return ids;
  }

  /** The jobs still running: id, feedback id, seconds running and the last step each reported. */
  list(): Array<{ jobId: string; feedbackId: unknown; seconds: number; lastStep: string | null }> {
    return [...this.running.entries()].map(([jobId, r]) => ({ jobId, feedbackId: (r.job.data as { feedbackId?: unknown })?.feedbackId, seconds: Math.round((Date.now() - r.startedAt) / 1000), lastStep: r.lastStep }));
  }

  private async handBack(r: Running, describe: (line: string) => void): Promise<never> {
    const reason = r.reason ?? 'drain-timeout';
    const where = r.lastStep ? `after '${r.lastStep}'` : 'before its first step';
    if (reason === 'lock-lost') {
      describe(`job ${r.job.id} stopped ${where}: its lock was lost; the queue runs it again after its last completed step`);
    } else {
      try {
        await r.job.moveToWait(r.token);
        describe(`job ${r.job.id} handed back to the queue ${where}, ${Math.round((Date.now() - r.startedAt) / 1000)} s into its run: the drain timeout (WORKER_DRAIN_MS) passed; another worker resumes it after its last completed step`);
      } catch (e) {
        describe(`job ${r.job.id} stopped ${where} at the drain timeout but could not be handed back (${(e as Error).message}); another worker takes it over once its lock expires (WORKER_LOCK_MS)`);
      }
    }
    throw new WaitingError();
  }
}
