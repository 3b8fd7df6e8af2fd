/**
 * Whether a failed traceback attempt was caused by a dependency being unreachable (Postgres, Redis,
 * the vector store or an LLM endpoint down, refusing or timing out) rather than by the event itself.
 * Such a failure must not consume the event as FAILED: the job is left in the failed set and the
 * reconciler re-drives it once the dependency is back. Classified by cause, through `cause` chains:
 * Prisma's connection error codes and classes, Node socket errors, ioredis connection errors, a full
 * disk (ENOSPC / EDQUOT: the vector store cannot write until space is freed — an outage of the store,
 * not a property of the event), and errors that declare themselves transient (`transient: true`, as
 * JudgeError / GeneratorError / QueueUnreachableError do).
 */
// P2028: a transaction could not start (or finish) in time — the pool was busy, not the event's fault.
const PRISMA_CONNECTION_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'ENOSPC', 'EDQUOT', '57P01', '57P03', '08000', '08001', '08003', '08006']);
const TRANSIENT_NAMES = new Set(['PrismaClientInitializationError', 'MaxRetriesPerRequestError']);
const TRANSIENT_MESSAGE = /can't reach database server|server has closed the connection|timed out fetching a new connection|connection terminated|connection is closed|econnrefused|econnreset|etimedout|queue unreachable|terminating connection due to administrator command|the database system is (starting up|shutting down)|no space left on device|disk quota exceeded|os error 28/i;

export function isTransientFailure(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 5) return false;
  const err = e as { name?: unknown; code?: unknown; errorCode?: unknown; message?: unknown; transient?: unknown; cause?: unknown; errors?: unknown };
  if (err.transient === true) return true;
  if (typeof err.name === 'string' && TRANSIENT_NAMES.has(err.name)) return true;
  for (const c of [err.code, err.errorCode]) if (typeof c === 'string' && (PRISMA_CONNECTION_CODES.has(c) || SOCKET_CODES.has(c))) return true;
  if (typeof err.message === 'string' && TRANSIENT_MESSAGE.test(err.message)) return true;
  if (Array.isArray(err.errors) && err.errors.some((x) => isTransientFailure(x, depth + 1))) return true;
  return isTransientFailure(err.cause, depth + 1);
}

/**
 * A BullMQ worker error saying that a job's lock was gone when it was to be renewed or the job to be
 * recorded finished or failed: Redis answered, late (a pause longer than the lock) — not a connection
 * error. The worker's JobLocks (apps/worker/src/job-locks.ts) says what it means in its own lines.
 */
export function isLockError(err: { message?: unknown } | undefined): boolean {
  return typeof err?.message === 'string' && /^(could not renew lock for job |Missing lock for job |Lock mismatch for job |Job \S+ is not in the active state)/.test(err.message);
}

/**
 * A listener for BullMQ's `error` events (a worker's Redis connection dropping and reconnecting):
 * logs at warn, at most once per `everyMs`, with how many errors were folded into the line —
 * an outage gives one line every `everyMs`, not one per reconnect attempt. Without a listener
 * BullMQ/ioredis print every attempt as an unhandled error. Lock errors (isLockError) are left out:
 * they are not about the connection.
 */
export function rateLimitedErrorLog(warn: (message: string) => void, what: string, everyMs = 30_000, now: () => number = Date.now): (err: Error) => void {
  let last = -Infinity;
  let folded = 0;
  return (err: Error) => {
    if (isLockError(err)) return;
    const t = now();
    if (t - last < everyMs) { folded++; return; }
    const more = folded ? ` (${folded} more since the last report)` : '';
    last = t;
    folded = 0;
    warn(`${what}: ${(err?.message ?? String(err)).split('\n')[0].slice(0, 300)}${more}`);
  };
}
