import { WaitingError, type Job } from 'bullmq';
import { JobStopped, RunningJobs } from '../running-jobs';

/** A job whose moveToWait is recorded (or fails), as BullMQ's Job would be called by the processor. */
function fakeJob(id: string, moveToWait: (token?: string) => Promise<unknown> = async () => 0) {
  const calls: Array<string | undefined> = [];
  const job = { id, data: { feedbackId: `f-${id}` }, moveToWait: async (token?: string) => { calls.push(token); return moveToWait(token); } } as unknown as Job;
  return { job, calls };
}

describe('RunningJobs', () => {
  it('stopAll aborts every run with a JobStopped reason; handBack moves the job to wait with its token and throws WaitingError', async () => {
    const jobs = new RunningJobs();
    const a = fakeJob('trace-a');
    const run = jobs.start(a.job, 'token-a');
    run.progress('round 2');
    expect(run.stopped).toBe(false);
    expect(jobs.stopAll('drain-timeout')).toEqual(['trace-a']);
    expect(run.stopped).toBe(true);
    expect(run.signal.reason).toBeInstanceOf(JobStopped);
    const lines: string[] = [];
    await expect(run.handBack((l) => lines.push(l))).rejects.toBeInstanceOf(WaitingError);
    expect(a.calls).toEqual(['token-a']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^job trace-a handed back to the queue after 'round 2', \d+ s into its run: the drain timeout \(WORKER_DRAIN_MS\) passed/);
    run.done();
    expect(jobs.list()).toEqual([]);
  });

  it('a lost lock is not moved (the lock is gone): the stalled check puts it back; it wins over a drain stop', async () => {
    const jobs = new RunningJobs();
    const a = fakeJob('trace-a');
    const run = jobs.start(a.job, 'token-a');
    jobs.stop('trace-a', 'drain-timeout');
    expect(jobs.stop('trace-a', 'lock-lost')).toBe(true);
    const lines: string[] = [];
    await expect(run.handBack((l) => lines.push(l))).rejects.toBeInstanceOf(WaitingError);
    expect(a.calls).toEqual([]);
    expect(lines[0]).toMatch(/^job trace-a stopped before its first step: its lock was lost/);
    expect(jobs.stop('trace-unknown', 'lock-lost')).toBe(false);
  });

  it('a hand-back that Redis refuses says the job is left to its lock', async () => {
    const jobs = new RunningJobs();
    const a = fakeJob('trace-a', async () => { throw new Error('Missing lock for job trace-a. moveJobFromActiveToWait'); });
    const run = jobs.start(a.job, 'token-a');
    jobs.stopAll('drain-timeout');
    const lines: string[] = [];
    await expect(run.handBack((l) => lines.push(l))).rejects.toBeInstanceOf(WaitingError);
    expect(lines[0]).toContain('could not be handed back (Missing lock for job trace-a. moveJobFromActiveToWait); another worker takes it over once its lock expires');
  });
});
