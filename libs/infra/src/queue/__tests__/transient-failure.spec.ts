import { QueueUnreachableError } from '../bullmq-traceback-queue';
import { isLockError, isTransientFailure, rateLimitedErrorLog } from '../transient-failure';

describe('isTransientFailure', () => {
  it('is true for an unreachable dependency, through cause chains', () => {
    expect(isTransientFailure(Object.assign(new Error("Can't reach database server at `db:5432`"), { code: 'P1001' }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('x'), { name: 'PrismaClientInitializationError' }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientFailure(new Error('wrapped', { cause: Object.assign(new Error('timeout'), { code: 'P2024' }) }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('judge 503'), { transient: true }))).toBe(true);
    expect(isTransientFailure(new AggregateError([new Error('a'), Object.assign(new Error('b'), { code: 'ETIMEDOUT' })]))).toBe(true);
    // A full disk under the vector store: the store is out until space is freed.
    expect(isTransientFailure(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC' }))).toBe(true);
    expect(isTransientFailure(new Error('lance error: IO error: No space left on device (os error 28)'))).toBe(true);
    expect(isTransientFailure(new QueueUnreachableError('redis connection is reconnecting'))).toBe(true);
  });

  it('is false for failures of the event itself', () => {
    expect(isTransientFailure(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }))).toBe(false);
    expect(isTransientFailure(Object.assign(new Error('judge 401'), { transient: false }))).toBe(false);
    expect(isTransientFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isTransientFailure(undefined)).toBe(false);
  });
});

describe('rateLimitedErrorLog', () => {
  it('logs the first error, folds the rest of the window into the next line', () => {
    let now = 0;
    const lines: string[] = [];
    const log = rateLimitedErrorLog((m) => lines.push(m), 'redis', 30_000, () => now);
    log(new Error('connect ECONNREFUSED 127.0.0.1:6379\n    at stack'));
    for (let i = 0; i < 50; i++) { now += 100; log(new Error('connect ECONNREFUSED 127.0.0.1:6379')); }
    expect(lines).toEqual(['redis: connect ECONNREFUSED 127.0.0.1:6379']);
    now = 30_001;
    log(new Error('Connection is closed.'));
    expect(lines).toEqual(['redis: connect ECONNREFUSED 127.0.0.1:6379', 'redis: Connection is closed. (50 more since the last report)']);
  });
});

describe('lock errors are not connection errors', () => {
  // BullMQ 6's messages (lock-manager.js, finished-errors.js): Redis answered, but the job's lock was gone.
  const lockErrors = ['could not renew lock for job trace-1', 'Missing lock for job trace-1. moveToFinished', 'Lock mismatch for job trace-1. Cmd moveToFinished from active', 'Job trace-1 is not in the active state. moveToFailed'];

  it('isLockError tells them from connection errors', () => {
    expect(lockErrors.map((m) => isLockError(new Error(m)))).toEqual(lockErrors.map(() => true));
    expect(['connect ECONNREFUSED 127.0.0.1:6379', 'Connection is closed.', 'Missing key for job trace-1. moveToFinished'].map((m) => isLockError(new Error(m)))).toEqual([false, false, false]);
  });

  it('the connection-error line leaves them out (the worker\'s JobLocks says what they mean)', () => {
    const lines: string[] = [];
    const log = rateLimitedErrorLog((m) => lines.push(m), 'traceback worker: redis connection error', 30_000, () => 0);
    for (const m of lockErrors) log(new Error(m));
    expect(lines).toEqual([]);
    log(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    expect(lines).toEqual(['traceback worker: redis connection error: connect ECONNREFUSED 127.0.0.1:6379']);
  });
});
