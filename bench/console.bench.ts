/**
 * Time to render the review console's queue at scale, measured in a real Chromium: boots the
 * service on a temp data dir (embedded PostgreSQL + Redis), seeds N review items straight into
 * Postgres with scripts/seed-review.ts (documents, events, verdicts with evidence, audit entries),
 * logs in through the console and times, in the browser (performance.now()):
 *   firstPageMs — a fresh load of /console#/queue (sort by risk) until the table is on screen
 *                 (module loading, the who-am-I call, the list query with counts, rendering);
 *   deepPageMs  — a page far down the queue (its keyset cursor taken after `--deep` items) until shown;
 *   filterMs    — text search + suspicion range + sort by age, from the hash change until shown.
 * Each is the median of 3 runs. Ends with one JSON line {"items","firstPageMs","deepPageMs","filterMs",…}.
 *
 *   npm run bench:console                  (100000 items)
 *   npm run bench:console -- --items 20000 --deep 10000
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
    console.log(JSON.stringify({
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
