/**
 * Time to render the review console's queue at scale, measured in a real Chromium: boots the
 * service on a temp data dir (embedded PostgreSQL + Redis), seeds N review items straight into
 * Postgres with scripts/seed-review.ts (documents, events, verdicts with evidence, audit entries),
 * logs in through the console and times, in the browser (performance.now()):
 *   firstPageMs — a fresh load of /console#/queue (sort by risk) until the table is on screen
 *                 (module loading, the who-am-I call, the list query with counts, rendering);
 *   deepPageMs  — a page far down the queue (its keyset cursor taken after `--deep` items) until shown;
 *   filterMs    — text search + suspicion range + sort by age, from the hash change until shown.
 * Each is the median of 3 runs. Then a keyboard-only review pass (issue 35): from the first open item
 * of the NEEDS_REVIEW queue, `--pass` times (default 50): press 1 (a reason label), a (approve), wait
 * for the decision's outcome, press j (next item I can decide) and time the key press (a capturing
 * keydown listener in the page) until the next item is on screen (the frame after it rendered):
 *   nextMs   — median / p90 of j → next item on screen;  decideMs — median of a → outcome shown.
 * Ends with one JSON line {"items","firstPageMs","deepPageMs","filterMs",…,"pass":{…}}.
 *
 *   npm run bench:console                  (100000 items)
 *   npm run bench:console -- --items 20000 --deep 10000 --pass 50
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { seedReview } from '../scripts/seed-review';
import { arg, bootService, client, launchChromium, login } from '../scripts/console-screenshots';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Sets the hash and waits in the page until the queue re-rendered; returns the elapsed ms. The page
 * code is a string: tsx would wrap named functions in a helper that does not exist in the page.
 */
const TIME_HASH = `(h) => new Promise((resolve, reject) => {
  const main = document.getElementById('main');
  const before = main.dataset.loaded;
  const t0 = performance.now();
  location.hash = h;
  const tick = () => {
    if (main.dataset.page === 'queue' && main.dataset.loaded !== before && main.querySelector('table.queue tbody tr')) resolve(performance.now() - t0);
    else if (performance.now() - t0 > 60000) reject(new Error('no queue for ' + h));
    else requestAnimationFrame(tick);
  };
  tick();
})`;
async function timeHash(page: Page, hash: string): Promise<number> {
  return page.evaluate(`(${TIME_HASH})(${JSON.stringify(hash)})`) as Promise<number>;
}

/** In the page: resolves with ms from the last `key` keydown until `done()` holds, taken in the next animation frame. */
const TIME_KEY = `(key, cond) => new Promise((resolve, reject) => {
  const t0 = window.__keyAt && window.__keyAt[key];
  if (t0 === undefined) { reject(new Error('no keydown seen for ' + key)); return; }
  const done = new Function('return (' + cond + ')');
  const tick = () => {
    if (done()) resolve(performance.now() - t0);
    else if (performance.now() - t0 > 30000) reject(new Error('timeout after ' + key));
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`;
const INSTALL_KEY_CLOCK = `(() => { if (window.__keyAt) return; window.__keyAt = {}; window.addEventListener('keydown', (e) => { window.__keyAt[e.key] = performance.now(); }, true); })()`;

/** The keyboard-only pass: n items decided with a reason label, j to the next; per-step timings. */
async function keyboardPass(page: Page, url: string, n: number): Promise<{ decided: number; next: number[]; decide: number[] }> {
  await page.goto(`${url}/console#/queue?state=NEEDS_REVIEW&decided=false&sort=risk`);
  await page.waitForSelector('main[data-page="queue"] table.queue tbody tr');
  await page.evaluate(INSTALL_KEY_CLOCK);
  await page.keyboard.press('Enter');
  await page.waitForSelector('main[data-page="item"] #reasons');
  const next: number[] = [];
  const decide: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = await page.evaluate('location.hash');
    await page.keyboard.press('1');
    await page.keyboard.press('a');
    decide.push(await page.evaluate(`(${TIME_KEY})('a', ${JSON.stringify("document.querySelector('#decision-outcome p.ok') !== null")})`) as number);
    if (i === n - 1) break;
    const before = await page.evaluate("document.getElementById('main').dataset.loaded");
    await page.keyboard.press('j');
    const cond = `location.hash !== ${JSON.stringify(id)} && document.getElementById('main').dataset.page === 'item' && document.getElementById('main').dataset.loaded !== ${JSON.stringify(before)} && document.querySelector('#item-doc') !== null`;
    next.push(await page.evaluate(`(${TIME_KEY})('j', ${JSON.stringify(cond)})`) as number);
  }
  return { decided: decide.length, next, decide };
}

