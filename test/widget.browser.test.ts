/**
 * The feedback button in a real headless Chromium against the real API (Postgres, Redis, embedded
 * vector store, HTTP): answer + token from POST /v1/rag/answer, the example page, a typed correct
 * answer, a click → the event in Postgres; a second click → the same event. Also embedded on
 * another origin (CORS) and with a tampered token (the error is shown).
 * Needs /usr/bin/chromium (Debian package `chromium`); skipped with a message when it is missing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';
import { CHROMIUM, HAVE_CHROMIUM } from './support/chromium';

const DOCS = [
  { id: 'melville', text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville about the whaling ship Pequod.' },
  { id: 'dickens', text: 'The novel Moby-Dick was written by Charles Dickens, the English author, in 1851.' },
  { id: 'whale', text: 'The sperm whale is the largest of the toothed whales and the largest toothed predator.' },
  { id: 'austen', text: 'Pride and Prejudice is an 1813 novel of manners by the English writer Jane Austen.' },
];
const QUERY = 'who wrote the novel moby dick';

(HAVE_CHROMIUM ? describe : describe.skip)('feedback widget in a real browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let thirdParty: Server;
  let thirdPartyUrl: string;
  let thirdPartyHtml = '';
  const collection = uniqueName('widget');

  const answer = async (query = QUERY) => {
    const res = await fetch(`${base}/v1/rag/answer`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ collection, query, k: 3 }) });
    expect(res.status).toBe(200);
    return (await res.json()) as { answerId: string; answer: string; feedbackToken: string; contexts: { id: string }[] };
  };
  const status = (p: Page) => p.locator('.rag-feedback__status');

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    base = t.url;
    const ingest = await fetch(`${base}/v1/collections/${collection}/documents`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ documents: DOCS }) });
    expect(ingest.status).toBe(200);
    // A customer's page on another origin (other port), embedding the snippet.
    thirdParty = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(thirdPartyHtml); });
    await new Promise<void>((resolve) => thirdParty.listen(0, '127.0.0.1', resolve));
    thirdPartyUrl = `http://127.0.0.1:${(thirdParty.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    await page?.close();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (thirdParty ? thirdParty.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('example page: type the right answer, click → one feedback event in Postgres; click again → the same event', async () => {
    const a = await answer();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const url = `${base}/widget/example?answerId=${a.answerId}&token=${encodeURIComponent(a.feedbackToken)}&q=${encodeURIComponent('<img src=x onerror="window.pwned=1">')}&a=${encodeURIComponent(a.answer)}`;
    await page.goto(url);
    // Query-string values are shown as text, never parsed as HTML.
    expect(await page.locator('#question').textContent()).toBe('<img src=x onerror="window.pwned=1">');
    expect(await page.locator('img').count()).toBe(0);

    await page.getByPlaceholder('The right answer is… (optional)').fill('Herman Melville');
    await page.getByRole('button', { name: 'Wrong answer' }).click();
    await page.waitForSelector('.rag-feedback__status[data-outcome="ok"]:has-text("Thank you")');
    const eventId = await page.locator('[data-rag-feedback]').getAttribute('data-event-id');
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await status(page).textContent()).toContain(eventId!);

    const ev = await t.prisma.feedbackEvent.findUnique({ where: { id: eventId! } });
    expect(ev).toMatchObject({ answerId: a.answerId, collection, query: QUERY, wrongAnswer: a.answer, correctAnswer: 'Herman Melville' });
    expect(ev!.servedIds).toEqual(a.contexts.map((c) => c.id));

    await page.getByRole('button', { name: 'Wrong answer' }).click();
    await page.waitForSelector('.rag-feedback__status:has-text("Already reported")');
    expect(await status(page).textContent()).toContain(eventId!);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: a.answerId } })).toBe(1);
    expect(pageErrors).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('embedded on another origin (CORS), the snippet reports; a tampered token shows the error', async () => {
    const a = await answer('who wrote pride and prejudice');
    const [payload, sig] = a.feedbackToken.split('.');
    const tampered = `${payload}.${sig.slice(0, 4)}${sig[4] === 'A' ? 'B' : 'A'}${sig.slice(5)}`;
    const div = (id: string, token: string) => `<div id="${id}" data-rag-feedback data-answer-id="${a.answerId}" data-token="${token}" data-endpoint="${base}"></div>`;
    thirdPartyHtml = `<!doctype html><html><body><p>Customer app</p>${div('bad', tampered)}${div('good', a.feedbackToken)}<script src="${base}/widget.js" defer></script></body></html>`;
    await page.goto(thirdPartyUrl);
    expect(new URL(page.url()).origin).not.toBe(new URL(base).origin);

    await page.locator('#bad .rag-feedback__button').click();
    await page.waitForSelector('#bad .rag-feedback__status[data-outcome="error"]');
    expect(await page.locator('#bad .rag-feedback__status').textContent()).toMatch(/Could not send the report: feedback token has a bad signature/);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: a.answerId } })).toBe(0);

    await page.locator('#good .rag-feedback__input').fill('Jane Austen');
    await page.locator('#good .rag-feedback__button').click();
    // data-outcome is already "ok" while "Sending…" is shown: wait for the reply's text.
    await page.waitForSelector('#good .rag-feedback__status[data-outcome="ok"]:has-text("Thank you")');
    const ev = await t.prisma.feedbackEvent.findFirst({ where: { answerId: a.answerId } });
    expect(ev).toMatchObject({ correctAnswer: 'Jane Austen', query: 'who wrote pride and prejudice' });
    expect(await page.locator('#good .rag-feedback__status').textContent()).toContain(ev!.id);
  });
});
