/**
 * docs/integrate.md is executed: every code block is marked `<!-- run: NAME -->` and taken by a
 * test (checked here); the SDK and LangChain blocks are written to files and run (tsx, child
 * processes) against a live service — real Postgres, Redis, HTTP API, embedded vector store,
 * worker, offline judge — and their printed results checked. The LangChain
 * block is the example app (examples/langchain-rag/rag-app.ts) verbatim, so the example runs here
 * end to end: ingest → ask → report → trace → webhook → the next ask no longer retrieves the
 * quarantined texts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fencedBlocks, namedBlocks } from './support/docs-blocks';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const run = promisify(execFile);
const PAGE = join(ROOT, 'docs/integrate.md');

describe('docs/integrate.md runs as printed', () => {
  let t: TestApp;
  let dir: string;
  const markdown = readFileSync(PAGE, 'utf8');
  const page = new Map([...namedBlocks(markdown)].map(([name, b]) => [name, b.body]));

  /** Runs one block as a program (async: this process serves the API it calls) and parses its last stdout line. */
  const runBlock = async (name: string, collection: string, url = t.url, key = TEST_API_KEY) => {
    const file = join(dir, `${name}.ts`);
    writeFileSync(file, page.get(name)!);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT, timeout: 240_000, env: { ...process.env, FORENSICS_URL: url, FORENSICS_API_KEY: key, COLLECTION: collection },
    });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  };

  beforeAll(async () => {
    // The example's webhook receiver listens on 127.0.0.1.
    t = await createTestApp({ api: true, worker: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '200' } });
    // Inside the repository, so the blocks resolve @forensics/* (tsconfig paths) and node_modules as an app would.
    dir = mkdtempSync(join(ROOT, '.docs-run-'));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('every code block of the page is run by a test, and the LangChain one is the example app verbatim', () => {
    // sdk, langchain: here; llamaindex: integrate-docs-llamaindex.test.ts; widget: integrate-docs-widget.browser.test.ts;
    // python, python-app: libs/python-client/tests/test_docs.py; python-langchain, python-llamaindex: its test_langchain.py and
    // test_llamaindex.py (npm run test:python).
    const blocks = fencedBlocks(markdown);
    expect(blocks.filter((b) => !b.label?.startsWith('run: ')).map((b) => `line ${b.line}: ${b.label ?? 'no marker'}`)).toEqual([]);
    expect(blocks.map((b) => b.label).sort()).toEqual([
      'run: langchain', 'run: llamaindex', 'run: python', 'run: python-app', 'run: python-langchain', 'run: python-llamaindex', 'run: sdk', 'run: widget',
    ]);
    const tests = [
      ...readdirSync(join(ROOT, 'test')).filter((f) => f.includes('integrate-docs')).map((f) => readFileSync(join(ROOT, 'test', f), 'utf8')),
      ...['test_docs.py', 'test_langchain.py', 'test_llamaindex.py'].map((f) => readFileSync(join(ROOT, 'libs/python-client/tests', f), 'utf8')),
    ].join('\n');
    for (const name of page.keys()) expect(tests).toMatch(new RegExp(`(get\\('${name}'\\)|runBlock\\('${name}'|run_block\\("${name}")`));
    expect(page.get('langchain')).toBe(readFileSync(join(ROOT, 'examples/langchain-rag/rag-app.ts'), 'utf8'));
  });

  it('SDK block: ingest, log an answer, token report (and its duplicate), waitForTrace, review decision, serving status, typed error', async () => {
    const collection = uniqueName('docs_sdk');
    const out = await runBlock('sdk', collection);
    expect(out.status).toBe('TRACED');
    expect(out.duplicate).toBe(true);
    expect(out.notFound).toBe(404);
    // The planted text (the first ingested) went to review on the anonymous report, was approved, and is withheld now.
    const planted = (await t.prisma.document.findFirst({ where: { collection, text: { startsWith: 'Who wrote Moby-Dick?' } } }))!;
    expect(out.approved).toContain(planted.id);
    expect(out.withheld).toContain(planted.id);
    const melville = (await t.prisma.document.findFirst({ where: { collection, text: { startsWith: 'Herman Melville (1819' } } }))!;
    expect(out.withheld).not.toContain(melville.id);
  });

  it('LangChain example: the next ask no longer retrieves the quarantined texts', async () => {
    const out = await runBlock('langchain', uniqueName('docs_lc'));
    const planted = (s: string) => s.includes('Charles Dickens');
    // First ask: the app's own store served the planted texts, and the answer was logged with them.
    expect(out.first.answer).toBe('Charles Dickens');
    expect(out.first.feedbackToken).toBe(true);
    expect(out.first.served.filter(planted).length).toBe(2);
    expect(out.trace.status).toBe('TRACED');
    expect(out.trace.quarantined.filter(planted).length).toBe(2);
    // The signed webhook reached the app's receiver (and cleared the filter's cache: its TTL is 60 s).
    expect(out.webhooks).toEqual({ subscription: 'subscribed', received: expect.arrayContaining(['quarantine.created']) });
    // Second ask: the filter dropped them; the store still holds them.
    expect(out.second.served.length).toBeGreaterThan(0);
    expect(out.second.served.filter(planted)).toEqual([]);
  });

  it('LangChain example against a service started as getting-started says: webhooks refused, said, and the texts still gone', async () => {
    // No WEBHOOK_ALLOW_PRIVATE: the loopback receiver is refused, as it is for `npm start` on defaults.
    const plain = await createTestApp({ api: true, worker: true });
    try {
      const out = await runBlock('langchain', uniqueName('docs_lc_plain'), plain.url);
      expect(out.webhooks.subscription).toMatch(/^refused \(400: url must use https/);
      expect(out.trace.status).toBe('TRACED');
      expect(out.second.served.filter((s: string) => s.includes('Charles Dickens'))).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('the example fails loudly: a refused call ends it non-zero with the service\'s message', async () => {
    const err = await runBlock('langchain', uniqueName('docs_lc_bad'), t.url, 'not-a-key').then(() => null, (e: { code?: number; stderr?: string }) => e);
    expect(err?.code).toBe(1);
    expect(err?.stderr).toMatch(/401|API key/i);
  });
});
