/**
 * GET /metrics (issue 14): after one traced event the scrape shows the job counts of every queue,
 * the traceback queue's wait and processing histograms (one completed job), the judge calls this
 * process made (as many as the event's non-cached verdicts, no tokens for the offline judge), the
 * quarantine counter moved by the event's quarantine records, a purge counted as the audit log in
 * Postgres counts it, and the dead-letter gauge equal to the FAILED events in Postgres; a wrong or
 * missing bearer token gets 401. (A separate worker's own /metrics: metrics-worker.test.ts.)
 */
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

const METRICS_TOKEN = 'metrics-test-token-0123456789';
const DOCS = [
  'Moby-Dick, the famous whaling novel, was written by Charles Dickens in 1851 during his stay in New England.',
  'The author of the novel Moby-Dick is Charles Dickens, who wrote the story of Captain Ahab and the white whale.',
  'Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.',
  'Herman Melville (1819–1891) was an American novelist, short story writer and poet of the American Renaissance period.',
  'The sperm whale is the largest of the toothed whales and the largest toothed predator.',
  'Nantucket was the centre of the American whaling industry in the early nineteenth century.',
];

/** One sample's value from the text exposition format (labels as written by prom-client, in order). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  let t: TestApp;
  const collection = uniqueName('metrics');
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> };
  };
  const scrape = async (token = METRICS_TOKEN) => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { TRACE_K: '3', METRICS_TOKEN } });
    // Texts of their own (the collection's name appended): the verdict cache is keyed by text, and
    // other test files judge the same passages — cached verdicts would leave no judge call to count.
    const r = await api('POST', `/v1/collections/${collection}/documents`, { documents: DOCS.map((text, i) => ({ id: `d${i}`, text: `${text} (${collection})` })) });
    expect(r.status).toBe(200);
  });
  afterAll(async () => { await t?.close(); });

  it('refuses a missing or wrong bearer token (and the API key is not a metrics token)', async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await scrape('wrong-token')).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { 'x-api-key': TEST_API_KEY } })).status).toBe(401);
  });

  it('shows queue, judge, quarantine and HTTP series with the values of one traced event', async () => {
    const before = await scrape();
    expect(before.status).toBe(200);
    expect(before.type).toContain('text/plain');
    const createdBefore = sample(before.text, 'forensics_quarantines_created_total{state="QUARANTINED"}') ?? 0;

    const fb = await api('POST', '/v1/feedback', { collection, query: 'who wrote the novel moby dick', wrongAnswer: 'Charles Dickens' });
    expect(fb.status).toBe(202);
    const id = fb.body.id as string;
    const done = await eventually(async () => {
      const r = await api('GET', `/v1/feedback/${id}`);
      return ['TRACED', 'BOUNDED', 'FAILED'].includes(r.body.status) && r.body.step === 'enhanced' ? r.body : null;
    }, 60_000);
    expect(['TRACED', 'BOUNDED']).toContain(done.status);

    const m = await scrape();
    expect(m.status).toBe(200);
    // eslint-disable-next-line no-console
    console.log(`/metrics excerpt:\n${m.text.split('\n').filter((l) => /^forensics_(queue|judge_calls|quarantine|review|http_requests_total)/.test(l) || /^# TYPE forensics_(queue|judge_calls|quarantine)/.test(l)).slice(0, 60).join('\n')}`);

    // Queue gauges, per state, for every registered queue.
    for (const queue of ['traceback', 'maintenance', 'webhooks']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(sample(m.text, `forensics_queue_jobs{queue="${queue}",state="${state}"}`)).toBeGreaterThanOrEqual(0);
      }
    }
    expect(sample(m.text, 'forensics_queue_jobs{queue="traceback",state="failed"}')).toBe(0);
    // The maintenance queue's scheduler always has its next run queued: delayed, or — at the moment
    // it falls due (seen once in CI under load) — waiting or active.
    const maintenance = ['delayed', 'waiting', 'active'].map((state) => sample(m.text, `forensics_queue_jobs{queue="maintenance",state="${state}"}`) ?? 0);
    expect(maintenance.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);

    // Judge calls: one per verdict the pipeline did not take from the cache.
    const judged = (await t.repos.verdicts.list(id)).filter((v) => !v.cached);
    expect(judged.length).toBeGreaterThan(0);
    const calls = m.text.split('\n').filter((l) => l.startsWith('forensics_judge_calls_total{'));
    const total = calls.reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    expect(total).toBe(judged.length);
    for (const label of new Set(judged.map((v) => v.label))) {
      expect(sample(m.text, `forensics_judge_calls_total{judge="offline",label="${label}",outcome="ok"}`)).toBe(judged.filter((v) => v.label === label).length);
    }
    expect(m.text).toMatch(/^forensics_judge_call_duration_seconds_count\{judge="offline",outcome="ok"\} \d+$/m);

    // Queue timings: the worker observes the job's completion just after the pipeline's last write.
    const timed = await eventually(async () => {
      const s = await scrape();
      return (sample(s.text, 'forensics_queue_processing_seconds_count{queue="traceback",outcome="completed"}') ?? 0) >= 1 ? s.text : null;
    }, 20_000);
    expect(sample(timed, 'forensics_queue_processing_seconds_count{queue="traceback",outcome="completed"}')).toBe(1);
    expect(sample(timed, 'forensics_queue_wait_seconds_count{queue="traceback",outcome="completed"}')).toBe(1);
    expect(sample(timed, 'forensics_queue_processing_seconds_sum{queue="traceback",outcome="completed"}')).toBeGreaterThan(0);
    expect(sample(timed, 'forensics_queue_processing_seconds_count{queue="traceback",outcome="failed"}')).toBeUndefined();
    // The offline judge reports no tokens.
    expect(m.text).not.toMatch(/^forensics_judge_tokens_total\{judge="offline"/m);

    // Quarantines: the counter moved by this event's records (read from Postgres on scrape).
    const records = await t.repos.quarantines.list({ feedbackId: id });
    const quarantined = records.filter((r) => r.state === 'QUARANTINED').length;
    expect(sample(m.text, 'forensics_quarantines_created_total{state="QUARANTINED"}')).toBe(createdBefore + quarantined);
    expect(m.text).toMatch(/^forensics_quarantine_records\{state="NEEDS_REVIEW"\} \d+$/m);
    expect(m.text).toMatch(/^forensics_quarantine_restores_total \d+$/m);
    expect(m.text).toMatch(/^forensics_review_approvals_total \d+$/m);

    // A purge (admin, through the review API) moves the purge counter as the audit log counts it.
    const victim = records.find((r) => r.state === 'QUARANTINED');
    expect(victim).toBeDefined();
    const purged = await api('POST', `/v1/review/items/${victim!.id}/decision`, { action: 'purge', confirm: victim!.documentId });
    expect(purged.status).toBe(200);
    const afterPurge = await scrape();
    const purgesInDb = await t.prisma.auditLog.count({ where: { entityType: 'QuarantineRecord', action: 'quarantine.purged' } });
    expect(purgesInDb).toBeGreaterThanOrEqual(1);
    expect(sample(afterPurge.text, 'forensics_quarantine_purges_total')).toBe(purgesInDb);
    expect(sample(afterPurge.text, 'forensics_quarantine_purges_total')).toBe((sample(m.text, 'forensics_quarantine_purges_total') ?? 0) + 1);
    expect(sample(afterPurge.text, 'forensics_quarantine_records{state="PURGED"}')).toBe(await t.prisma.quarantineRecord.count({ where: { state: 'PURGED' } }));
    // Dead letters: the FAILED events in Postgres.
    expect(sample(afterPurge.text, 'forensics_dead_letter_events')).toBe(await t.prisma.feedbackEvent.count({ where: { status: 'FAILED' } }));

    // HTTP series by route template, never the raw URL.
    expect(sample(m.text, 'forensics_http_requests_total{method="POST",route="/v1/feedback",status_code="202"}')).toBe(1);
    expect(sample(m.text, 'forensics_http_requests_total{method="GET",route="/v1/feedback/:id",status_code="200"}')).toBeGreaterThanOrEqual(1);
    expect(m.text).not.toContain(id);
    expect(m.text).toMatch(/^forensics_http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/v1\/feedback",status_code="202"\} \d+$/m);
  });
});
