import type { RedriveOutcome, TracebackQueue } from '../../../../ports/traceback-queue.port';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { ReconcilePendingFeedbackUseCase } from '../reconcile-pending-feedback.use-case';

/** A queue that knows the state of each event's job, as BullMQ does. */
class StatefulQueue implements TracebackQueue {
  down = false;
  readonly jobs = new Map<string, 'waiting' | 'active' | 'failed' | 'completed'>();
  readonly calls: string[] = [];
  async enqueueTraceback(id: string) {
    if (this.down) throw new Error('queue unreachable');
    if (!this.jobs.has(id)) this.jobs.set(id, 'waiting');
  }
  async redriveTraceback(id: string): Promise<RedriveOutcome> {
    if (this.down) throw new Error('queue unreachable');
    this.calls.push(id);
    const s = this.jobs.get(id);
    if (!s) { this.jobs.set(id, 'waiting'); return 'added'; }
    if (s === 'failed') { this.jobs.set(id, 'waiting'); return 'retried'; }
    if (s === 'completed') { this.jobs.set(id, 'waiting'); return 'replaced'; }
    return 'live';
  }
  async ping() {}
  async close() {}
}

async function setup() {
  let now = new Date('2026-01-01T00:00:00Z');
  const repos = createInMemoryRepositories(() => now);
  const queue = new StatefulQueue();
  const useCases = composeUseCases({ repos, queue, store: new InMemoryVectorStore(), embedder: new HashingEmbedder(16), judge: new ScriptedJudge(() => 'NO'), clock: { now: () => now } });
  const make = async (q: string) => (await repos.feedback.create({ collection: 'kb', query: q, wrongAnswer: 'w', k: 3 })).event;
  return { repos, queue, reconcile: useCases.get(ReconcilePendingFeedbackUseCase), make, advance: (ms: number) => { now = new Date(now.getTime() + ms); } };
}

describe('ReconcilePendingFeedbackUseCase', () => {
  it('gives every pending event past the grace period a live job, and leaves fresh or terminal ones alone', async () => {
    const { repos, queue, reconcile, make, advance } = await setup();
    const received = await make('a');
    const queuedFailed = await make('b');
    await repos.feedback.transition(queuedFailed.id, { from: ['RECEIVED'], to: 'QUEUED' });
    queue.jobs.set(queuedFailed.id, 'failed');
    const tracingLost = await make('c');
    await repos.feedback.transition(tracingLost.id, { from: ['RECEIVED'], to: 'TRACING' });
    const live = await make('d');
    await repos.feedback.transition(live.id, { from: ['RECEIVED'], to: 'QUEUED' });
    queue.jobs.set(live.id, 'active');
    const done = await make('e');
    await repos.feedback.transition(done.id, { from: ['RECEIVED'], to: 'TRACED' });
    advance(10_000);
    const fresh = await make('f');

    const out = await reconcile.execute({ graceMs: 5_000 });
    expect(out.dispatched).toEqual([received.id]);
    expect((await repos.feedback.get(received.id))!.status).toBe('QUEUED');
    expect(out.redriven).toEqual(expect.arrayContaining([{ feedbackId: queuedFailed.id, outcome: 'retried' }, { feedbackId: tracingLost.id, outcome: 'added' }]));
    expect(out.redriven).toHaveLength(2);
    expect(queue.calls).not.toContain(done.id);
    expect(queue.jobs.has(fresh.id)).toBe(false);
    expect(out.errors).toBe(0);
  });

  it('counts what the queue could not take and leaves it pending for the next run', async () => {
    const { repos, queue, reconcile, make, advance } = await setup();
    const ev = await make('a');
    advance(10_000);
    queue.down = true;
    expect(await reconcile.execute({ graceMs: 5_000 })).toEqual({ dispatched: [], redriven: [], errors: 1 });
    expect((await repos.feedback.get(ev.id))!.status).toBe('RECEIVED');
    queue.down = false;
    expect((await reconcile.execute({ graceMs: 5_000 })).dispatched).toEqual([ev.id]);
  });

  it('pages through every pending event, oldest first, however many there are', async () => {
    const { repos, queue, reconcile, make, advance } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const ev = await make(`q${i}`);
      // Most are QUEUED with a live job (the row does not change, so the cursor must pass them).
      if (i % 4 !== 0) { await repos.feedback.transition(ev.id, { from: ['RECEIVED'], to: 'QUEUED' }); queue.jobs.set(ev.id, i % 4 === 1 ? 'failed' : 'active'); }
      ids.push(ev.id);
      advance(1);
    }
    advance(10_000);
    const out = await reconcile.execute({ graceMs: 5_000, pageSize: 5 });
    const expectedDispatched = ids.filter((_, i) => i % 4 === 0);
    expect(out.dispatched).toEqual(expectedDispatched);
    expect(out.redriven.map((r) => r.feedbackId)).toEqual(ids.filter((_, i) => i % 4 === 1));
    // Every pending event was looked at exactly once, oldest first.
    expect(queue.calls).toEqual(ids.filter((_, i) => i % 4 !== 0));
    expect(out.errors).toBe(0);
  });

  it('with a queue that tells live jobs for a page at once, asks about each event only when its job is not live', async () => {
    const { repos, queue, reconcile, make, advance } = await setup();
    const asked: string[][] = [];
    const withLive = Object.assign(queue, {
      liveJobs: async (ids: readonly string[]) => {
        asked.push([...ids]);
        return new Set(ids.filter((id) => ['waiting', 'active'].includes(queue.jobs.get(id) ?? '')));
      },
    });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const ev = await make(`p${i}`);
      await repos.feedback.transition(ev.id, { from: ['RECEIVED'], to: 'QUEUED' });
      // Every third job failed, one was lost; the rest wait.
      if (i % 3 === 0) withLive.jobs.set(ev.id, 'failed');
      else if (i !== 4) withLive.jobs.set(ev.id, 'waiting');
      ids.push(ev.id);
      advance(1);
    }
    const received = await make('r');
    advance(10_000);
    const out = await reconcile.execute({ graceMs: 5_000, pageSize: 5 });
    expect(out.dispatched).toEqual([received.id]);
    // Only the failed and the lost jobs were re-driven, one call each; the waiting ones were never asked about.
    expect(queue.calls).toEqual(ids.filter((_, i) => i % 3 === 0 || i === 4));
    expect(out.redriven).toEqual(ids.filter((_, i) => i % 3 === 0 || i === 4).map((id) => ({ feedbackId: id, outcome: ids.indexOf(id) === 4 ? 'added' : 'retried' })));
    // One question per page, about its QUEUED / TRACING events (never the RECEIVED one).
    expect(asked.flat().sort()).toEqual([...ids].sort());
    expect(asked.length).toBe(3);
  });

  it('a queue that cannot tell (liveJobs fails) is asked about every event, as before', async () => {
    const { repos, queue, reconcile, make, advance } = await setup();
    Object.assign(queue, { liveJobs: async () => { throw new Error('queue unreachable'); } });
    const ev = await make('x');
    await repos.feedback.transition(ev.id, { from: ['RECEIVED'], to: 'QUEUED' });
    queue.jobs.set(ev.id, 'waiting');
    advance(10_000);
    expect(await reconcile.execute({ graceMs: 5_000 })).toEqual({ dispatched: [], redriven: [], errors: 0 });
    expect(queue.calls).toEqual([ev.id]);
  });
});
