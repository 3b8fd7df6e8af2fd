/**
 * Rate limits (issue 13, item 2) on real parts: the HTTP server, Redis (rate-limiter-flexible's
 * Redis store on the queue's connection), Postgres (answers, feedback, audit log). Client addresses
 * are real: requests leave from different loopback addresses (127.0.0.x, `localAddress`), so
 * `req.ip` differs without any proxy header.
 *
 * Limits are set low for this file: 3 reports per feedback token, 5 per address, 10 per API key, 12 answers per key.
 */
import { request } from 'node:http';
import { AUDIT_LOG } from '@forensics/core';
import { RateLimits } from '../apps/api/src/http/rate-limit';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;
const SECOND_KEY = 'second-test-key-0123456789';
const THIRD_KEY = 'third-test-key-0123456789';

describe('rate limits on feedback and answers', () => {
  let t: TestApp;
  const collection = uniqueName('ratelimit');
  let servedIds: string[] = [];

  /** One HTTP request from a given local (loopback) address. */
  const call = (from: string, method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': TEST_API_KEY }) =>
    new Promise<{ status: number; retryAfter?: string; body: Json }>((resolve, reject) => {
      const u = new URL(t.url + path);
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, localAddress: from, agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => { text += c; });
        res.on('end', () => {
          let parsed: Json = {};
          try { parsed = JSON.parse(text) as Json; } catch { /* not JSON */ }
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  const logAnswer = (key: string = TEST_API_KEY) => call('127.0.0.1', 'POST', '/v1/answers', { collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds }, { 'x-api-key': key });
  const token = async (key: string = TEST_API_KEY) => {
    const r = await logAnswer(key);
    expect(r.status).toBe(201);
    return r.body.feedbackToken as string;
  };
  const report = (from: string, tok: string) => call(from, 'POST', '/v1/feedback', {}, { authorization: `FeedbackToken ${tok}` });
  /** The audit log's last id when this file's app started: the test database is shared by every file of a run. */
  let auditsBefore = 0n;
  const audits = (scope: string) => t.prisma.auditLog.findMany({ where: { id: { gt: auditsBefore }, action: 'ratelimit.exceeded', details: { path: ['scope'], equals: scope } } });
  const count = (rs: { status: number }[], status: number) => rs.filter((r) => r.status === status).length;

  beforeAll(async () => {
    t = await createTestApp({
      api: true,
      env: { API_KEYS: `${TEST_API_KEY},${SECOND_KEY},${THIRD_KEY}`, RATE_LIMIT_FEEDBACK_PER_MIN: '3', RATE_LIMIT_ADDRESS_PER_MIN: '5', RATE_LIMIT_ANSWERS_PER_MIN: '12', RATE_LIMIT_KEY_PER_MIN: '10' },
    });
    const r = await call('127.0.0.1', 'POST', `/v1/collections/${collection}/documents`, { documents: [
      { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville.' },
      { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens in 1851.' },
    ] });
    expect(r.status).toBe(200);
    servedIds = (await t.prisma.document.findMany({ where: { collection } })).map((d) => d.id);
    auditsBefore = (await t.prisma.auditLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0n;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('counts in Redis (the queue connection is configured)', () => {
    expect(t.get(RateLimits).store).toBe('redis');
    expect(t.get(AUDIT_LOG)).toBeDefined();
  });

  it('a flood from one feedback token is cut to its limit; another token from another address is not slowed', async () => {
    const flooded = await token();
    // 5 requests: within the address limit (5), over the token limit (3).
    const rs = await Promise.all(Array.from({ length: 5 }, () => report('127.0.0.2', flooded)));
    expect(count(rs, 202)).toBe(3); // the first creates the event, the next two return it (duplicate)
    expect(count(rs, 429)).toBe(2);
    for (const r of rs.filter((x) => x.status === 429)) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
      expect(r.body.error).toBe('TooManyRequests');
      expect(r.body.message).toMatch(/token \(3\/min\)/);
    }
    const other = await token();
    expect((await report('127.0.0.7', other)).status).toBe(202);
    // One audit entry for the (token, window), not one per refused request.
    const entries = await audits('token');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entityType: 'RateLimit', details: expect.objectContaining({ route: 'feedback', limitPerMin: 3, windowSec: 60 }) });
  });

  it('a flood from one address (a new token each time) is cut to the address limit; another address is not slowed', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 8; i++) tokens.push(await token());
    const rs = await Promise.all(tokens.map((tok) => report('127.0.0.3', tok)));
    expect(count(rs, 202)).toBe(5);
    expect(count(rs, 429)).toBe(3);
    expect(rs.find((r) => r.status === 429)!.body.message).toMatch(/address \(5\/min\)/);
    // The refused tokens are not spent: from another address they go through, all of them.
    const refused = tokens.filter((_, i) => rs[i].status === 429);
    const others = await Promise.all(refused.map((tok) => report('127.0.0.4', tok)));
    expect(others.map((r) => r.status)).toEqual(refused.map(() => 202));
    const entries = await audits('address');
    expect(entries).toHaveLength(1);
    expect(entries[0].entityId).toMatch(/^feedback:address:addr:[0-9a-f]{16}$/); // the address is hashed
    expect(JSON.stringify({ ...entries[0], id: String(entries[0].id) })).not.toContain('127.0.0.3');
  });

  it('answers are limited per key; another key is not slowed; the metric counts refusals by route and scope', async () => {
    // 1 + 1 + 8 answers logged above with the first key; the limit is 12 per minute.
    const rs = await Promise.all(Array.from({ length: 6 }, () => logAnswer()));
    expect(count(rs, 201)).toBe(2);
    expect(count(rs, 429)).toBe(4);
    expect(rs.find((r) => r.status === 429)!.retryAfter).toBeDefined();
    const second = await Promise.all(Array.from({ length: 5 }, () => logAnswer(SECOND_KEY)));
    expect(second.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(await audits('answers-key')).toHaveLength(1);
    const res = await fetch(`${t.url}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/forensics_rate_limited_total\{route="feedback",scope="token"\} 2/);
    expect(text).toMatch(/forensics_rate_limited_total\{route="feedback",scope="address"\} 3/);
    expect(text).toMatch(/forensics_rate_limited_total\{route="answers",scope="answers-key"\} 4/);
  });

  it('a bounded flood (3 s on loopback, more on a loaded machine up to 20 s, one key, one token, one address at once): exactly the limits get through, the rest is 429 with Retry-After, and every accepted report is in Postgres', async () => {
    const FLOOD_MS = 3000;
    const MAX_PER_STREAM = 400; // bounded in count as well as in time
    const HARD_STOP_MS = 20_000; // a loaded machine: each stream goes on past FLOOD_MS until it has twice its limit answered, never past this
    const WORKERS_PER_STREAM = 4;
    type Result = { status: number; retryAfter?: string; id?: string };
    /**
     * Sends `send(i)` from WORKERS_PER_STREAM concurrent loops until FLOOD_MS has passed (and at least
     * twice the stream's limit was answered, within HARD_STOP_MS) or MAX_PER_STREAM were sent.
     */
    const flood = async (limit: number, send: (i: number) => Promise<{ status: number; retryAfter?: string; body: Json }>) => {
      const results: Result[] = [];
      const start = Date.now();
      const going = () => Date.now() - start < FLOOD_MS || (results.length < 2 * limit && Date.now() - start < HARD_STOP_MS);
      let sent = 0;
      await Promise.all(Array.from({ length: WORKERS_PER_STREAM }, async () => {
        while (going() && sent < MAX_PER_STREAM) {
          const r = await send(sent++);
          results.push({ status: r.status, retryAfter: r.retryAfter, id: r.body.id as string | undefined });
        }
      }));
      return results;
    };
    const addressTokens: string[] = [];
    for (let i = 0; i < 10; i++) addressTokens.push(await token(THIRD_KEY));
    const oneToken = await token(THIRD_KEY);
    const started = Date.now();
    const [byKey, byToken, byAddress] = await Promise.all([
      flood(10, (i) => call('127.0.0.41', 'POST', '/v1/feedback', { collection, query: `flood ${i} who wrote moby dick`, wrongAnswer: 'Charles Dickens' }, { 'x-api-key': SECOND_KEY })),
      flood(3, () => report('127.0.0.42', oneToken)),
      flood(5, (i) => report('127.0.0.43', addressTokens[i % addressTokens.length])),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const all = [...byKey, ...byToken, ...byAddress];
    // Only 202 or 429: nothing failed, nothing else happened.
    expect(all.filter((r) => r.status !== 202 && r.status !== 429)).toEqual([]);
    expect([count(byKey, 202), count(byToken, 202), count(byAddress, 202)]).toEqual([10, 3, 5]);
    for (const r of all.filter((x) => x.status === 429)) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(r.retryAfter)).toBeLessThanOrEqual(60);
    }
    // The flood was a flood: far more requests than the limits let through.
    expect(all.filter((r) => r.status === 429).length).toBeGreaterThan(3 * (10 + 3 + 5));
    // Nothing accepted is lost: every 202's event is in Postgres (the key's 10 are 10 events; a token's repeats are its one event).
    const accepted = [...new Set(all.filter((r) => r.status === 202).map((r) => r.id!))];
    expect(new Set(byKey.filter((r) => r.status === 202).map((r) => r.id)).size).toBe(10);
    expect(new Set(byToken.filter((r) => r.status === 202).map((r) => r.id)).size).toBe(1);
    const rows = await t.prisma.feedbackEvent.findMany({ where: { id: { in: accepted } }, select: { id: true, collection: true } });
    expect(rows.map((r) => r.id).sort()).toEqual([...accepted].sort());
    expect(await t.prisma.feedbackEvent.count({ where: { collection, query: { startsWith: 'flood ' } } })).toBe(10);
    // Figures for docs/results.md (printed, not asserted).
    console.log(`flood: ${all.length} requests in ${seconds.toFixed(1)} s (${(all.length / seconds).toFixed(0)}/s); key ${byKey.length} sent / ${count(byKey, 202)} accepted, token ${byToken.length} / ${count(byToken, 202)}, address ${byAddress.length} / ${count(byAddress, 202)}; ${accepted.length} accepted events all in Postgres`);
  });
});
