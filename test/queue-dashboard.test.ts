/**
 * The queue dashboard (issue 14, item 2): bull-board at /admin/queues behind the Authenticator —
 * 401 without credentials, 403 for a key without `manage`, 200 for an admin (API key, or the
 * console's session cookie) — listing every queue the container registered, with its own CSP.
 */
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

describe('queue dashboard (bull-board)', () => {
  let t: TestApp;
  let viewerKey: string;

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    const r = await fetch(`${t.url}/v1/admin/keys`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ name: uniqueName('viewer'), role: 'viewer' }),
    });
    expect(r.status).toBe(201);
    viewerKey = ((await r.json()) as { key: string }).key;
  });
  afterAll(async () => { await t?.close(); });

  it('refuses a request without credentials (401) and a key without manage (403)', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const anon = await fetch(t.url + path);
      expect(anon.status).toBe(401);
      expect(((await anon.json()) as { message: string }).message).toMatch(/admin/);
      const viewer = await fetch(t.url + path, { headers: { 'x-api-key': viewerKey } });
      expect(viewer.status).toBe(403);
      expect(((await viewer.json()) as { message: string }).message).toMatch(/manage permission/);
      expect((await fetch(t.url + path, { headers: { 'x-api-key': 'not-a-key-0123456789' } })).status).toBe(401);
    }
  });

  it('serves the page and lists every registered queue to an admin key', async () => {
    const page = await fetch(`${t.url}/admin/queues`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'self'"); // the page resolves its assets against <base href>
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    // Its scripts come from its own static path (relative to its <base href>), behind the same check.
    const base = /<base href="([^"]+)"/.exec(html)?.[1];
    expect(base).toBe('/admin/queues/');
    const asset = new URL(scripts[0], `http://x${base}`).pathname;
    expect((await fetch(t.url + asset, { headers: { 'x-api-key': TEST_API_KEY } })).status).toBe(200);
    expect((await fetch(t.url + asset)).status).toBe(401);

    const api = await fetch(`${t.url}/admin/queues/api/queues`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: Array<{ name: string }> };
    const names = body.queues.map((q) => q.name).sort();
    expect(names).toEqual(['audits', 'maintenance', 'traceback', 'webhooks']);
  });

  it('accepts the console session cookie of an admin', async () => {
    const login = await fetch(`${t.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: TEST_API_KEY }) });
    expect(login.status).toBeLessThan(300);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/^forensics_session=/);
    const api = await fetch(`${t.url}/admin/queues/api/queues`, { headers: { cookie } });
    expect(api.status).toBe(200);
    expect(((await api.json()) as { queues: unknown[] }).queues).toHaveLength(4);
  });
});
