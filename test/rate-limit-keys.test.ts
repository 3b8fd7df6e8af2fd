/**
 * How the rate limits are keyed (issue 56, items 2 and 3), on real parts: the HTTP server, Redis,
 * Postgres. Requests leave from real loopback addresses (127.0.0.x, `localAddress`); behind the
 * "proxy" (TRUST_PROXY=1) this test is the proxy: every request comes from 127.0.0.1 and names its
 * client in X-Forwarded-For.
 *
 * - the reporter budget is per caller (key id, or a token's client address) and per folded name;
 * - TRUST_PROXY=<hops>: the client address is the one the proxy appended to X-Forwarded-For, and
 *   the scheme the one it sent in X-Forwarded-Proto; unset, both headers are ignored.
 */
import { request } from 'node:http';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

type Json = Record<string, any>;
type Reply = { status: number; retryAfter?: string; setCookie?: string[]; body: Json };
const SECOND_KEY = 'second-test-key-0123456789';
const THIRD_KEY = 'third-test-key-0123456789';

/** One HTTP request to `t` from a given local (loopback) address, with the headers given (Host included). */
function call(t: TestApp, from: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(t.url + path);
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, localAddress: from, agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        let parsed: Json = {};
        try { parsed = JSON.parse(text) as Json; } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, setCookie: res.headers['set-cookie'], body: parsed });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** A collection with two texts; returns their ids (what answers are logged with). */
async function seed(t: TestApp, collection: string): Promise<string[]> {
  const r = await call(t, '127.0.0.1', 'POST', `/v1/collections/${collection}/documents`, { documents: [
    { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville.' },
    { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens in 1851.' },
  ] }, { 'x-api-key': TEST_API_KEY });
  expect(r.status).toBe(200);
  return (await t.prisma.document.findMany({ where: { collection } })).map((d) => d.id);
}

describe('the reporter budget is per caller and per folded name (issue 56, item 2)', () => {
  let t: TestApp;
  const collection = uniqueName('rl-reporter');
  let servedIds: string[] = [];
  const token = async () => {
    const r = await call(t, '127.0.0.1', 'POST', '/v1/answers', { collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds }, { 'x-api-key': TEST_API_KEY });
    expect(r.status).toBe(201);
    return r.body.feedbackToken as string;
  };
  const tokenReport = async (from: string, reporter: string) => call(t, from, 'POST', '/v1/feedback', { reporter }, { authorization: `FeedbackToken ${await token()}` });
  let n = 0;
  const keyReport = (key: string, reporter: string) =>
    call(t, '127.0.0.1', 'POST', '/v1/feedback', { collection, query: `report ${n++} who wrote moby dick`, wrongAnswer: 'Charles Dickens', reporter }, { 'x-api-key': key });
  const statuses = async (sends: (() => Promise<Reply>)[]) => {
    const out: number[] = [];
    for (const send of sends) out.push((await send()).status); // one after another: the order is the budget's
    return out;
  };

  /** The audit log's last id when this app started: the test database is shared by every file of a run. */
  let auditsBefore = 0n;

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { API_KEYS: `${TEST_API_KEY},${SECOND_KEY},${THIRD_KEY}`, RATE_LIMIT_REPORTER_PER_MIN: '3' } });
    servedIds = await seed(t, collection);
    auditsBefore = (await t.prisma.auditLog.findFirst({ orderBy: { id: 'desc' }, select: { id: true } }))?.id ?? 0n;
  }, 120_000);
  afterAll(async () => { await t?.close(); });

  it("a feedback token's self-declared name spends its own budget only, never a key's that names the same person", async () => {
    // Before issue 56: the budget was the typed name's, across every caller — four anonymous reports
    // naming `victim` made every later report naming `victim` answer 429, from any key.
    expect(await statuses([1, 2, 3, 4].map(() => () => tokenReport('127.0.0.5', 'victim')))).toEqual([202, 202, 202, 429]);
    expect((await keyReport(SECOND_KEY, 'victim')).status).toBe(202);
    expect((await tokenReport('127.0.0.6', 'victim')).status).toBe(202); // another client: its own budget
    const audit = await t.prisma.auditLog.findFirstOrThrow({ where: { id: { gt: auditsBefore }, action: 'ratelimit.exceeded', details: { path: ['scope'], equals: 'reporter' } } });
    expect(audit.entityId).toMatch(/^feedback:reporter:addr:[0-9a-f]{16}\/victim$/); // the client's address hashed, as everywhere
  });

  it("a key's budget for a name is its own, and the name is compared folded (case, width, spaces)", async () => {
    // SECOND_KEY named `victim` once above; the variants are the same name: 3 in all, then 429.
    expect(await statuses([
      () => keyReport(SECOND_KEY, 'Victim'), () => keyReport(SECOND_KEY, '  VICTIM '), () => keyReport(SECOND_KEY, 'ｖｉｃｔｉｍ'),
    ])).toEqual([202, 202, 429]);
    expect(await statuses([1, 2, 3, 4].map(() => () => keyReport(TEST_API_KEY, 'alice')))).toEqual([202, 202, 202, 429]);
    // Another key naming the same people is not slowed.
    expect(await statuses([() => keyReport(THIRD_KEY, 'alice'), () => keyReport(THIRD_KEY, 'VICTIM')])).toEqual([202, 202]);
  });

  it('without TRUST_PROXY, forwarded headers are not believed (the scheme is the connection\'s)', async () => {
    const host = new URL(t.url).host;
    const r = await call(t, '127.0.0.1', 'POST', '/v1/session', { key: TEST_API_KEY }, { host, origin: `https://${host}`, 'x-forwarded-proto': 'https' });
    expect([r.status, r.body.message]).toEqual([403, expect.stringContaining('foreign origin')]);
  });
});

