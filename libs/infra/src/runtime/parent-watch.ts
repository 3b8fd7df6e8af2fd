/** The supervisor's pid, in the environment of a worker that `npm start` runs (apps/cli/src/main.ts). */
export const SUPERVISOR_PID_ENV = 'FORENSICS_SUPERVISOR_PID';

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
