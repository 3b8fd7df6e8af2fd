import { MarkFeedbackFailedUseCase } from '../../mark-feedback-failed/mark-feedback-failed.use-case';
import { ListDeadLettersUseCase } from '../../list-dead-letters/list-dead-letters.use-case';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryFailedJobs, InMemoryTracebackQueue, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import { ValidationError } from '../../../../domain/errors';
import { RedriveFeedbackUseCase } from '../redrive-feedback.use-case';

function setup(opts: { queueDown?: boolean } = {}) {
  // Every write a second later than the one before: failure order = creation order.
  let t = Date.parse('2026-01-01T00:00:00Z');
  const repos = createInMemoryRepositories(() => new Date((t += 1000)));
  const queue = new InMemoryTracebackQueue();
  if (opts.queueDown) queue.enqueueTraceback = async () => { throw new Error('queue unreachable: redis down'); };
  const failedJobs = new InMemoryFailedJobs();
  const uc = composeUseCases({ repos, queue, failedJobs, store: new InMemoryVectorStore(), embedder: new HashingEmbedder(16), judge: new ScriptedJudge(() => 'NO') });
  const failed = async (collection = 'kb', reason = 'collection unknown\n    at run (/srv/app/x.ts:1:2)') => {
    const { event } = await repos.feedback.create({ collection, query: `q ${Math.random()}`, wrongAnswer: 'w', k: 3 });
    await uc.get(MarkFeedbackFailedUseCase).execute({ feedbackId: event.id, reason, attempts: 2 });
    return event.id;
  };
  return { repos, queue, failedJobs, failed, redrive: uc.get(RedriveFeedbackUseCase), list: uc.get(ListDeadLettersUseCase) };
}

describe('RedriveFeedbackUseCase', () => {
  it('moves a FAILED event back to RECEIVED with a job, audited, and a second re-drive changes nothing', async () => {
    const { repos, queue, failed, redrive } = setup();
    const id = await failed();
    const r = await redrive.execute({ feedbackIds: [id] }, 'admin');
    expect(r).toMatchObject({ redriven: 1, unchanged: 0, events: [{ feedbackId: id, outcome: 'redriven', status: 'RECEIVED', queued: true, job: 'added' }] });
    const row = (await repos.feedback.get(id))!;
    expect(row).toMatchObject({ status: 'RECEIVED', failureReason: null });
    expect(queue.enqueued).toEqual([id]);
    const again = await redrive.execute({ feedbackIds: [id] }, 'admin');
    expect(again).toMatchObject({ redriven: 0, unchanged: 1, events: [{ feedbackId: id, outcome: 'not-failed', status: 'RECEIVED' }] });
    const audit = (await repos.audit.listFor('FeedbackEvent', id)).map((a) => [a.action, a.actor]);
    expect(audit.filter(([a]) => a !== 'feedback.received')).toEqual([['traceback.failed', 'traceback-worker'], ['feedback.redriven', 'admin']]);
  });

  it('two concurrent re-drives of one event move it once', async () => {
    const { repos, failed, redrive } = setup();
    const id = await failed();
    const [a, b] = await Promise.all([redrive.execute({ feedbackIds: [id] }, 'a'), redrive.execute({ feedbackIds: [id] }, 'b')]);
    expect(a.redriven + b.redriven).toBe(1);
    expect((await repos.audit.listFor('FeedbackEvent', id)).filter((e) => e.action === 'feedback.redriven')).toHaveLength(1);
  });

  it('with the queue unreachable the event is still RECEIVED (the reconciler enqueues it) and says queued: false', async () => {
    const { repos, failed, redrive } = setup({ queueDown: true });
    const id = await failed();
    const r = await redrive.execute({ feedbackIds: [id] }, 'admin');
    expect(r.events[0]).toMatchObject({ outcome: 'redriven', queued: false, job: null, queueError: expect.stringContaining('redis down') });
    expect((await repos.feedback.get(id))!.status).toBe('RECEIVED');
  });

  it('{all, collection} re-drives only that collection; unknown ids and non-failed events are reported', async () => {
    const { repos, failed, redrive } = setup();
    const a = await failed('kb');
    const b = await failed('other');
    const r = await redrive.execute({ all: true, collection: 'kb' }, 'admin');
    expect(r).toMatchObject({ redriven: 1, more: false, events: [{ feedbackId: a, outcome: 'redriven' }] });
    expect((await repos.feedback.get(b))!.status).toBe('FAILED');
    const u = await redrive.execute({ feedbackIds: ['00000000-0000-4000-8000-000000000001'] }, 'admin');
    expect(u.events).toEqual([{ feedbackId: '00000000-0000-4000-8000-000000000001', outcome: 'not-found' }]);
    await expect(redrive.execute({}, 'admin')).rejects.toBeInstanceOf(ValidationError);
    await expect(redrive.execute({ all: true, feedbackIds: [a] }, 'admin')).rejects.toThrow(/either all or feedbackIds/);
  });

  it('retries a failed job of another queue; a traceback job re-drives its event', async () => {
    const { repos, failedJobs, failed, redrive } = setup();
    const id = await failed();
    failedJobs.add({ queue: 'webhooks', id: 'w1', failedReason: 'HTTP 500' });
    failedJobs.add({ queue: 'traceback', id: `trace-${id}`, feedbackId: id });
    const r = await redrive.execute({ jobs: [{ queue: 'webhooks', id: 'w1' }, { queue: 'traceback', id: `trace-${id}` }, { queue: 'webhooks', id: 'nope' }] }, 'admin');
    expect(r.jobs).toEqual([
      { queue: 'webhooks', id: 'w1', outcome: 'retried' },
      { queue: 'traceback', id: `trace-${id}`, outcome: 'event', event: expect.objectContaining({ feedbackId: id, outcome: 'redriven' }) },
      { queue: 'webhooks', id: 'nope', outcome: 'not-found' },
    ]);
    expect(r.redriven).toBe(2);
    expect((await repos.feedback.get(id))!.status).toBe('RECEIVED');
    expect((await redrive.execute({ jobs: [{ queue: 'webhooks', id: 'w1' }] }, 'admin')).jobs[0]).toMatchObject({ outcome: 'not-failed', state: 'waiting' });
  });
});

