import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** One step of stopping a process: send `signal`, then wait up to `seconds` for it to exit. */
export type StopStep = readonly [signal: NodeJS.Signals, seconds: number];

export interface ServiceGuard {
  /** The owner stops the process itself: the guard exits without touching it. */
  release(): void;
}

// $1: the pid; then signal/seconds pairs. A line on stdin: released. End of file: the owner is gone.
// A zombie still answers kill -0 (the owner's death hands it to init, which reaps it a moment later): it
// counts as gone, so the guard never signals a pid the system may have reused.
const GUARD_SCRIPT = `
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  read -r st < "/proc/$1/stat" || return 1
  case "\${st##*) }" in Z*) return 1 ;; esac
}
if read -r _; then exit 0; fi
pid=$1; shift
while [ $# -ge 2 ] && alive "$pid"; do
  kill -s "$1" "$pid" 2>/dev/null
  n=$(( $2 * 10 ))
  while [ "$n" -gt 0 ] && alive "$pid"; do sleep 0.1; n=$(( n - 1 )); done
  shift 2
done
`;

/**
 * Stops `pid` (a server this process started: the embedded PostgreSQL or Redis) when this process
 * dies without stopping it — SIGKILL, a crash, an exit that skipped the shutdown — instead of leaving
 * it running as an orphan that holds the data dir and its port. Neither server can watch its parent
 * itself, so a small `sh` does: it reads a pipe whose only writer is this process, and the kernel
 * closes the pipe when this process ends, however it ends. Then the guard sends `steps` in turn
 * (e.g. a fast shutdown, then an immediate one), each while the server still runs. The guard is
 * detached (its own session), so a signal to this process's group does not take it down with us.
 */
export function guardService(pid: number, steps: readonly StopStep[]): ServiceGuard {
  const guard = spawn('sh', ['-c', GUARD_SCRIPT, 'service-guard', String(pid), ...steps.flatMap(([sig, s]) => [sig.replace(/^SIG/, ''), String(s)])], {
    detached: true, stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.on('error', () => { /* no sh: no guard; the owner still stops the server on an orderly exit */ });
  guard.stdin!.on('error', () => { /* the guard is gone already */ });
  // Neither the guard nor its pipe keeps this process alive.
  guard.unref();
  (guard.stdin as unknown as Socket).unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      guard.stdin!.end('released\n');
    },
  };
}
