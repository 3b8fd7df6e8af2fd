/**
 * Screenshots of the review console, taken from the real page: boots the service (API + worker in
 * one process, embedded PostgreSQL + Redis) on a fresh temp data dir, ingests six questions of the
 * shipped demo corpus (PoisonedRAG NQ: poisoned + clean passages) through the HTTP API, reports one
 * wrong answer per question (feedback by token, as the widget does), waits for the tracebacks (the
 * offline judge unless JUDGE says otherwise), then opens /console in Chromium and writes
 *   docs/img/console-undo.png    an item just approved with a reason label (1), the undo bar showing
 *   docs/img/console-queue.png   the queue, with the progress line (decided by me today, left, the team)
 *   docs/img/console-item.png    the item page of the riskiest text, a reason label toggled
 *   docs/img/console-collections.png  the collections page, an admin's first click on "vouch" (the confirmation shown; nothing set)
 *
 *   npm run screenshots                         (fresh temp data dir, seeded as above)
 *   npm run screenshots -- --data-dir .data/demo  (the demo's data, kept with npm run demo -- --keep-data; nothing seeded)
 *   options: --questions N (default 6), --out DIR (default docs/img)
 * Needs /usr/bin/chromium.
 */
import 'reflect-metadata';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { chromium, type Browser, type Page } from 'playwright-core';
import { InfrastructureModule, loadConfig, startEmbeddedPostgres, startEmbeddedRedis, type EmbeddedService } from '@forensics/infra';
import { createApiApp } from '../apps/api/src/create-api-app';
import { WorkerModule } from '../apps/worker/src/worker.module';

export const ROOT = resolve(__dirname, '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export interface Service { url: string; apiKey: string; databaseUrl: string; dataDir: string; close(): Promise<void> }

/** The service as `npm start` runs it (API + worker, embedded services of `dataDir`), on a free loopback port, with a bootstrap admin key. */
export async function bootService(dataDir: string, say: (m: string) => void): Promise<Service> {
  mkdirSync(dataDir, { recursive: true });
  const services: EmbeddedService[] = [];
  const base = loadConfig({ ...process.env, DATA_DIR: dataDir });
  const databaseUrl = base.databaseUrl ?? (await startEmbeddedPostgres(dataDir, say).then((s) => { services.push(s); return s.url; }));
  const redisUrl = base.redisUrl ?? (await startEmbeddedRedis(dataDir, say).then((s) => { services.push(s); return s.url; }));
  const apiKey = `console-${randomBytes(16).toString('hex')}`;
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, API_KEYS: apiKey });
  const infrastructure = InfrastructureModule.forRoot(config);
  const app: NestExpressApplication = await createApiApp(config, { logger: process.env.CONSOLE_LOGS === '1', infrastructure, with: [WorkerModule.forRoot(config, infrastructure)] });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    url, apiKey, databaseUrl: String(databaseUrl), dataDir,
    close: async () => {
      await app.close().catch(() => {});
      for (const s of services.reverse()) await s.stop().catch(() => {});
    },
  };
}

