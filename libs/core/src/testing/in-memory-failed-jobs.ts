import type { FailedJob, FailedJobRetryOutcome, FailedJobs } from '../ports/dead-letters.port';

/** In-memory FailedJobs: jobs with a state per queue; `retry` moves a failed one to 'waiting'. */
export class InMemoryFailedJobs implements FailedJobs {
  readonly jobs: Array<FailedJob & { state: string }> = [];

  add(job: Partial<FailedJob> & { queue: string; id: string }, state = 'failed'): void {
    this.jobs.push({ name: 'job', failedReason: 'failed', attemptsMade: 1, createdAt: new Date(), failedAt: new Date(), feedbackId: null, ...job, state });
  }

  async queues(): Promise<string[]> { return [...new Set(this.jobs.map((j) => j.queue))].sort(); }

  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const j of this.jobs) out[j.queue] = (out[j.queue] ?? 0) + (j.state === 'failed' ? 1 : 0);
    return out;
  }

  async list(queue: string, offset: number, limit: number): Promise<FailedJob[]> {
    return this.jobs.filter((j) => j.queue === queue && j.state === 'failed').reverse().slice(offset, offset + limit).map(({ state: _s, ...j }) => j);
  }

  async get(queue: string, id: string) { return this.jobs.find((j) => j.queue === queue && j.id === id) ?? null; }

  async retry(queue: string, id: string): Promise<FailedJobRetryOutcome> {
    const j = this.jobs.find((x) => x.queue === queue && x.id === id);
    if (!j) return 'not-found';
    if (j.state !== 'failed') return 'not-failed';
    j.state = 'waiting';
    j.attemptsMade = 0;
    return 'retried';
  }
}
