/**
 * The queue dashboard in real headless Chromium: an admin logged in to the console (session cookie)
 * opens /admin/queues and bull-board renders every queue under the dashboard's own CSP — no script
 * of the page is refused (the only refusal allowed is its third-party Google Fonts stylesheet,
 * blocked on purpose). Needs /usr/bin/chromium; skipped with a message when it is missing.
 */
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY } from './support/test-runtime';
import { CHROMIUM, HAVE_CHROMIUM } from './support/chromium';

(HAVE_CHROMIUM ? describe : describe.skip)('queue dashboard in a real browser', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders every queue for an admin session, with no script refused by the CSP', async () => {
    const login = await fetch(`${t.url}/v1/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: TEST_API_KEY }) });
    expect(login.status).toBeLessThan(300);
    const token = /forensics_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    expect(token).toBeDefined();
    const context = await browser.newContext();
    await context.addCookies([{ name: 'forensics_session', value: token!, url: t.url }]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    const res = await page.goto(`${t.url}/admin/queues`);
    expect(res?.status()).toBe(200);
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    try {
      for (const name of ['traceback', 'maintenance', 'webhooks']) {
        await page.getByText(name, { exact: true }).first().waitFor({ state: 'visible', timeout: 20_000 });
      }
    } catch (e) {
      throw new Error(`${(e as Error).message}\nconsole errors: ${errors.join('\n')}\nfailed: ${failed.join('\n')}\nbody: ${(await page.content()).slice(0, 3000)}`);
    }
    const refused = errors.filter((e) => !/fonts\.googleapis\.com/.test(e));
    expect(refused).toEqual([]);
    await context.close();
  });

  it('a browser without a session gets the 401, not the page', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${t.url}/admin/queues`);
    expect(res?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('log in to the console');
    await page.close();
  });
});