export function client(url: string, apiKey: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const all = Object.fromEntries(Object.entries({ 'content-type': 'application/json', 'x-api-key': apiKey, ...headers }).filter(([, v]) => v !== ''));
    const send = () => fetch(url + path, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
    // A GET is retried once when the connection was reset (a kept-alive socket the server closed).
    const res = await send().catch((e) => (method === 'GET' ? new Promise((r) => setTimeout(r, 200)).then(send) : Promise.reject(e)));
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json).slice(0, 500)}`);
    return json;
  };
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium, or set CHROMIUM_PATH)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

/** Logs the page in through the console's login form. */
export async function login(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForSelector('#who .whoami');
}

interface DemoQuestion { id: string; question: string; correct_answer: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] }

/** Six demo questions through the real API: ingest, answer, report the wrong answer, wait for the traces. */
async function seedFromDemo(url: string, apiKey: string, n: number, say: (m: string) => void): Promise<void> {
  const http = client(url, apiKey);
  const questions: DemoQuestion[] = readFileSync(join(ROOT, 'demo', 'poisonedrag-nq-20.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).slice(0, n);
  // PoisonedRAG-B: P = S ⊕ I, S = the targeted question (as the demo injects them).
  // The app's ids say nothing of which text is planted (the console shows them first, issue 54): numbered in an order
  // that interleaves planted and clean texts. The demo data has no metadata; the screenshots give each text a made-up
  // `source` (planted texts "user upload", clean ones "wikipedia"), to show where the console puts the app's metadata.
  const docs = questions.flatMap((q) => {
    const texts = [
      ...q.poisoned_texts.map((text) => ({ text: `${q.question}. ${text}`, metadata: { source: 'user upload', question: q.id } })),
      ...q.clean_texts.map((text) => ({ text, metadata: { source: 'wikipedia', question: q.id } })),
    ];
    const order = texts.map((_, i) => i).sort((a, b) => ((a * 7 + 3) % texts.length) - ((b * 7 + 3) % texts.length));
    return order.map((i, k) => ({ id: `${q.id}-doc-${String(k + 1).padStart(2, '0')}`, ...texts[i] }));
  });
  say(`ingesting ${docs.length} texts of ${n} demo questions …`);
  for (let i = 0; i < docs.length; i += 50) await http('POST', '/v1/collections/demo/documents', { documents: docs.slice(i, i + 50) });
  const ids: string[] = [];
  for (const q of questions) {
    const a = await http('POST', '/v1/rag/answer', { collection: 'demo', query: q.question, k: 5 });
    const r = await http('POST', '/v1/feedback', { wrongAnswer: q.incorrect_answer, correctAnswer: q.correct_answer, reporter: 'demo-user' }, { authorization: `FeedbackToken ${String(a.feedbackToken)}`, 'x-api-key': '' });
    ids.push(String(r.id));
  }
  say('waiting for the tracebacks …');
  const deadline = Date.now() + 10 * 60_000;
  for (const id of ids) {
    for (;;) {
      const r = await http('GET', `/v1/feedback/${id}`);
      if (['TRACED', 'BOUNDED', 'FAILED'].includes(String(r.status))) break;
      if (Date.now() > deadline) throw new Error(`feedback ${id} not traced within 10 minutes`);
      await new Promise((res) => setTimeout(res, 500));
    }
  }
}

async function main(): Promise<void> {
  const say = (m: string) => process.stderr.write(`${m}\n`);
  const given = arg('data-dir');
  const dataDir = given ? resolve(ROOT, given) : mkdtempSync(join(tmpdir(), 'console-shots-'));
  const out = resolve(ROOT, arg('out') ?? join('docs', 'img'));
  mkdirSync(out, { recursive: true });
  const svc = await bootService(dataDir, say);
  let browser: Browser | null = null;
  try {
    say(`service up at ${svc.url}`);
    if (!given) await seedFromDemo(svc.url, svc.apiKey, Number(arg('questions') ?? '6'), say);
    const http = client(svc.url, svc.apiKey);
    const list = await http('GET', '/v1/review/items?sort=risk&limit=1');
    const top = (list.items as { id: string }[])[0];
    if (!top) throw new Error('the queue is empty: nothing to show');
    const second = ((await http('GET', '/v1/review/items?sort=risk&limit=2&decided=false')).items as { id: string }[]).find((i) => i.id !== top.id);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await login(page, svc.url, svc.apiKey);
    if (second) {
      // One decision by keyboard: reason 1, approve; the undo bar shows for a few seconds.
      await page.goto(`${svc.url}/console#/item/${second.id}`);
      await page.waitForSelector('main[data-page="item"] #reasons');
      await page.keyboard.press('1');
      await page.keyboard.press('a');
      await page.waitForSelector('#undo-bar:not([hidden])');
      await page.screenshot({ path: join(out, 'console-undo.png') });
    }
    await page.goto(`${svc.url}/console#/queue?sort=risk`);
    await page.waitForSelector('main[data-page="queue"] table.queue');
    await page.waitForSelector('#progress[data-left]');
    await page.screenshot({ path: join(out, 'console-queue.png') });
    await page.goto(`${svc.url}/console#/item/${top.id}`);
    await page.waitForSelector('main[data-page="item"] #evidence');
    await page.waitForSelector('#progress[data-left]');
    if (await page.locator('#reasons').count()) await page.keyboard.press('1');
    await page.setViewportSize({ width: 1440, height: 1500 });
    await page.screenshot({ path: join(out, 'console-item.png') });
    // Leave the item (releases the claim) before closing.
    await page.goto(`${svc.url}/console#/queue`);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${svc.url}/console#/collections`);
    await page.waitForSelector('main[data-page="collections"] #collections button.vouch');
    await page.locator('#collections button.vouch').first().click();
    await page.evaluate(() => document.getElementById('toast')?.classList.remove('show')); // the approve's toast from above
    await page.waitForTimeout(400); // its fade-out
    await page.screenshot({ path: join(out, 'console-collections.png') });
    console.log(JSON.stringify({ undo: second ? join(out, 'console-undo.png') : null, queue: join(out, 'console-queue.png'), item: join(out, 'console-item.png'), collections: join(out, 'console-collections.png'), itemId: top.id, dataDir: given ? dataDir : 'temp' }));
  } finally {
    await browser?.close();
    await svc.close();
    if (!given) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(() => process.exit(0), (e) => { console.error(e instanceof Error ? e.stack ?? e.message : String(e), (e as { cause?: unknown })?.cause ?? ""); process.exit(1); });
}
