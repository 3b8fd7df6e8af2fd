/**
 * Console sessions (issue 11) on the real service: login with a key sets an httpOnly,
 * SameSite=Strict, expiring cookie; state-changing requests with the cookie need the session's
 * CSRF token and this origin; expiry is enforced server-side; logout deletes the session; login is
 * protected against cross-site posts and brute force; security headers; the log of the whole flow
 * never holds the key, the cookie or the CSRF token.
 */
import { Writable } from 'node:stream';
import { rmSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { InfrastructureModule, PRISMA, REPOSITORIES, type PrismaClient } from '@forensics/infra';
import type { QuarantineEvidence, Repositories } from '@forensics/core';
import { createApiApp } from '../apps/api/src/create-api-app';
import { request as httpRequest } from 'node:http';
import { LOGIN_FAILURES_PER_ADDRESS, LOGIN_FAILURES_PER_KEY } from '../apps/api/src/http/login-throttle';
import { testConfig } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const EVIDENCE: QuarantineEvidence = {
  policy: { name: 'corroborated', decision: 'REVIEW', withhold: true, reason: 'test', inputs: {} },
  judge: { kind: 'scripted', model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: null },
  retrieval: null,
  retrieverEvidence: null,
};

describe('console sessions, CSRF and security headers', () => {
  const chunks: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { chunks.push(chunk.toString()); done(); } });
  const config = testConfig({ LOG_FORMAT: 'json', SESSION_TTL_MINUTES: '30' });
  let app: NestExpressApplication;
  let base = '';
  let host = '';
  let prisma: PrismaClient;
  let repos: Repositories;
  const collection = uniqueName('sess');
  let docIds: string[] = [];
  const secrets: string[] = [TEST_API_KEY];

  const request = async (method: string, path: string, opts: { key?: string; cookie?: string; csrf?: string; origin?: string; body?: unknown; form?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.csrf) headers['x-csrf-token'] = opts.csrf;
    if (opts.origin) headers.origin = opts.origin;
    let body: string | undefined;
    if (opts.form !== undefined) { headers['content-type'] = 'application/x-www-form-urlencoded'; body = opts.form; }
    else if (opts.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(opts.body); }
    const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: any = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = text; }
    return { status: res.status, body: json, headers: res.headers };
  };
  const newKey = async (role: string) => {
    const r = await request('POST', '/v1/admin/keys', { key: TEST_API_KEY, body: { name: uniqueName(role), role } });
    expect(r.status).toBe(201);
    secrets.push(r.body.key);
    return r.body as { id: string; key: string; prefix: string; name: string };
  };
  const login = async (key: string) => {
    const r = await request('POST', '/v1/session', { body: { key } });
    expect(r.status).toBe(200);
    const setCookie = r.headers.get('set-cookie')!;
    const cookie = setCookie.split(';')[0];
    secrets.push(cookie.split('=')[1], r.body.csrfToken);
    return { cookie, setCookie, csrf: r.body.csrfToken as string, body: r.body };
  };
  const reviewItem = async (i: number) => (await repos.quarantines.create({
    state: 'NEEDS_REVIEW', documentId: docIds[i], feedbackId: null, collection, reason: 'test', evidence: EVIDENCE, policy: 'corroborated', createdBy: 'test',
  })).record;

  beforeAll(async () => {
    const infrastructure = InfrastructureModule.forRoot(config);
    app = await createApiApp(config, { infrastructure, logDestination: sink });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    host = new URL(base).host;
    prisma = app.get<PrismaClient>(PRISMA, { strict: false });
    repos = app.get<Repositories>(REPOSITORIES, { strict: false });
    const r = await request('POST', `/v1/collections/${collection}/documents`, { key: TEST_API_KEY, body: { documents: ['one text', 'two text', 'three text', 'four text'].map((text, i) => ({ id: `d${i}`, text })) } });
    expect(r.status).toBe(200);
    docIds = (await prisma.document.findMany({ where: { collection }, orderBy: { externalId: 'asc' } })).map((d) => d.id);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(config.dataDir, { recursive: true, force: true });
  });

  it('login sets an httpOnly, SameSite=Strict, Path=/ cookie expiring with the session, and returns the CSRF token', async () => {
    const k = await newKey('reviewer');
    const { setCookie, cookie, csrf, body } = await login(k.key);
    expect(body).toMatchObject({ name: `user:${k.name}`, role: 'reviewer', keyId: k.id });
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie).toMatch(/^forensics_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain('Max-Age=1800');
    expect(setCookie).not.toContain('Secure'); // plain http here; Secure over https / in production
    // The cookie's token is not stored: the row id is its SHA-256.
    const token = cookie.split('=')[1];
    expect(await prisma.session.findUnique({ where: { id: token } })).toBeNull();
    const rows = await prisma.session.findMany({ where: { keyId: k.id } });
    expect(rows).toHaveLength(1);
    // Expiry = login time + SESSION_TTL_MINUTES (the row's createdAt is the database's clock: allow a few seconds).
    expect(Math.abs(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime() - 30 * 60_000)).toBeLessThan(5000);
    const me = await request('GET', '/v1/session/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: `user:${k.name}`, role: 'reviewer', via: 'session', keyId: k.id, csrfToken: csrf });
    // Login is audited, naming the user and key id.
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { action: 'session.created', actor: `user:${k.name} key:${k.id}` } });
    expect(audit.entityType).toBe('Session');
  });

  it('a state-changing request with the cookie needs the CSRF token (403 without or wrong, 200 with) and this origin', async () => {
    const k = await newKey('reviewer');
    const { cookie, csrf } = await login(k.key);
    const item = await reviewItem(0);
    const none = await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, body: {} });
    expect(none.status).toBe(403);
    expect(none.body.message).toContain('X-CSRF-Token');
    expect((await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf: `${csrf.slice(0, -1)}x`, body: {} })).status).toBe(403);
    // Another session's token is no good either.
    const other = await login((await newKey('reviewer')).key);
    expect((await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf: other.csrf, body: {} })).status).toBe(403);
    // A foreign Origin is refused even with the right token.
    const foreign = await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf, origin: 'https://evil.example', body: {} });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('foreign origin');
    expect((await repos.quarantines.get(item.id))!.state).toBe('NEEDS_REVIEW');
    const ok = await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf, origin: `http://${host}`, body: { note: 'via console' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'QUARANTINED', resolvedBy: `user:${k.name} key:${k.id}` });
    // Reads need no token; an API key needs none either (not cookie-borne).
    expect((await request('GET', '/v1/quarantine?state=QUARANTINED', { cookie })).status).toBe(200);
    const item2 = await reviewItem(1);
    expect((await request('POST', `/v1/quarantine/${item2.id}/approve`, { key: k.key, body: {} })).status).toBe(200);
  });

  it('the origin check compares scheme and port, not just the host (issue 56, item 7): https or another port on this http service is foreign', async () => {
    const k = await newKey('reviewer');
    const { cookie, csrf } = await login(k.key);
    const item = await reviewItem(3);
    const port = Number(new URL(base).port);
    for (const origin of [`https://${host}`, `http://127.0.0.1:${port + 1}`]) {
      const state = await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf, origin, body: {} });
      expect([origin, state.status, state.body.message]).toEqual([origin, 403, expect.stringContaining('foreign origin')]);
      const signIn = await request('POST', '/v1/session', { body: { key: k.key }, origin });
      expect([origin, signIn.status, signIn.headers.get('set-cookie')]).toEqual([origin, 403, null]);
    }
    expect((await repos.quarantines.get(item.id))!.state).toBe('NEEDS_REVIEW');
    // The service's own origin (scheme, host and port) is accepted.
    expect((await request('POST', '/v1/session', { body: { key: k.key }, origin: `http://${host}` })).status).toBe(200);
    const ok = await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie, csrf, origin: `http://${host}`, body: {} });
    expect(ok.status).toBe(200);
  });

  it('roles hold through sessions: a viewer session cannot decide, a reviewer session cannot manage', async () => {
    const viewer = await login((await newKey('viewer')).key);
    const item = await reviewItem(2);
    expect((await request('POST', `/v1/quarantine/${item.id}/approve`, { cookie: viewer.cookie, csrf: viewer.csrf, body: {} })).status).toBe(403);
    const reviewer = await login((await newKey('reviewer')).key);
    expect((await request('GET', '/v1/admin/keys', { cookie: reviewer.cookie })).status).toBe(403);
    expect((await request('POST', '/v1/admin/keys', { cookie: reviewer.cookie, csrf: reviewer.csrf, body: { name: 'x', role: 'admin' } })).status).toBe(403);
  });

  it('an expired session is refused (401) and deleted; logout deletes the session server-side', async () => {
    const k = await newKey('viewer');
    const a = await login(k.key);
    const [row] = await prisma.session.findMany({ where: { keyId: k.id } });
    await prisma.session.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await request('GET', '/v1/session/me', { cookie: a.cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toBe('session expired: log in again');
    expect(await prisma.session.findUnique({ where: { id: row.id } })).toBeNull();

    const b = await login(k.key);
    expect((await request('DELETE', '/v1/session', { cookie: b.cookie })).status).toBe(403); // logout needs the token too
    const out = await request('DELETE', '/v1/session', { cookie: b.cookie, csrf: b.csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^forensics_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await request('GET', '/v1/session/me', { cookie: b.cookie });
    expect(after.status).toBe(401);
    expect(after.body.message).toContain('logged out');
    expect(await prisma.session.count({ where: { keyId: k.id } })).toBe(0);
    expect(await prisma.auditLog.count({ where: { action: 'session.ended', actor: `user:${k.name} key:${k.id}` } })).toBe(1);
  });

  it('revoking the key ends its sessions at the next request', async () => {
    const k = await newKey('reviewer');
    const s = await login(k.key);
    expect((await request('GET', '/v1/session/me', { cookie: s.cookie })).status).toBe(200);
    expect((await request('POST', `/v1/admin/keys/${k.id}/revoke`, { key: TEST_API_KEY })).status).toBe(200);
    const r = await request('GET', '/v1/session/me', { cookie: s.cookie });
    expect(r.status).toBe(401);
    expect(r.body.message).toContain('revoked');
  });

  it('login: a bootstrap key opens an admin session; a form post redirects to /console; cross-site posts are refused', async () => {
    const admin = await login(TEST_API_KEY);
    expect(admin.body).toMatchObject({ name: 'bootstrap-admin', role: 'admin' });
    expect((await request('GET', '/v1/admin/users', { cookie: admin.cookie })).status).toBe(200);
    const k = await newKey('viewer');
    const form = await request('POST', '/v1/session', { form: `key=${encodeURIComponent(k.key)}` });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/console');
    expect(form.headers.get('set-cookie')).toContain('HttpOnly');
    secrets.push(form.headers.get('set-cookie')!.split(';')[0].split('=')[1]);
    const cross = await request('POST', '/v1/session', { body: { key: k.key }, origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.headers.get('set-cookie')).toBeNull();
    expect((await request('POST', '/v1/session', { body: {} })).body.message).toContain('key is required');
  });

  it('security headers: strict CSP (no inline script, no framing), nosniff, no referrer on the API; the widget keeps its own', async () => {
    const r = await request('GET', '/v1/session/me', { key: TEST_API_KEY });
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    const widget = await fetch(`${base}/widget.js`);
    expect(widget.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const example = await fetch(`${base}/widget/example?answerId=x&token=y`);
    expect(example.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
    const openapi = (await (await fetch(`${base}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(openapi.paths['/v1/session']).sort()).toEqual(['delete', 'post']);
    expect(Object.keys(openapi.paths['/v1/admin/keys']).sort()).toEqual(['get', 'post']);
    expect(openapi.paths['/v1/admin/keys/{id}/revoke']).toBeDefined();
    expect(openapi.paths['/v1/session/me']).toBeDefined();
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-security-policy')).toBeNull();
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the log of the whole flow never contains a key, a session token or a CSRF token', async () => {
    const text = chunks.join('');
    expect(text.length).toBeGreaterThan(0);
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(text).toContain('/v1/session');
    for (const s of secrets) expect(text).not.toContain(s);
  });

  /** A JSON login from a given loopback address (127.0.0.x: real, distinct client addresses, no proxy header). */
  const loginFrom = (from: string, key: string) => new Promise<{ status: number; retryAfter?: string; body: any; cookie?: string }>((resolve, reject) => {
    const u = new URL(`${base}/v1/session`);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress: from, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body: text ? JSON.parse(text) : null,
        cookie: (res.headers['set-cookie'] ?? [])[0]?.split(';')[0],
      }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ key }));
  });
  const wrongKey = (prefix = Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')) => `rfk_${prefix}_${'A'.repeat(43)}`;

  it('brute force on one key: after LOGIN_FAILURES_PER_KEY failures that key gets 429 with Retry-After; other keys from the address still 401; after 20 failures a right key logs in', async () => {
    const from = '127.0.0.21';
    const k = await newKey('reviewer');
    for (let i = 0; i < LOGIN_FAILURES_PER_KEY; i++) expect((await loginFrom(from, wrongKey('0badc0de'))).status).toBe(401);
    const blocked = await loginFrom(from, wrongKey('0badc0de'));
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ statusCode: 429, error: 'TooManyRequests', message: expect.stringMatching(/^too many failed logins with this key: try again in \d+ s \(a right key still logs in\)$/) });
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(300);
    // Other keys from the same address: still plain 401s (the address's own bound is higher).
    for (let i = 0; i < 20 - LOGIN_FAILURES_PER_KEY - 1; i++) expect((await loginFrom(from, wrongKey())).status).toBe(401);
    // 20 failures from this address now: a right key logs in, and its session works.
    const ok = await loginFrom(from, k.key);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ role: 'reviewer' });
    secrets.push(ok.cookie!.split('=')[1], ok.body.csrfToken);
    expect((await request('GET', '/v1/session/me', { cookie: ok.cookie })).body).toMatchObject({ via: 'session', role: 'reviewer' });
  });

  it('a flood of failures from one address (a NAT): past LOGIN_FAILURES_PER_ADDRESS wrong keys get 429, right keys (user and bootstrap admin) still log in, other addresses are not slowed', async () => {
    const from = '127.0.0.22';
    const k = await newKey('viewer');
    for (let i = 0; i < LOGIN_FAILURES_PER_ADDRESS; i++) expect((await loginFrom(from, wrongKey())).status).toBe(401);
    const blocked = await loginFrom(from, wrongKey());
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/^too many failed logins from this address: try again in \d+ s/);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect((await loginFrom(from, 'not even a key')).status).toBe(429);
    for (const key of [k.key, TEST_API_KEY]) {
      const ok = await loginFrom(from, key);
      expect(ok.status).toBe(200);
      secrets.push(ok.cookie!.split('=')[1], ok.body.csrfToken);
    }
    expect((await loginFrom(from, wrongKey())).status).toBe(429); // the right keys did not reset the address's count
    expect((await loginFrom('127.0.0.23', wrongKey())).status).toBe(401);
    // API keys in headers are not affected by the login brake.
    expect((await request('GET', '/v1/session/me', { key: k.key })).status).toBe(200);
  });
});
