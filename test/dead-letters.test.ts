/**
 * Dead letters and re-drive (issue 14, item 3) on the real service: a traceback that fails
 * permanently (its collection does not exist yet) ends FAILED and is listed — event with its
 * reason and history, its job in the traceback queue's failed set —; once the collection is
 * ingested (the cause fixed) an admin re-drives it and it completes; re-driving again changes
 * nothing and says so; the failure history stays in the audit log; a failed job of another queue
 * is retried with job.retry(); viewers read sanitised reasons and may not re-drive.
 */
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { TRACEBACK_QUEUE, type TracebackQueue } from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

const DOCS = [
  'Moby-Dick, the famous whaling novel, was written by Charles Dickens in 1851 during his stay in New England.',
  'Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.',
  'Herman Melville (1819–1891) was an American novelist, short story writer and poet of the American Renaissance period.',
  'The sperm whale is the largest of the toothed whales and the largest toothed predator.',
  'Nantucket was the centre of the American whaling industry in the early nineteenth century.',
];

describe('dead letters and re-drive', () => {
  let t: TestApp;
  let viewerKey: string;
  const call = async (method: string, path: string, body?: unknown, key: string = TEST_API_KEY) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };
  /** A feedback event for a collection nobody ingested (intake refuses those; the row is written directly), enqueued. */
  const failingEvent = async (collection: string) => {
    const { event } = await t.repos.feedback.create({ collection, query: 'who wrote the novel moby dick', wrongAnswer: 'Charles Dickens', k: 3 });
    await t.get<TracebackQueue>(TRACEBACK_QUEUE).enqueueTraceback(event.id);
    await eventually(async () => (await t.repos.feedback.get(event.id))?.status === 'FAILED', 30_000);
    return event.id;
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { TRACE_K: '3', QUEUE_ATTEMPTS: '2' } });
    const r = await call('POST', '/v1/admin/keys', { name: uniqueName('viewer'), role: 'viewer' });
    expect(r.status).toBe(201);
    viewerKey = r.body.key;
  });
  afterAll(async () => { await t?.close(); });

  it('lists a permanently failed event and its job, re-drives it after the fix, idempotently, keeping its history', async () => {
    const collection = uniqueName('dl');
    const id = await failingEvent(collection);

    const listed = await call('GET', `/v1/dead-letters?collection=${collection}`);
    expect(listed.status).toBe(200);
    expect(listed.body.events).toHaveLength(1);
    const ev = listed.body.events[0];
    expect(ev).toMatchObject({ feedbackId: id, collection, status: 'FAILED', failureDetailsWithheld: false });
    expect(ev.failureReason).toContain(`collection '${collection}' is unknown`);
    expect(ev.attempts).toBeGreaterThanOrEqual(1);
    expect(new Date(ev.failedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(ev.history.map((h: { action: string }) => h.action)).toEqual(['traceback.failed']);
    expect(ev.history[0].reason).toContain('is unknown');
    // Its job, in the traceback queue's failed set (a permanent error: one attempt, no retry).
    const jobs = await call('GET', '/v1/dead-letters?include=jobs&queue=traceback');
    expect(jobs.status).toBe(200);
    expect(jobs.body.events).toBeUndefined();
    const job = jobs.body.jobs.find((j: { feedbackId: string }) => j.feedbackId === id);
    expect(job).toMatchObject({ queue: 'traceback', id: `trace-${id}`, attemptsMade: 1 });
    expect(job.failedReason).toContain('is unknown');
    expect(jobs.body.failedJobCounts.traceback).toBeGreaterThanOrEqual(1);

    // The dead-letter gauge counts the FAILED events in Postgres (this one included).
    const scraped = await (await fetch(`${t.url}/metrics`)).text();
    const gauge = Number(/^forensics_dead_letter_events (\d+)$/m.exec(scraped)?.[1]);
    expect(gauge).toBeGreaterThanOrEqual(1);
    expect(gauge).toBe(await t.prisma.feedbackEvent.count({ where: { status: 'FAILED' } }));

    // A viewer reads (sanitised reasons) but may not re-drive.
    const asViewer = await call('GET', `/v1/dead-letters?collection=${collection}`, undefined, viewerKey);
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.events[0].feedbackId).toBe(id);
    expect((await call('POST', '/v1/dead-letters/redrive', { feedbackIds: [id] }, viewerKey)).status).toBe(403);
    expect((await t.repos.feedback.get(id))!.status).toBe('FAILED');

    // The fix: the collection now exists. Then the re-drive.
    expect((await call('POST', `/v1/collections/${collection}/documents`, { documents: DOCS.map((text, i) => ({ id: `d${i}`, text })) })).status).toBe(200);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const r1 = await call('POST', '/v1/dead-letters/redrive', { feedbackIds: [id, unknown] });
    expect(r1.status).toBe(200);
    expect(r1.body.redriven).toBe(1);
    expect(r1.body.events).toEqual([
      { feedbackId: id, outcome: 'redriven', status: 'RECEIVED', queued: true, job: 'retried' },
      { feedbackId: unknown, outcome: 'not-found' },
    ]);
    // A second re-drive right away changes nothing (the event is no longer FAILED).
    const r2 = await call('POST', '/v1/dead-letters/redrive', { feedbackIds: [id] });
    expect(r2.body.redriven).toBe(0);
    expect(r2.body.events[0]).toMatchObject({ feedbackId: id, outcome: 'not-failed' });
    expect(r2.body.events[0].status).not.toBe('FAILED');

    const done = await eventually(async () => {
      const r = await call('GET', `/v1/feedback/${id}`);
      return ['TRACED', 'BOUNDED'].includes(r.body.status) && r.body.step === 'enhanced' ? r.body : null;
    }, 60_000);
    expect(done.failureReason).toBeNull();
    expect(done.verdicts.length).toBeGreaterThan(0);
    const r3 = await call('POST', '/v1/dead-letters/redrive', { feedbackIds: [id] });
    expect(r3.body.events[0]).toEqual({ feedbackId: id, outcome: 'not-failed', status: done.status });

    // Not a dead letter any more; its failure history stays in the audit log.
    expect((await call('GET', `/v1/dead-letters?collection=${collection}`)).body.events).toEqual([]);
    const audit = (await t.repos.audit.listFor('FeedbackEvent', id)).filter((a) => ['traceback.failed', 'feedback.redriven'].includes(a.action));
    expect(audit.map((a) => a.action)).toEqual(['traceback.failed', 'feedback.redriven']);
    expect(String(audit[0].details?.reason)).toContain('is unknown');
    expect(audit[1]).toMatchObject({ actor: expect.stringContaining('bootstrap-admin'), details: { previousReason: expect.stringContaining('is unknown') } });
  });

  it('re-drives every FAILED event of one collection ({all, collection}); a failure again adds to the history', async () => {
    const collection = uniqueName('dlall');
    const id = await failingEvent(collection);
    const other = await failingEvent(uniqueName('dlother'));
    const r = await call('POST', '/v1/dead-letters/redrive', { all: true, collection });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ redriven: 1, more: false });
    expect(r.body.events).toEqual([{ feedbackId: id, outcome: 'redriven', status: 'RECEIVED', queued: true, job: 'retried' }]);
    expect((await t.repos.feedback.get(other))!.status).toBe('FAILED');
    // The cause is not fixed: it fails again, and the list shows both failures and the re-drive.
    await eventually(async () => (await t.repos.feedback.get(id))?.status === 'FAILED', 30_000);
    const listed = await call('GET', `/v1/dead-letters?collection=${collection}`);
    expect(listed.body.events[0].history.map((h: { action: string }) => h.action)).toEqual(['traceback.failed', 'feedback.redriven', 'traceback.failed']);
  });

  it('retries a failed job of another queue with job.retry()', async () => {
    const webhooks = t.app.get<string, Queue>(getQueueToken('webhooks'), { strict: false });
    const job = await webhooks.add('WebhookDelivery', { deliveryId: 'not-a-uuid' } as never, { attempts: 1 });
    await eventually(async () => (await job.getState()) === 'failed', 20_000);
    const listed = await call('GET', '/v1/dead-letters?include=jobs&queue=webhooks');
    const item = listed.body.jobs.find((j: { id: string }) => j.id === job.id);
    expect(item).toMatchObject({ queue: 'webhooks', feedbackId: null, attemptsMade: 1 });
    expect(item.failedReason.length).toBeGreaterThan(0);
    const r = await call('POST', '/v1/dead-letters/redrive', { jobs: [{ queue: 'webhooks', id: job.id }, { queue: 'webhooks', id: 'no-such-job' }] });
    expect(r.status).toBe(200);
    expect(r.body.jobs).toEqual([{ queue: 'webhooks', id: job.id, outcome: 'retried' }, { queue: 'webhooks', id: 'no-such-job', outcome: 'not-found' }]);
    const audit = await t.repos.audit.listFor('QueueJob', `webhooks:${job.id}`);
    expect(audit.map((a) => a.action)).toEqual(['job.retried']);
  });

  it('answers bad requests with 400 naming the field', async () => {
    const empty = await call('POST', '/v1/dead-letters/redrive', {});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('feedbackIds, all or jobs');
    const bad = await call('POST', '/v1/dead-letters/redrive', { feedbackIds: ['x'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('feedbackIds');
    expect((await call('POST', '/v1/dead-letters/redrive', { collection: 'x' })).status).toBe(400);
    expect((await call('GET', '/v1/dead-letters?limit=0')).status).toBe(400);
    expect((await call('GET', '/v1/dead-letters?eventsCursor=garbage')).body.message).toContain('eventsCursor');
    expect((await fetch(`${t.url}/v1/dead-letters`)).status).toBe(401);
  });
});
