import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ForensicsApiError, ForensicsClient, parseRetryAfter, readWebhookEvent, verifyWebhookSignature } from '../index';

/** A real HTTP server playing scripted answers, one per request, recording what it got. */
async function scripted(answers: Array<(res: ServerResponse) => void>): Promise<{ url: string; seen: IncomingMessage[]; close: () => Promise<void> }> {
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => { seen.push(req); req.resume(); (answers.shift() ?? ((r) => r.writeHead(500).end()))(res); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (res: ServerResponse) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('ForensicsClient retries and errors', () => {
  it('retries 429 and 503 after Retry-After, then returns the body', async () => {
    const s = await scripted([
      json(429, { statusCode: 429, error: 'TooManyRequests', message: 'rate limit exceeded' }, { 'retry-after': '2' }),
      json(503, { statusCode: 503, error: 'ServiceUnavailable', message: 'down' }),
      json(201, { answerId: 'a1', feedbackToken: 't', feedbackTokenExpiresAt: '2026-12-01T00:00:00.000Z' }),
    ]);
    const waits: number[] = [];
    const client = new ForensicsClient({ baseUrl: s.url, apiKey: 'k', sleep: async (ms) => { waits.push(ms); }, retry: { baseDelayMs: 100 } });
    const r = await client.logAnswer({ query: 'q', answer: 'a', servedIds: ['x'] });
    await s.close();
    expect(r.answerId).toBe('a1');
    expect(s.seen).toHaveLength(3);
    expect(s.seen.every((q) => q.headers['x-api-key'] === 'k')).toBe(true);
    // Retry-After: 2 → 2000 ms; then no Retry-After → backoff 100 · 2^1 jittered to [100, 200].
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThanOrEqual(100);
    expect(waits[1]).toBeLessThanOrEqual(200);
  });

  it('throws a typed error with the problem and Retry-After once retries are spent; 4xx are not retried', async () => {
    const s = await scripted([
      json(429, { statusCode: 429, error: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '1' }),
      json(429, { statusCode: 429, error: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '1' }),
      json(404, { statusCode: 404, error: 'NotFound', message: 'feedback event x does not exist' }),
    ]);
    const client = new ForensicsClient({ baseUrl: s.url, sleep: async () => {}, retry: { retries: 1 } });
    const e1 = await client.getFeedback('x').catch((e) => e);
    const e2 = await client.getFeedback('x').catch((e) => e);
    await s.close();
    expect(e1).toBeInstanceOf(ForensicsApiError);
    expect([e1.status, e1.retryAfterSeconds, e1.problem.message]).toEqual([429, 1, 'slow down']);
    expect(e2).toBeInstanceOf(ForensicsApiError);
    expect([e2.status, e2.retryAfterSeconds, e2.problem.error]).toEqual([404, null, 'NotFound']);
    expect(s.seen).toHaveLength(3);
  });

  it('does not wait for a Retry-After longer than maxDelayMs', async () => {
    const s = await scripted([json(503, { statusCode: 503, error: 'ServiceUnavailable', message: 'later' }, { 'retry-after': '120' })]);
    const waits: number[] = [];
    const client = new ForensicsClient({ baseUrl: s.url, sleep: async (ms) => { waits.push(ms); } });
    const e = await client.ragAnswer({ query: 'q' }).catch((x) => x);
    await s.close();
    expect([e.status, e.retryAfterSeconds, waits.length, s.seen.length]).toEqual([503, 120, 0, 1]);
  });

  it('sends the Idempotency-Key and the feedback token without the API key', async () => {
    const accepted = { id: 'e1', status: 'QUEUED', duplicate: false, queued: true, links: { self: '/v1/feedback/e1' } };
    const s = await scripted([json(202, accepted), json(202, accepted)]);
    const client = new ForensicsClient({ baseUrl: s.url, apiKey: 'k' });
    await client.reportWrongAnswer({ query: 'q', wrongAnswer: 'w' }, { idempotencyKey: 'idem-1' });
    await client.reportWithToken('tok', { correctAnswer: 'c' });
    await s.close();
    expect(s.seen[0].headers['idempotency-key']).toBe('idem-1');
    expect(s.seen[1].headers['x-api-key']).toBeUndefined();
    expect(s.seen[1].headers.authorization).toBe('FeedbackToken tok');
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(30);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });
});

describe('webhook signatures', () => {
  const secret = 'whsec_test';
  const body = '{"id":"e","type":"quarantine.created","createdAt":"2026-11-27T00:00:00.000Z","data":{"documentId":"d"}}';
  const t = 1_795_430_567;
  // Computed independently of the SDK: hex HMAC-SHA256 of `${t}.${body}` (README "Webhooks").
  const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const now = t * 1000 + 10_000;

  it('accepts a valid signature and parses the event', () => {
    expect(verifyWebhookSignature(secret, body, header, { now })).toBe(true);
    expect(verifyWebhookSignature(secret, Buffer.from(body), header, { now })).toBe(true);
    expect(readWebhookEvent(secret, body, header, { now })?.type).toBe('quarantine.created');
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp and a malformed header', () => {
    expect(verifyWebhookSignature(secret, body.replace('"d"', '"x"'), header, { now })).toBe(false);
    expect(verifyWebhookSignature('whsec_other', body, header, { now })).toBe(false);
    expect(verifyWebhookSignature(secret, body, header, { now: t * 1000 + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(secret, body, 'v1=abc', { now })).toBe(false);
    expect(verifyWebhookSignature(secret, body, undefined, { now })).toBe(false);
    expect(readWebhookEvent(secret, body.replace('"d"', '"x"'), header, { now })).toBeNull();
  });
});