describe('behind a reverse proxy: TRUST_PROXY=1 (issue 56, item 3)', () => {
  let t: TestApp;
  const collection = uniqueName('rl-proxy');
  let servedIds: string[] = [];
  const PROXY = '127.0.0.1';
  const token = async () => {
    const r = await call(t, PROXY, 'POST', '/v1/answers', { collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds }, { 'x-api-key': TEST_API_KEY });
    expect(r.status).toBe(201);
    return r.body.feedbackToken as string;
  };
  /** A report relayed by the proxy, which appended the client's address to X-Forwarded-For. */
  const relayed = (forwardedFor: string, tok: string) => call(t, PROXY, 'POST', '/v1/feedback', {}, { authorization: `FeedbackToken ${tok}`, 'x-forwarded-for': forwardedFor });

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { TRUST_PROXY: '1', RATE_LIMIT_FEEDBACK_PER_MIN: '3', RATE_LIMIT_ADDRESS_PER_MIN: '5' } });
    servedIds = await seed(t, collection);
  }, 120_000);
  afterAll(async () => { await t?.close(); });

  it('each client behind the proxy has its own address budget; the address is the hop the proxy appended, not what the client wrote', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 8; i++) tokens.push(await token());
    const rs = await Promise.all(tokens.map((tok) => relayed('203.0.113.10', tok)));
    expect(rs.filter((r) => r.status === 202)).toHaveLength(5);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(3);
    expect(rs.find((r) => r.status === 429)!.body.message).toMatch(/address \(5\/min\)/);
    const refused = tokens.filter((_, i) => rs[i].status === 429);
    // The client forging an X-Forwarded-For entry of its own: the proxy appends the real one, which is what counts.
    expect((await relayed('198.51.100.7, 203.0.113.10', refused[0])).status).toBe(429);
    // Another client behind the same proxy is not slowed (before issue 56 every client was the proxy's one address: 429).
    const other = await Promise.all(refused.map((tok) => relayed('203.0.113.11', tok)));
    expect(other.map((r) => r.status)).toEqual(refused.map(() => 202));
  });

  it('the scheme is the one the proxy forwarded: a console behind a TLS proxy logs in from its https origin, with a Secure cookie', async () => {
    const host = 'forensics.example';
    const viaTls = await call(t, PROXY, 'POST', '/v1/session', { key: TEST_API_KEY }, { host, origin: `https://${host}`, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.12' });
    expect(viaTls.status).toBe(200);
    expect(viaTls.setCookie?.[0]).toContain('Secure');
    // A proxy that rewrites Host to its upstream names the public host in X-Forwarded-Host.
    const rewritten = await call(t, PROXY, 'POST', '/v1/session', { key: TEST_API_KEY }, { host: 'api:3000', origin: `https://${host}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': host });
    expect(rewritten.status).toBe(200);
    // Plain http from the proxy (no X-Forwarded-Proto) is another origin than https.
    const plain = await call(t, PROXY, 'POST', '/v1/session', { key: TEST_API_KEY }, { host, origin: `https://${host}`, 'x-forwarded-for': '203.0.113.12' });
    expect([plain.status, plain.body.message]).toEqual([403, expect.stringContaining('foreign origin')]);
  });
});
