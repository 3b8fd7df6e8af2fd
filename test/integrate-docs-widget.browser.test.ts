/**
 * docs/integrate.md's widget snippet, as printed, on a customer's page in a real headless Chromium
 * against the real API (Postgres, Redis, embedded vector store, HTTP). Only the snippet's
 * placeholders are replaced — ANSWER_ID and FEEDBACK_TOKEN by an answer logged through the SDK,
 * https://forensics.example.com by the service's address; the page is served from another origin
 * (CORS). The user types the right answer and presses the button → one feedback event in Postgres,
 * tied to exactly the logged answer's texts.
 * Needs /usr/bin/chromium (Debian package `chromium`); skipped with a message when it is missing.
 *   npx jest test/integrate-docs-widget.browser.test.ts
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ForensicsClient } from '@forensics/client';
import { CHROMIUM, HAVE_CHROMIUM } from './support/chromium';
import { namedBlocks } from './support/docs-blocks';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const SNIPPET = namedBlocks(readFileSync(join(ROOT, 'docs/integrate.md'), 'utf8')).get('widget');
const PLACEHOLDER_ORIGIN = 'https://forensics.example.com';

(HAVE_CHROMIUM ? describe : describe.skip)('docs/integrate.md widget snippet in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let customer: Server;
  let customerUrl: string;
  let customerHtml = '';

  beforeAll(async () => {
    t = await createTestApp({ api: true });
    customer = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(customerHtml); });
    await new Promise<void>((resolve) => customer.listen(0, '127.0.0.1', resolve));
    customerUrl = `http://127.0.0.1:${(customer.address() as AddressInfo).port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (customer ? customer.close(() => resolve()) : resolve()));
    await t?.close();
  });

  it('is an html block with exactly the placeholders the page names', () => {
    expect(SNIPPET?.lang).toBe('html');
    for (const p of ['ANSWER_ID', 'FEEDBACK_TOKEN', PLACEHOLDER_ORIGIN]) expect(SNIPPET!.body).toContain(p);
  });

  it('on a page of another origin: type the right answer, press the button → one feedback event for the logged answer', async () => {
    const collection = uniqueName('docs_widget');
    const client = new ForensicsClient({ baseUrl: t.url, apiKey: TEST_API_KEY });
    const { ids } = await client.ingest(collection, [
      { text: 'The novel Moby-Dick was written by Charles Dickens, the English author, in 1851.' },
      { text: 'Moby-Dick is an 1851 novel by the American writer Herman Melville about the whaling ship Pequod.' },
    ]);
    const logged = await client.logAnswer({ collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds: ids });

    customerHtml = `<!doctype html><html><body><p>Customer app: Charles Dickens</p>\n${SNIPPET!.body
      .replaceAll('ANSWER_ID', logged.answerId)
      .replaceAll('FEEDBACK_TOKEN', logged.feedbackToken)
      .replaceAll(PLACEHOLDER_ORIGIN, t.url)}</body></html>`;
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(customerUrl);
    expect(new URL(page.url()).origin).not.toBe(new URL(t.url).origin);

    await page.getByPlaceholder('The right answer is… (optional)').fill('Herman Melville');
    await page.getByRole('button', { name: 'Wrong answer' }).click();
    await page.waitForSelector('.rag-feedback__status[data-outcome="ok"]:has-text("Thank you")');
    const eventId = await page.locator('[data-rag-feedback]').getAttribute('data-event-id');
    const ev = await t.prisma.feedbackEvent.findUnique({ where: { id: eventId! } });
    expect(ev).toMatchObject({ answerId: logged.answerId, collection, query: 'who wrote moby dick', wrongAnswer: 'Charles Dickens', correctAnswer: 'Herman Melville' });
    expect(ev!.servedIds).toEqual(ids);
    expect(await t.prisma.feedbackEvent.count({ where: { answerId: logged.answerId } })).toBe(1);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
