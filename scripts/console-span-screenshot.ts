/**
 * Screenshot of an item with its claim span (issue 35), taken from the real page: boots the service
 * like scripts/console-screenshots.ts (API + worker, embedded PostgreSQL + Redis, fresh temp data dir),
 * builds one long document from the shipped demo corpus (PoisonedRAG NQ): a question's clean passages
 * joined, with one of its poisoned passages put in the middle as its own paragraph (the "inserted
 * sentence" case of apps/eval/src/span-localisation.ts), ingests it with the question's other poisoned
 * and clean passages through the HTTP API, reports the wrong answer, waits for the traceback (offline
 * judge), then opens the long document's item in Chromium and writes
 *   docs/img/console-item-span.png   the item page scrolled to the text: the claim span highlighted
 *
 *   npm run screenshots:span [-- --question N] [--out DIR]
 * The question is the first of the demo file (from --question, default 0) with at least three clean
 * passages whose long document the traceback puts in the queue. Needs /usr/bin/chromium.
 */
import 'reflect-metadata';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { arg, bootService, client, launchChromium, login, ROOT } from './console-screenshots';

interface DemoQuestion { id: string; question: string; correct_answer: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] }

async function main(): Promise<void> {
  const say = (m: string) => process.stderr.write(`${m}\n`);
  const out = resolve(ROOT, arg('out') ?? join('docs', 'img'));
  mkdirSync(out, { recursive: true });
  const questions: DemoQuestion[] = readFileSync(join(ROOT, 'demo', 'poisonedrag-nq-20.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const dataDir = mkdtempSync(join(tmpdir(), 'console-span-'));
  const svc = await bootService(dataDir, say);
  let browser: Browser | null = null;
  try {
    const http = client(svc.url, svc.apiKey);
    for (let n = Number(arg('question') ?? '0'); n < questions.length; n++) {
      const q = questions[n];
      if (q.clean_texts.length < 3) continue;
      const collection = `span-${n}`;
      const clean = q.clean_texts.slice(0, 3);
      const doc = [clean[0], clean[1], q.poisoned_texts[0], clean[2]].join('\n\n');
      const docs = [
        { id: `${q.id}-long`, text: doc },
        ...q.poisoned_texts.slice(1).map((text, i) => ({ id: `${q.id}-poison-${i + 1}`, text: `${q.question}. ${text}` })),
        ...q.clean_texts.slice(3).map((text, i) => ({ id: `${q.id}-clean-${i + 3}`, text })),
      ];
      say(`question ${n}: ingesting ${docs.length} texts …`);
      await http('POST', `/v1/collections/${collection}/documents`, { documents: docs });
      const a = await http('POST', '/v1/rag/answer', { collection, query: q.question, k: 5 });
      const r = await http('POST', '/v1/feedback', { wrongAnswer: q.incorrect_answer, correctAnswer: q.correct_answer, reporter: 'demo-user' }, { authorization: `FeedbackToken ${String(a.feedbackToken)}`, 'x-api-key': '' });
      for (const deadline = Date.now() + 5 * 60_000; ;) {
        const f = await http('GET', `/v1/feedback/${String(r.id)}`);
        if (['TRACED', 'BOUNDED', 'FAILED'].includes(String(f.status))) break;
        if (Date.now() > deadline) throw new Error(`feedback ${String(r.id)} not traced within 5 minutes`);
        await new Promise((res) => setTimeout(res, 500));
      }
      const items = (await http('GET', `/v1/review/items?collection=${collection}&limit=50`)).items as { id: string; textPreview: string }[];
      const item = items.find((i) => doc.startsWith(i.textPreview));
      if (!item) { say(`question ${n}: the long document is not in the queue; next question`); continue; }
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      await login(page, svc.url, svc.apiKey);
      await page.goto(`${svc.url}/console#/item/${item.id}`);
      await page.waitForSelector('main[data-page="item"] #doc-text');
      // The text section at the top, below the sticky header.
      await page.locator('h2#h-text').evaluate((e) => { e.scrollIntoView({ block: 'start' }); window.scrollBy(0, -56); });
      await page.screenshot({ path: join(out, 'console-item-span.png') });
      await page.goto(`${svc.url}/console#/queue`);
      console.log(JSON.stringify({ screenshot: join(out, 'console-item-span.png'), question: n, itemId: item.id }));
      return;
    }
    throw new Error('no demo question put its long document in the queue');
  } finally {
    await browser?.close();
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => { console.error(e instanceof Error ? e.stack ?? e.message : String(e)); process.exit(1); });