async function main(): Promise<void> {
  const say = (m: string) => process.stderr.write(`${m}\n`);
  const items = Number(arg('items') ?? '100000');
  const deep = Number(arg('deep') ?? String(Math.floor(items / 2)));
  const dataDir = mkdtempSync(join(tmpdir(), 'console-bench-'));
  const svc = await bootService(dataDir, say);
  let browser: Browser | null = null;
  try {
    const collection = 'bench-console';
    const db = new Client({ connectionString: svc.databaseUrl });
    await db.connect();
    const t0 = Date.now();
    say(`seeding ${items} review items …`);
    await seedReview(db, { items, collection, onProgress: (n) => process.stderr.write(`\r  ${n}/${items}`) });
    await db.query('ANALYZE');
    await db.end();
    say(`\nseeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    // The cursor of a deep page (keyset: walk the pages through the API, 200 at a time).
    const http = client(svc.url, svc.apiKey);
    let cursor: string | null = null;
    let walked = 0;
    while (walked < deep) {
      const page: { items: unknown[]; nextCursor: string | null } = await http('GET', `/v1/review/items?sort=risk&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`) as never;
      walked += page.items.length;
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    const total = ((await http('GET', '/v1/review/items?limit=1')) as { total: number }).total;

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await login(page, svc.url, svc.apiKey);
    await page.waitForSelector('main[data-page="queue"] table.queue');

    const first: number[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto('about:blank');
      await page.goto(`${svc.url}/console#/queue?sort=risk`);
      await page.waitForSelector('main[data-page="queue"] table.queue tbody tr');
      first.push(Number(await page.evaluate("document.getElementById('main').dataset.loaded")));
    }
    const deepRuns: number[] = [];
    const filterRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      await timeHash(page, `#/queue?sort=risk&n=${i}`);
      deepRuns.push(await timeHash(page, `#/queue?sort=risk&cursor=${encodeURIComponent(cursor ?? '')}`));
      filterRuns.push(await timeHash(page, `#/queue?q=${['Eiffel', 'Everest', 'Jupiter'][i]}&minSuspicion=0.5&maxSuspicion=0.95&sort=age`));
    }
    const passN = Number(arg('pass') ?? '50');
    say(`keyboard pass: deciding ${passN} items …`);
    const pass = await keyboardPass(page, svc.url, passN);
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
    const decidedInDb = await (async () => {
      const c = new Client({ connectionString: svc.databaseUrl });
      await c.connect();
      try { return Number((await c.query(`SELECT count(*) FROM "QuarantineRecord" WHERE "decision" = 'approve' AND 'planted-claim' = ANY("reasons")`)).rows[0].count); } finally { await c.end(); }
    })();
    console.log(JSON.stringify({
      pass: {
        decided: pass.decided, decidedWithReasonInDb: decidedInDb, nextMedianMs: Math.round(median(pass.next)), nextP90Ms: Math.round(p90(pass.next)), nextMaxMs: Math.round(Math.max(...pass.next)),
        decideMedianMs: Math.round(median(pass.decide)), transitions: pass.next.length,
      },
      items, firstPageMs: Math.round(median(first)), deepPageMs: Math.round(median(deepRuns)), filterMs: Math.round(median(filterRuns)),
      deepAfter: walked, openItems: total, runs: { first: first.map(Math.round), deep: deepRuns.map(Math.round), filter: filterRuns.map(Math.round) },
    }));
  } finally {
    await browser?.close();
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => { console.error(e instanceof Error ? e.stack ?? e.message : String(e), (e as { cause?: unknown })?.cause ?? ""); process.exit(1); });
