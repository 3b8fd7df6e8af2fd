import { EventEmitter } from 'node:events';
import { WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';
import { NOT_A_CONNECTION_LOG, type AppConfig } from '@forensics/infra';
import { QueueErrorLogs } from '@forensics/infra/queue/queue-error-logs';
import { JobLocks, jobLockOptions } from '../job-locks';

class FakeHost extends WorkerHost {
  readonly stopped: string[] = [];
  readonly running = { stop: (jobId: string) => { this.stopped.push(jobId); return true; } };
  constructor(worker: EventEmitter) { super(); (this as unknown as { _worker: EventEmitter })._worker = worker; }
  async process(): Promise<void> {}
}

function setup(lockMs = 60_000) {
  const worker = Object.assign(new EventEmitter(), { name: 'traceback' });
  const host = new FakeHost(worker);
  const discovery = { getProviders: () => [{ isDependencyTreeStatic: () => true, instance: host }] } as unknown as DiscoveryService;
  const locks = new JobLocks(discovery, { queue: { lockMs } } as AppConfig);
  const lines: string[] = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((m: unknown) => { lines.push(String(m)); });
  locks.onApplicationBootstrap();
  return { worker, host, locks, lines, discovery };
}

describe('jobLockOptions', () => {
  it('renews every 5 s at most, so a lock keeps WORKER_LOCK_MS − 5 s; short test locks keep BullMQ\'s half', () => {
    expect(jobLockOptions(60_000)).toEqual({ lockDuration: 60_000, lockRenewTime: 5_000, stalledInterval: 5_000 });
    expect(jobLockOptions(2_000)).toEqual({ lockDuration: 2_000, lockRenewTime: 1_000, stalledInterval: 1_000 });
  });
});

describe('JobLocks: what a Redis pause did, in words', () => {
  let now = 1_000_000;
  beforeEach(() => { now = 1_000_000; jest.spyOn(Date, 'now').mockImplementation(() => now); });
  afterEach(() => jest.restoreAllMocks());

  it('a renewal 31 s late but in time: one line saying no job runs twice; an ordinary renewal: none', () => {
    const { worker, locks, lines } = setup();
    worker.emit('active', { id: 'trace-a' });
    now += 4_000;
    worker.emit('locksRenewed', { count: 1, jobIds: ['trace-a'] });
    expect(lines).toEqual([]);
    now += 31_000;
    worker.emit('locksRenewed', { count: 1, jobIds: ['trace-a'] });
    expect(lines).toEqual(['Redis did not answer this worker for about 31 s: the traceback lock of job trace-a went unrenewed that long, but a lock lasts 60 s (WORKER_LOCK_MS) and it was renewed in time: no job runs twice']);
    locks.onApplicationShutdown();
  });

  it('a lock that could not be renewed: the run here is stopped, and the line says the re-run is harmless', () => {
    const { worker, host, locks, lines } = setup();
    worker.emit('active', { id: 'trace-a' });
    now += 70_000;
    worker.emit('lockRenewalFailed', ['trace-a']);
    expect(host.stopped).toEqual(['trace-a']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('traceback job trace-a: Redis did not answer this worker for about 70 s, longer than its lock lasts (60 s, WORKER_LOCK_MS), so the lock expired and could not be renewed; the queue will run the job again (here or on another worker) and that is harmless: the next run finds the event TRACED and does nothing, or resumes after its last completed step. This worker stops its own run at the next safe point, so the two runs do not overlap');
    locks.onApplicationShutdown();
  });

  it('a job finished here after its lock expired: one line; a connection error: none (that is the connection log\'s), and that log still attaches', () => {
    const { worker, locks, lines, discovery } = setup();
    worker.emit('error', new Error('Missing lock for job trace-b. moveToFinished'));
    worker.emit('error', new Error('Lock mismatch for job trace-c. Cmd moveToFailed from active'));
    worker.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    worker.emit('error', new Error('could not renew lock for job trace-d'));
    expect(lines).toEqual([
      'traceback job trace-b: finished here, but its lock had expired meanwhile (Redis did not answer for longer than 60 s, WORKER_LOCK_MS), so the queue could not record it; it runs again and that is harmless: the next run finds the event TRACED and does nothing, or resumes after its last completed step',
      'traceback job trace-c: failed here, but its lock had expired meanwhile (Redis did not answer for longer than 60 s, WORKER_LOCK_MS), so the queue could not record it; it runs again and that is harmless: the next run finds the event TRACED and does nothing, or resumes after its last completed step',
    ]);
    // QueueErrorLogs gives a worker its connection-error line unless it has one: this listener does not count.
    expect(worker.listeners('error').every((l) => (l as unknown as Record<symbol, unknown>)[NOT_A_CONNECTION_LOG] === true)).toBe(true);
    new QueueErrorLogs({ all: () => [] } as never, discovery).onApplicationBootstrap();
    worker.emit('error', new Error('could not renew lock for job trace-d'));
    worker.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    expect(lines.slice(2)).toEqual(['traceback worker: redis connection error (reconnecting): connect ECONNREFUSED 127.0.0.1:6379']);
    locks.onApplicationShutdown();
    expect(worker.listenerCount('error')).toBe(1);
  });

  it('a lock lost while this process\'s own event loop was blocked: the line says so and the run goes on (the block would come back in the re-run)', async () => {
    jest.restoreAllMocks(); // real time: the loop is really blocked below
    const { worker, host, locks, lines } = setup(2_000);
    worker.emit('active', { id: 'trace-a' });
    const until = Date.now() + 2_500;
    while (Date.now() < until) { /* a synchronous stretch longer than the lock */ }
    await new Promise((r) => setTimeout(r, 600)); // the loop monitor's next tick records the stall
    worker.emit('lockRenewalFailed', ['trace-a']);
    expect(host.stopped).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^traceback job trace-a: this worker's event loop was blocked for \d\.\d s \(no lock renewal for about \d s\), longer than its lock lasts \(2 s, WORKER_LOCK_MS\), .*Its run goes on here \(stopping it would only meet the same block again\); the re-run finds it done$/);
    locks.onApplicationShutdown();
  });
});
