/**
 * The intake's fast path (apps/api/src/http/fast-intake.ts, issue 15) answers POST /v1/feedback
 * exactly as the Nest route does. Two apps on the same Postgres and Redis, one with the fast path
 * (the default) and one with INTAKE_FAST_PATH=false, get the same requests — API key, feedback
 * token, every refusal (no credentials, a bad key, a key without the feedback permission, a key and
 * a token at once, a token for another answer, an invalid body, malformed JSON, over the body limit,
 * a rate limit) — and must give the same status, body (ids aside) and headers (per-response ones
 * aside). The fast app must not reach the Nest controller; its events are rows and jobs, and its
 * requests are counted in the HTTP metrics under the route's label.
 */
import { ApiKeyGuard } from '../apps/api/src/http/api-key.guard';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { connect } from 'node:net';
import { Logger } from '@nestjs/common';
import { TRACEBACK_QUEUE_NAME, tracebackJobId } from '@forensics/infra';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;
interface Answer { status: number; headers: Record<string, string>; body: Json | string }

/** Headers that differ per response whatever the path (time, connection, length of ids, express's ETag). */
const PER_RESPONSE = new Set(['date', 'etag', 'content-length', 'connection', 'keep-alive', 'x-request-id']);

describe('intake fast path: same answers as the Nest route', () => {
  let fast: TestApp;
  let nest: TestApp;
  const collection = uniqueName('fastintake');
  const keys: Record<'fast' | 'nest', { ingestOnly: string }> = { fast: { ingestOnly: '' }, nest: { ingestOnly: '' } };
  const served: Record<'fast' | 'nest', string[]> = { fast: [], nest: [] };

  const raw = async (t: TestApp, path: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Answer> => {
    const res = await fetch(t.url + path, { method: init.method ?? 'POST', headers: init.headers, body: init.body });
    const text = await res.text();
    let body: Json | string = text;
    try { body = JSON.parse(text) as Json; } catch { /* not JSON */ }
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => { if (!PER_RESPONSE.has(k)) headers[k] = v; });
    return { status: res.status, headers, body };
  };
  const post = (t: TestApp, body: unknown, headers: Record<string, string> = { 'x-api-key': TEST_API_KEY }) =>
    raw(t, '/v1/feedback', { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const token = async (t: TestApp, which: 'fast' | 'nest') => {
    const r = await raw(t, '/v1/answers', { headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds: served[which] }) });
    expect(r.status).toBe(201);
    return (r.body as Json).feedbackToken as string;
  };
  /** The body with its ids (event, answer, served texts, the per-app key name) replaced, so the two apps' answers compare. */
  const shape = (b: Json | string): unknown => {
    if (typeof b === 'string') return b;
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    return JSON.parse(JSON.stringify(b).replace(uuid, '<id>').replace(/ingest-only_[0-9a-f]+/g, 'ingest-only_<n>'));
  };
  const expectSame = (a: Answer, b: Answer) => {
    expect({ status: a.status, body: shape(a.body), headers: a.headers }).toEqual({ status: b.status, body: shape(b.body), headers: b.headers });
  };
  /** The same request on both apps: [fast, nest]. */
  const both = async (make: (t: TestApp, which: 'fast' | 'nest') => Promise<Answer>): Promise<[Answer, Answer]> => [await make(fast, 'fast'), await make(nest, 'nest')];

  beforeAll(async () => {
    const env = { RATE_LIMIT_REPORTER_PER_MIN: '2', BODY_LIMIT: '4kb' };
    fast = await createTestApp({ api: true, env });
    nest = await createTestApp({ api: true, env: { ...env, INTAKE_FAST_PATH: 'false' } });
    for (const [which, t] of [['fast', fast], ['nest', nest]] as const) {
      const r = await raw(t, `/v1/collections/${collection}/documents`, { headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ documents: [
        { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville.' },
        { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens in 1851.' },
      ] }) });
      expect(r.status).toBe(200);
      served[which] = (await t.prisma.document.findMany({ where: { collection } })).map((d) => d.id).sort();
      const k = await raw(t, '/v1/admin/keys', { headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ name: uniqueName('ingest-only'), scopes: ['ingest'] }) });
      expect(k.status).toBe(201);
      keys[which].ingestOnly = (k.body as Json).key as string;
    }
  }, 180_000);

  afterAll(async () => {
    await fast?.close();
    await nest?.close();
  });

  it('API key: a new report (202), then the same Idempotency-Key again (the same event, duplicate)', async () => {
    const calls = jest.spyOn(ApiKeyGuard.prototype, 'canActivate');
    try {
      for (const idem of ['first', 'first']) {
        // Idempotency keys are unique in the shared database: one per app.
        const [a, b] = await both((t, w) => post(t, { collection, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens' }, { 'x-api-key': TEST_API_KEY, 'idempotency-key': `${collection}-${w}-${idem}` }));
        expect(a.status).toBe(202);
        expectSame(a, b);
      }
      // Nest (its global guard) served the second app's requests only.
      expect(calls).toHaveBeenCalledTimes(2);
    } finally {
      calls.mockRestore();
    }
    // Security headers and CORS are there on the fast path's answer, as on the Nest route's.
    const [a] = await both((t) => post(t, { collection, query: 'who wrote moby dick', wrongAnswer: 'Dickens' }));
    expect(a.headers).toMatchObject({ 'content-security-policy': expect.stringContaining("default-src 'self'"), 'x-content-type-options': 'nosniff', 'access-control-allow-origin': '*' });
  });

  it('feedback token: a report (202 with the answer and its served texts), the token again (duplicate), a token for another answer (401)', async () => {
    const [ta, tb] = [await token(fast, 'fast'), await token(nest, 'nest')];
    const byToken = (t: TestApp, which: 'fast' | 'nest', body: unknown) => post(t, body, { authorization: `FeedbackToken ${which === 'fast' ? ta : tb}` });
    let [a, b] = await both((t, w) => byToken(t, w, { correctAnswer: 'Herman Melville' }));
    expect(a.status).toBe(202);
    expect((a.body as Json).servedIds).toEqual(served.fast);
    expectSame(a, b);
    [a, b] = await both((t, w) => byToken(t, w, {}));
    expect((a.body as Json).duplicate).toBe(true);
    expectSame(a, b);
    [a, b] = await both((t, w) => byToken(t, w, { answerId: '00000000-0000-4000-8000-000000000000' }));
    expect(a.status).toBe(401);
    expectSame(a, b);
    // In the body instead of the header: the same.
    const [tc, td] = [await token(fast, 'fast'), await token(nest, 'nest')];
    [a, b] = [await post(fast, { feedbackToken: tc }, {}), await post(nest, { feedbackToken: td }, {})];
    expect(a.status).toBe(202);
    expectSame(a, b);
  });

  it('refusals: no credentials, a bad key, a key without the feedback permission, a key and a token, an invalid body, malformed JSON, over the limit, not JSON', async () => {
    const body = { collection, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens' };
    const cases: [string, number, (t: TestApp, w: 'fast' | 'nest') => Promise<Answer>][] = [
      ['no credentials', 401, (t) => post(t, body, {})],
      ['a bad key', 401, (t) => post(t, body, { 'x-api-key': 'rfk_nope_0123456789abcdef' })],
      ['a key without the feedback permission', 403, (t, w) => post(t, body, { 'x-api-key': keys[w].ingestOnly })],
      ['a key and a token', 400, (t) => post(t, body, { 'x-api-key': TEST_API_KEY, authorization: 'FeedbackToken abc' })],
      ['a malformed token', 401, (t) => post(t, {}, { authorization: 'FeedbackToken abc.def' })],
      ['an invalid body', 400, (t) => post(t, { collection, wrongAnswer: 'x', k: 0 })],
      ['an unknown field', 400, (t) => post(t, { ...body, extra: true })],
      ['over the body limit', 413, (t) => post(t, { ...body, query: 'x'.repeat(5000) })],
      ['not JSON', 400, (t) => raw(t, '/v1/feedback', { headers: { 'content-type': 'text/plain', 'x-api-key': TEST_API_KEY }, body: 'hello' })],
    ];
    for (const [what, status, make] of cases) {
      const [a, b] = await both(make);
      expect({ what, status: a.status }).toEqual({ what, status });
      expectSame(a, b);
    }
    // Malformed JSON, and JSON that is not an object or array (body-parser's strict mode): the same
    // status, error and headers; the message names the parser's complaint in its own words.
    for (const text of ['{"query": ', '"hello"']) {
      const [a, b] = await both((t) => raw(t, '/v1/feedback', { headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: text }));
      expect(a.status).toBe(400);
      expect(a.headers).toEqual(b.headers);
      expect((a.body as Json).message).toMatch(/^malformed JSON body: /);
      expect({ ...(a.body as Json), message: '' }).toEqual({ ...(b.body as Json), message: '' });
    }
  });

  it('a rate limit: the third report of one named reporter within the minute is 429 with Retry-After on both', async () => {
    const reporter = uniqueName('flooder');
    const answers: [Answer, Answer][] = [];
    for (let i = 0; i < 3; i++) answers.push(await both((t) => post(t, { collection, query: `question ${i}`, wrongAnswer: 'x', reporter })));
    expect(answers.map(([a]) => a.status)).toEqual([202, 202, 429]);
    for (const [a, b] of answers) expectSame(a, b);
    expect(Number(answers[2][0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const audits = await fast.prisma.auditLog.count({ where: { action: 'ratelimit.exceeded', entityId: { contains: reporter } } });
    expect(audits).toBe(2); // one per app: the first refusal of the window
  });

  it('a client that goes away mid-body gets nothing and leaves nothing; the next request is served', async () => {
    const before = await fast.prisma.feedbackEvent.count();
    const warned = jest.spyOn(Logger.prototype, 'warn');
    const failed = jest.spyOn(Logger.prototype, 'error');
    const u = new URL(fast.url);
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(u.port), u.hostname, () => {
        sock.write(`POST /v1/feedback HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nX-API-Key: ${TEST_API_KEY}\r\nContent-Length: 200\r\n\r\n{"query": "who wr`);
        setTimeout(() => { sock.destroy(); resolve(); }, 100);
      });
      sock.on('error', reject);
    });
    const r = await post(fast, { collection, query: 'who wrote moby dick??', wrongAnswer: 'Dickens' });
    expect(r.status).toBe(202);
    expect(await fast.prisma.feedbackEvent.count()).toBe(before + 1);
    // Not an outage: nothing answered, nothing logged as a dependency failure or an error.
    expect([...warned.mock.calls, ...failed.mock.calls]).toEqual([]);
    warned.mockRestore();
    failed.mockRestore();
  });

  it("the fast app's events are rows and jobs, and its requests are counted under the route's label", async () => {
    const r = await post(fast, { collection, query: 'who wrote moby dick?', wrongAnswer: 'Dickens' });
    expect(r.status).toBe(202);
    const id = (r.body as Json).id as string;
    expect(await fast.prisma.feedbackEvent.findUnique({ where: { id } })).toMatchObject({ id, status: 'QUEUED', trust: 'reviewer' });
    expect(await fast.get<Queue>(getQueueToken(TRACEBACK_QUEUE_NAME) as never).getJob(tracebackJobId(id))).toBeTruthy();
    const metrics = await (await fetch(`${fast.url}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('forensics_http_requests_total{') && l.includes('route="/v1/feedback"') && l.includes('status_code="202"') && l.includes('method="POST"'));
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(6);
  });
});
