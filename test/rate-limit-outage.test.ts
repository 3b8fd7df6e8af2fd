/**
 * The rate limits while their store does not answer (issue 57 item 4: it was a silent fail-open), on
 * real parts: the API over HTTP with LOG_FORMAT=json captured, the shared test Postgres, and a
 * `redis-server` of its own that the test stalls (SIGSTOP: connected, nothing answered) and then kills
 * (SIGKILL: the connection lost, refused at once). Both values of RATE_LIMIT_ON_REDIS_DOWN:
 *  - open: a key past its limit is let through while Redis stalls or is gone (the reports are stored);
 *  - closed: every limited request is refused with 503 and Retry-After, nothing stored;
 * in both, one warning per outage (not per request) naming the setting, one info line when Redis
 * answers again, and `forensics_rate_limit_unchecked_total` counts each such request.
 * Reports go to POST /v1/feedback (the intake's fast path), answers to POST /v1/answers (a Nest route).
 */
import { Writable } from 'node:stream';
import { IngestCorpusUseCase } from '@forensics/core';
import { DedicatedRedis } from './support/faults/fault-services';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

type Line = Record<string, any>;
const KEY_LIMIT = 3;

describe.each(['open', 'closed'] as const)('rate limits with RATE_LIMIT_ON_REDIS_DOWN=%s', (mode) => {
  let redis: DedicatedRedis;
  let t: TestApp;
  const collection = uniqueName(`rl_${mode}`);
  const lines: Line[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line); done(); } });
  const limiterLines = () => lines.filter((l) => l.context === 'rate-limit');
  const post = async (path: string, body: unknown) => {
    const t0 = performance.now();
    const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0, body: (await res.json()) as Line };
  };
  let n = 0;
  const report = () => post('/v1/feedback', { collection, query: `who wrote moby dick (${mode} ${n++})`, wrongAnswer: 'Charles Dickens' });
  let servedIds: string[] = [];
  const answer = () => post('/v1/answers', { collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds });
  const unchecked = async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const m = text.match(new RegExp(`^forensics_rate_limit_unchecked_total\\{route="feedback",outcome="${mode === 'open' ? 'let-through' : 'refused'}"\\} (\\d+)`, 'm'));
    return m ? Number(m[1]) : 0;
  };
  const storedReports = () => t.prisma.feedbackEvent.count({ where: { collection } });

  beforeAll(async () => {
    redis = await DedicatedRedis.start();
    t = await createTestApp({
      api: true, logs: sink,
      env: { REDIS_URL: redis.url, RATE_LIMIT_ON_REDIS_DOWN: mode, RATE_LIMIT_KEY_PER_MIN: String(KEY_LIMIT), RATE_LIMIT_ANSWERS_PER_MIN: '100', QUEUE_ENQUEUE_TIMEOUT_MS: '500' },
    });
    servedIds = (await t.get(IngestCorpusUseCase).execute({ collection, records: [{ text: 'Moby-Dick is an 1851 novel by Herman Melville.' }] })).ids;
  }, 120_000);

  afterAll(async () => {
    // Close with Redis up (BullMQ's close waits for its connections), then stop it.
    redis?.resume();
    await redis?.restart().catch(() => {});
    await t?.close();
    await redis?.kill();
  }, 60_000);

  it('Redis up: the key limit holds', async () => {
    const rs = [];
    for (let i = 0; i <= KEY_LIMIT; i++) rs.push(await report());
    expect(rs.map((r) => r.status)).toEqual([...Array(KEY_LIMIT).fill(202), 429]);
    expect(limiterLines().filter((l) => l.level >= 40)).toEqual([]);
  });

  it(`Redis stalled (SIGSTOP): every limited request ${mode === 'open' ? 'let through' : 'refused with 503'}, one warning for the outage, one info line after`, async () => {
    const stored = await storedReports();
    const before = await unchecked();
    redis.freeze();
    const rs = [];
    for (let i = 0; i < 5; i++) rs.push(await report());
    const a = await answer();
    if (mode === 'open') {
      expect(rs.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]); // past the key's limit, unchecked
      expect(a.status).toBe(201);
      expect(await storedReports()).toBe(stored + 5);
    } else {
      expect(rs.map((r) => r.status)).toEqual([503, 503, 503, 503, 503]);
      expect(rs.every((r) => r.retryAfter === '5')).toBe(true);
      expect(rs[0]!.body).toMatchObject({ statusCode: 503, message: expect.stringContaining('rate limits cannot be checked') });
      expect(a.status).toBe(503);
      expect(await storedReports()).toBe(stored);
    }
    const warned = limiterLines().filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain(`RATE_LIMIT_ON_REDIS_DOWN=${mode}`);
    expect(warned[0]!.msg).toContain('within 250 ms');
    redis.resume();
    // Answered again: the key is over its limit (the stalled increments reached Redis too), and the outage's end is said once.
    const after = await report();
    expect(after.status).toBe(429);
    const back = limiterLines().filter((l) => l.level === 30 && /checked again/.test(l.msg));
    expect(back).toHaveLength(1);
    expect(back[0]!.msg).toMatch(new RegExp(`answers after \\d+\\.\\d s; 6 rate-limited request\\(s\\) ${mode === 'open' ? 'let through unchecked' : 'refused with 503'} meanwhile`));
    expect(await unchecked()).toBe(before + 5);
    expect(limiterLines().filter((l) => l.level >= 50)).toEqual([]);
    // eslint-disable-next-line no-console
    console.log(`${mode}, stalled: ${rs.map((r) => `${r.status} ${r.ms.toFixed(0)} ms`).join(', ')}\n${limiterLines().map((l) => JSON.stringify({ level: l.level, msg: l.msg })).join('\n')}`);
  }, 60_000);

  it(`Redis killed: decided at once without waiting for the store, a second outage warned once, the limits back with Redis`, async () => {
    const warnedBefore = limiterLines().filter((l) => l.level === 40).length;
    await redis.kill();
    const rs = [];
    for (let i = 0; i < 4; i++) rs.push(await report());
    expect(rs.map((r) => r.status)).toEqual(Array(4).fill(mode === 'open' ? 202 : 503));
    const warned = limiterLines().filter((l) => l.level === 40).slice(warnedBefore);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toMatch(/does not answer \(connection (reconnecting|connecting|connect|close)\)/);
    await redis.restart();
    // Redis came back empty (no persistence): the counts start again, the key has its full budget.
    // Until the limiter reaches the new Redis, 'open' lets a report through unchecked: wait for the line that says the
    // limits are checked again (the request that found the store answering), not merely for a 202.
    const backLines = () => limiterLines().filter((l) => l.level === 30 && /checked again/.test(l.msg));
    const ok = await eventually(async () => { const r = await report(); return backLines().length >= 2 ? r : null; }, 20_000, 200);
    expect(ok.status).toBe(202);
    expect(backLines()).toHaveLength(2);
    // eslint-disable-next-line no-console
    console.log(`${mode}, killed: ${rs.map((r) => `${r.status} ${r.ms.toFixed(0)} ms`).join(', ')}`);
  }, 60_000);
});
