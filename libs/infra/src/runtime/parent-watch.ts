/** The supervisor's pid, in the environment of a worker that `npm start` runs (apps/cli/src/main.ts). */
export const SUPERVISOR_PID_ENV = 'FORENSICS_SUPERVISOR_PID';

/** After the worker's drain timeout, how long a stopped traceback run gets to reach its next safe point (apps/worker/src/worker-drain.ts). */
export const WORKER_HAND_BACK_GRACE_MS = 10_000;

/**
 * How long `npm start` lets a worker stop before it kills it (and a worker whose supervisor died waits
 * before it exits anyway): 120 s, as compose's stop_grace_period, or longer when WORKER_DRAIN_MS needs it
 * (the drain, the hand-back grace, 20 s to close the rest).
 */
export function workerStopGraceMs(config: { queue: { drainMs: number } }): number {
  return Math.max(120_000, config.queue.drainMs + WORKER_HAND_BACK_GRACE_MS + 20_000);
}

/**
 * Calls `gone` once `parent` is no longer this process's parent: it died — a SIGKILL forwards
 * nothing — and this process was handed to init or a subreaper, so its parent pid changed. Checked
 * at once (the parent may have died while this process was still loading its modules), then every
 * `everyMs`; the timer does not keep the process alive.
 */
export function onParentGone(parent: number, gone: () => void, everyMs = 500): void {
  const check = (): boolean => {
    if (process.ppid === parent) return false;
    gone();
    return true;
  };
  if (check()) return;
  const timer = setInterval(() => { if (check()) clearInterval(timer); }, everyMs);
  timer.unref();
}
