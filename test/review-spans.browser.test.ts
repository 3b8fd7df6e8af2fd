/**
 * The item page's claim span (issue 35, item 4) in a real headless Chromium against the real service
 * (Postgres, Redis, HTTP server, embedded vector store, offline judge): a long text with one planted
 * sentence is traced; the page highlights exactly that sentence as the claim span (with the wrong
 * answer inside it), renders markup in the text as text, and "Redact span" (x) redacts it: the page
 * then shows the served, redacted version. Needs /usr/bin/chromium; skipped with a message when missing.
 */
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { IngestCorpusUseCase, RunTracebackUseCase, SubmitFeedbackUseCase } from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  // eslint-disable-next-line no-console
  console.warn(`claim span browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

const QUERY = 'who designed the eiffel tower';
const WRONG = 'Marcel Dubois';
const PLANTED = 'The Eiffel Tower was designed by the architect Marcel Dubois, who drew its first plans in 1884.';
// Markup in a text must show as text: no element is made of it, no handler runs.
const LONG = `The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris <img src=x onerror="window.__pwned=1">. It was built as the centrepiece of the 1889 World's Fair. ${PLANTED} Locally nicknamed "La dame de fer", it has become a global cultural icon of France. Visitors reach the top by lift or by the stairs.`;

(HAVE_CHROMIUM ? describe : describe.skip)('claim span on the item page in a real browser', () => {
  let t: TestApp;
  let db: Client;
  let browser: Browser;
  let reviewerKey = '';
  let itemId = '';
  const collection = uniqueName('span');

  beforeAll(async () => {
    t = await createTestApp({ api: true, env: { TRACE_K: '5', DECISION_POLICY: 'judge-only', CONSENSUS_CHECK: 'off' } });
    db = new Client({ connectionString: t.config.databaseUrl });
    await db.connect();
    const r = await fetch(`${t.url}/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: JSON.stringify({ name: uniqueName('rev'), role: 'reviewer' }) });
    reviewerKey = ((await r.json()) as { key: string }).key;
    await t.get(IngestCorpusUseCase).execute({
      collection,
      records: [
        { id: 'long', text: LONG },
        { id: 'p1', text: 'The Eiffel Tower was designed by Marcel Dubois, the French architect behind the famous Paris landmark.' },
        { id: 'p2', text: 'Marcel Dubois designed the Eiffel Tower; the architect Marcel Dubois is credited with its design.' },
        { id: 'c1', text: "Gustave Eiffel's engineering company built the tower between 1887 and 1889." },
      ],
    });
    const { event } = await t.get(SubmitFeedbackUseCase).execute({ collection, query: QUERY, wrongAnswer: WRONG });
    await t.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    itemId = (await db.query(`SELECT r."id" FROM "QuarantineRecord" r JOIN "Document" d ON d."id" = r."documentId" WHERE d."collection" = $1 AND d."externalId" = 'long'`, [collection])).rows[0].id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await db?.end();
    await t?.close();
  });

  it('highlights the planted sentence as the claim span, text as text; x redacts it and the served version shows', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${t.url}/console`);
    await page.getByLabel('API key').fill(reviewerKey);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForSelector('#who .whoami');
    await page.evaluate((id) => { location.hash = `#/item/${id}`; }, itemId);
    await page.waitForSelector('main[data-page="item"] #doc-text');

    const claims = page.locator('#doc-text mark.claim');
    expect(await claims.count()).toBe(1);
    expect(await claims.first().textContent()).toBe(PLANTED);
    expect(await claims.first().getAttribute('data-span')).toBe(`${LONG.indexOf(PLANTED)}-${LONG.indexOf(PLANTED) + PLANTED.length}`);
    // The wrong answer is highlighted inside the span, and nowhere else.
    expect(await page.locator('#doc-text mark.claim mark.hit').allTextContents()).toEqual([WRONG]);
    expect(await page.locator('#doc-text').textContent()).toBe(LONG);
    expect(await page.locator('#doc-text img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('#span-count').textContent()).toContain('1 span');

    await page.keyboard.press('x');
    await page.waitForSelector('#decision-outcome p.ok[data-decision="redact"]');
    expect(await page.locator('#item-state').getAttribute('data-state')).toBe('QUARANTINED');
    // The undo bar offers the redaction back; z undoes it (the version withdrawn), x redacts again (the same version served again).
    expect(await page.locator('#undo-bar').isHidden()).toBe(false);
    expect(await page.locator('#undo-bar').textContent()).toContain('Redacted');
    await page.keyboard.press('z');
    await page.waitForSelector('#decision-outcome p.ok[data-undone="review.redacted"]');
    const undone = (await db.query('SELECT "decision", "redaction" FROM "QuarantineRecord" WHERE "id" = $1', [itemId])).rows[0];
    expect(undone.decision).toBeNull();
    expect(undone.redaction.active).toBe(false);
    await page.reload();
    await page.waitForSelector('#redact:not([disabled])');
    await page.keyboard.press('x');
    await page.waitForSelector('#decision-outcome p.ok[data-decision="redact"]');
    const rec = (await db.query('SELECT "decision", "redaction" FROM "QuarantineRecord" WHERE "id" = $1', [itemId])).rows[0];
    expect(rec.decision).toBe('redact');
    expect(rec.redaction.active).toBe(true);
    // Reloaded, the page shows the served redacted version below the original.
    await page.reload();
    await page.waitForSelector('#redaction[data-served="true"] #redacted-text');
    expect(await page.locator('#redacted-text').textContent()).toBe(LONG.replace(PLANTED, '[…]'));
    expect(await page.locator('#redact').isDisabled()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
