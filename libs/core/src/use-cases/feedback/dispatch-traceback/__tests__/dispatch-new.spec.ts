import type { TracebackQueue } from '../../../../ports/traceback-queue.port';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { DispatchTracebackUseCase } from '../dispatch-traceback.use-case';
import { ReconcilePendingFeedbackUseCase } from '../reconcile-pending-feedback.use-case';

/** A queue that can be down, lose a job it said it added, or add one and then time out. */
class Queue implements TracebackQueue {
  mode: 'up' | 'down' | 'added-then-timeout' = 'up';
  readonly jobs = new Set<string>();
  async enqueueTraceback(id: string) {
    if (this.mode === 'down') throw new Error('queue unreachable');
    this.jobs.add(id);
    if (this.mode === 'added-then-timeout') throw new Error('no answer within 500 ms');
  }
  async ping() {}
  async close() {}
}

function setup() {
  let now = new Date('2026-01-01T00:00:00Z');
  const repos = createInMemoryRepositories(() => now);
  const queue = new Queue();
  const useCases = composeUseCases({ repos, queue, store: new InMemoryVectorStore(), embedder: new HashingEmbedder(16), judge: new ScriptedJudge(() => 'NO'), clock: { now: () => now } });
  const transitions = jest.spyOn(repos.feedback, 'transition');
  const make = async (q: string) => (await repos.feedback.create({ collection: 'kb', query: q, wrongAnswer: 'w', k: 3, status: 'QUEUED' })).event;
  return {
    repos, queue, transitions, make, dispatch: useCases.get(DispatchTracebackUseCase), reconcile: useCases.get(ReconcilePendingFeedbackUseCase),
    advance: (ms: number) => { now = new Date(now.getTime() + ms); },
  };
}

describe('DispatchTracebackUseCase.dispatchNew (an event written as QUEUED by the intake)', () => {
  it('adds the job and writes nothing more', async () => {
    const { repos, queue, transitions, make, dispatch } = setup();
    const e = await make('a');
    expect(await dispatch.dispatchNew({ event: e })).toMatchObject({ queued: true, event: { id: e.id, status: 'QUEUED' } });
    expect(queue.jobs.has(e.id)).toBe(true);
    expect(transitions).not.toHaveBeenCalled();
    expect((await repos.feedback.get(e.id))!.status).toBe('QUEUED');
  });

  it('queue down: the event goes back to RECEIVED (queued false), and the reconciler dispatches it once the queue is back', async () => {
    const { repos, queue, make, dispatch, reconcile, advance } = setup();
    const e = await make('b');
    queue.mode = 'down';
    expect(await dispatch.dispatchNew({ event: e })).toMatchObject({ queued: false, event: { status: 'RECEIVED' } });
    expect((await repos.feedback.get(e.id))!.status).toBe('RECEIVED');
    queue.mode = 'up';
    advance(10_000);
    expect((await reconcile.execute({ graceMs: 5_000 })).dispatched).toEqual([e.id]);
    expect(queue.jobs.has(e.id)).toBe(true);
    expect((await repos.feedback.get(e.id))!.status).toBe('QUEUED');
  });

  it('a worker that took the job before the enqueue timed out wins: its status stands', async () => {
    const { repos, queue, make, dispatch } = setup();
    const e = await make('c');
    queue.mode = 'added-then-timeout';
    jest.spyOn(queue, 'enqueueTraceback').mockImplementationOnce(async (id) => {
      queue.jobs.add(id);
      await repos.feedback.transition(id, { from: ['RECEIVED', 'QUEUED'], to: 'TRACING' }); // the worker, meanwhile
      throw new Error('no answer within 500 ms');
    });
    expect(await dispatch.dispatchNew({ event: e })).toMatchObject({ queued: false, event: { status: 'TRACING' } });
    expect((await repos.feedback.get(e.id))!.status).toBe('TRACING');
  });

  it('an event not written as QUEUED is dispatched as before (enqueue, then RECEIVED → QUEUED)', async () => {
    const { repos, queue, dispatch } = setup();
    const e = (await repos.feedback.create({ collection: 'kb', query: 'd', wrongAnswer: 'w', k: 3 })).event;
    expect(e.status).toBe('RECEIVED');
    expect(await dispatch.dispatchNew({ event: e })).toMatchObject({ queued: true, event: { status: 'QUEUED' } });
    expect(queue.jobs.has(e.id)).toBe(true);
  });
});