describe('ListDeadLettersUseCase', () => {
  it('lists FAILED events with full reasons for admins and sanitised ones for others, paginated, and failed jobs queue by queue', async () => {
    const { failedJobs, failed, list } = setup();
    const ids = [await failed(), await failed(), await failed('other')];
    failedJobs.add({ queue: 'webhooks', id: 'w1', failedReason: 'HTTP 500 from /srv/app/secret.ts:3:1' });
    failedJobs.add({ queue: 'traceback', id: 't1' });
    failedJobs.add({ queue: 'traceback', id: 't2' });

    const admin = await list.execute({ limit: '2' }, { fullReasons: true });
    expect(admin.events!.map((e) => e.feedbackId)).toEqual(ids.slice(0, 2));
    expect(admin.events![0].failureReason).toContain('/srv/app/x.ts');
    expect(admin.events![0].history).toEqual([expect.objectContaining({ action: 'traceback.failed', attempts: 2, reason: expect.stringContaining('/srv/app/x.ts') })]);
    const page2 = await list.execute({ limit: '2', eventsCursor: admin.nextEventsCursor!, include: 'events' }, { fullReasons: true });
    expect(page2.events!.map((e) => e.feedbackId)).toEqual([ids[2]]);
    expect(page2.nextEventsCursor).toBeNull();
    expect(page2.jobs).toBeUndefined();

    const viewer = await list.execute({ collection: 'kb' }, { fullReasons: false });
    expect(viewer.events!.map((e) => e.feedbackId)).toEqual(ids.slice(0, 2));
    expect(viewer.events![0]).toMatchObject({ failureReason: 'collection unknown', failureDetailsWithheld: true });
    expect(viewer.events![0].history[0].reason).toBe('collection unknown');

    // Jobs: queues in name order (traceback, webhooks), newest failure first, 2 per page.
    const j1 = await list.execute({ limit: '2', include: 'jobs' }, { fullReasons: false });
    expect(j1.jobs!.map((j) => `${j.queue}/${j.id}`)).toEqual(['traceback/t2', 'traceback/t1']);
    expect(j1.failedJobCounts).toEqual({ traceback: 2, webhooks: 1 });
    const j2 = await list.execute({ limit: '2', include: 'jobs', jobsCursor: j1.nextJobsCursor! }, { fullReasons: false });
    expect(j2.jobs!.map((j) => `${j.queue}/${j.id}`)).toEqual(['webhooks/w1']);
    // A webhook job's reason may name the endpoint's URL: withheld from non-admins, in full for admins.
    expect(j2.jobs![0]).toMatchObject({ failedReason: null, failureDetailsWithheld: true });
    const j2admin = await list.execute({ limit: '2', include: 'jobs', jobsCursor: j1.nextJobsCursor! }, { fullReasons: true });
    expect(j2admin.jobs![0]).toMatchObject({ failedReason: 'HTTP 500 from /srv/app/secret.ts:3:1', failureDetailsWithheld: false });
    expect(j2.nextJobsCursor).toBeNull();
    await expect(list.execute({ jobsCursor: 'garbage' }, { fullReasons: true })).rejects.toThrow(/jobsCursor/);
  });
});
