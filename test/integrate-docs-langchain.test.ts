/**
 * docs/integrate.md is executed: its TypeScript blocks marked `<!-- run: NAME -->` are written to
 * files and run (tsx, child processes) against a live service — real Postgres, Redis, HTTP API,
 * embedded vector store, worker, offline judge — and their printed results checked. The LangChain
 * block is the example app (examples/langchain-rag/rag-app.ts) verbatim, so the example runs here
 * end to end: ingest → ask → report → trace → webhook → the next ask no longer retrieves the
 * quarantined texts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const run = promisify(execFile);
const PAGE = join(ROOT, 'docs/integrate.md');

/** The page's runnable blocks by name. */
function blocks(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of markdown.matchAll(/<!-- run: ([a-z-]+) -->\n```ts\n([\s\S]*?)```/g)) out.set(m[1], m[2]);
  return out;
}

describe('docs/integrate.md runs as printed', () => {
  let t: TestApp;
  let dir: string;
  const page = blocks(readFileSync(PAGE, 'utf8'));

  /** Runs one block as a program (async: this process serves the API it calls) and parses its last stdout line. */
  const runBlock = async (name: string, collection: string) => {
    const file = join(dir, `${name}.ts`);
    writeFileSync(file, page.get(name)!);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT, timeout: 240_000, env: { ...process.env, FORENSICS_URL: t.url, FORENSICS_API_KEY: TEST_API_KEY, COLLECTION: collection },
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

  it('has the runnable blocks, and the LangChain one is the example app verbatim', () => {
    expect([...page.keys()].sort()).toEqual(['langchain', 'sdk']);
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
    expect(out.webhooks).toContain('quarantine.created');
    // Second ask: the filter dropped them; the store still holds them.
    expect(out.second.served.length).toBeGreaterThan(0);
    expect(out.second.served.filter(planted)).toEqual([]);
  });
});
