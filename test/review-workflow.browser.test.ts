/**
 * The reviewer's workflow in the console (issue 35), in a real headless Chromium against the real
 * service (Postgres, Redis, HTTP server): progress on the queue and item pages, reason labels
 * toggled with 1–9 and stored with the decision, the undo bar (z) and "undo my last decision",
 * refused when another reviewer decided the item since, "next I can decide" (j) skipping an item
 * another reviewer holds and decided ones, the reason filter, the audit log showing the reasons, and
 * a viewer seeing none of the deciding controls. Items are seeded straight into Postgres.
 * Needs /usr/bin/chromium; skipped with a message when it is missing.
 */
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { seedReview } from '../scripts/seed-review';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  // eslint-disable-next-line no-console
  console.warn(`review workflow browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

(HAVE_CHROMIUM ? describe : describe.skip)('review console workflow in a real browser', () => {
  let t: TestApp;
  let db: Client;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const collection = uniqueName('cw');
  const keys: Record<'ann' | 'ben' | 'viewer', { key: string; name: string }> = {} as never;
  /** Seeded ids in queue order (sort=age). */
  let ids: string[] = [];
  const queueHash = () => `#/queue?collection=${collection}&state=NEEDS_REVIEW&sort=age`;

  const api = async (method: string, path: string, body?: unknown, key = TEST_API_KEY) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': key }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) as any };
  };
  const record = async (id: string) => (await db.query('SELECT "state"::text AS state, "decision", "reasons", "resolvedBy" FROM "QuarantineRecord" WHERE "id" = $1', [id])).rows[0];
  const loginAs = async (key: string) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.url}/console`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForSelector('#who .whoami');
    await page.waitForSelector('main[data-page]');
    return { page, errors };
  };
  const openQueue = async (page: Page) => {
    await page.evaluate((h) => { location.hash = h; }, queueHash());
    await page.waitForSelector('main[data-page="queue"] table.queue tbody tr');
    await page.waitForSelector('#progress[data-left]');
  };
  const itemOnScreen = async (page: Page, id: string) => {
    await page.waitForFunction((want) => location.hash === `#/item/${want}` && document.querySelector('main[data-page="item"] #item-doc') !== null && document.getElementById('main')!.dataset.page === 'item', id);
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { REVIEW_CLAIM_TTL_SEC: '120' } });
    db = new Client({ connectionString: t.config.databaseUrl });
    await db.connect();
    for (const [k, role] of [['ann', 'reviewer'], ['ben', 'reviewer'], ['viewer', 'viewer']] as const) {
      const name = uniqueName(k);
      const r = await api('POST', '/v1/admin/keys', { name, role });
      expect(r.status).toBe(201);
      keys[k] = { key: r.body.key, name };
    }
    await seedReview(db, { items: 8, collection, seed: 11, state: 'NEEDS_REVIEW' });
    ids = (await db.query('SELECT "id" FROM "QuarantineRecord" WHERE "collection" = $1 ORDER BY "createdAt", "id"', [collection])).rows.map((r) => r.id);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }, 180_000);
  afterEach(async () => { for (const c of contexts.splice(0)) await c.close().catch(() => {}); });
  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await t?.close();
  });

  it('reasons with 1–9, the undo bar (z), progress counts, j skips an item another reviewer holds, undo my last decision on the queue page', async () => {
    const { page, errors } = await loginAs(keys.ann.key);
    await openQueue(page);
    expect(await page.locator('#progress').getAttribute('data-mine')).toBe('0');
    expect(await page.locator('#progress').getAttribute('data-left')).toBe('8');
    await page.keyboard.press('Enter');
    await itemOnScreen(page, ids[0]);
    expect(await page.locator('#reasons .chip').count()).toBe(9);
    await page.keyboard.press('1');
    await page.keyboard.press('3');
    expect(await page.locator('#reasons .chip[aria-pressed="true"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.reason))).toEqual(['planted-claim', 'duplicate']);
    await page.keyboard.press('3');
    await page.keyboard.press('a');
    await page.waitForSelector('#decision-outcome p.ok[data-state="QUARANTINED"]');
    expect(await record(ids[0])).toMatchObject({ state: 'QUARANTINED', decision: 'approve', reasons: ['planted-claim'] });
    // The undo bar: z takes the decision back.
    await page.waitForSelector('#undo-bar:not([hidden]) #undo');
    await page.keyboard.press('z');
    await page.waitForSelector('#decision-outcome p.ok[data-undone="review.approved"]');
    expect(await record(ids[0])).toMatchObject({ state: 'NEEDS_REVIEW', decision: null, reasons: [] });
    expect(await page.locator('#item-state').getAttribute('data-state')).toBe('NEEDS_REVIEW');
    expect((await db.query('SELECT "action" FROM "AuditLog" WHERE "entityId" = $1 ORDER BY "id"', [ids[0]])).rows.map((r) => r.action)).toEqual(['review.requested', 'review.approved', 'review.undone']);

    // Decide again with two reasons; ben holds the next item: j skips it.
    expect((await api('POST', `/v1/review/items/${ids[1]}/claim`, undefined, keys.ben.key)).status).toBe(200);
    await page.keyboard.press('1');
    await page.keyboard.press('4');
    await page.keyboard.press('r');
    await page.waitForSelector('#decision-outcome p.ok[data-state="RESTORED"]');
    expect(await record(ids[0])).toMatchObject({ state: 'RESTORED', reasons: ['planted-claim', 'outdated-genuine'] });
    await page.keyboard.press('j');
    await itemOnScreen(page, ids[2]);
    await page.waitForSelector('#progress[data-mine]');
    expect(await page.locator('#progress').getAttribute('data-mine')).toBe('1');
    expect(await page.locator('#progress').getAttribute('data-left')).toBe('7');
    await page.keyboard.press('2');
    await page.keyboard.press('a');
    await page.waitForSelector('#decision-outcome p.ok[data-state="QUARANTINED"]');
    // The bar goes after a few seconds; the queue page's "undo my last decision" still reaches it.
    await page.waitForSelector('#undo-bar[hidden]', { state: 'attached', timeout: 15_000 });
    await openQueue(page);
    expect(await page.locator('#progress').getAttribute('data-mine')).toBe('2');
    await page.click('#undo-last');
    await page.waitForSelector(`.undo-result p.ok[data-id="${ids[2]}"]`);
    expect(await record(ids[2])).toMatchObject({ state: 'NEEDS_REVIEW', decision: null });
    // The reason filter: only the item restored with "outdated but genuine".
    await page.evaluate((h) => { location.hash = h; }, `#/queue?collection=${collection}&state=NEEDS_REVIEW,QUARANTINED,RESTORED&reason=outdated-genuine`);
    await page.waitForFunction(() => document.querySelectorAll('main[data-page="queue"] table.queue tbody tr').length === 1);
    expect(await page.locator('table.queue tbody tr').getAttribute('data-id')).toBe(ids[0]);
    // The audit log shows the reasons and filters by them.
    await page.evaluate((h) => { location.hash = h; }, `#/audit?reason=outdated-genuine&entityId=${ids[0]}`);
    await page.waitForSelector('main[data-page="audit"] table.audit tbody tr');
    expect(await page.locator('table.audit tbody tr').count()).toBe(1);
    expect(await page.locator('table.audit tbody').innerText()).toContain('outdated-genuine');
    expect(errors).toEqual([]);
  }, 120_000);

  it('undo is refused when another reviewer decided the item since; a viewer sees no reasons or undo', async () => {
    const { page } = await loginAs(keys.ann.key);
    await page.evaluate((h) => { location.hash = h; }, queueHash());
    await page.goto(`${t.url}/console#/item/${ids[5]}`);
    await itemOnScreen(page, ids[5]);
    await page.keyboard.press('a');
    await page.waitForSelector('#decision-outcome p.ok[data-state="QUARANTINED"]');
    expect((await api('POST', `/v1/review/items/${ids[5]}/decision`, { action: 'restore' }, keys.ben.key)).status).toBe(200);
    await page.keyboard.press('z');
    await page.waitForSelector('#decision-outcome p.error[data-status="409"]');
    expect(await page.locator('#decision-outcome').innerText()).toContain(keys.ben.name);
    expect(await record(ids[5])).toMatchObject({ state: 'RESTORED', decision: 'restore' });

    const viewer = await loginAs(keys.viewer.key);
    await openQueue(viewer.page);
    expect(await viewer.page.locator('#undo-last').count()).toBe(0);
    await viewer.page.goto(`${t.url}/console#/item/${ids[6]}`);
    await itemOnScreen(viewer.page, ids[6]);
    expect(await viewer.page.locator('#reasons').count()).toBe(0);
    expect(await viewer.page.locator('#read-only').count()).toBe(1);
  }, 60_000);
});
