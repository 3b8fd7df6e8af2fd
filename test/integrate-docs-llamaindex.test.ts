/**
 * docs/integrate.md's LlamaIndex.TS block is the example app (examples/llamaindex-rag/rag-app.ts)
 * verbatim, and it is run here as printed (tsx, a child process) against a live service — real
 * Postgres, Redis, HTTP API, embedded vector store, worker, offline judge: ingest → ask (query
 * engine with the forensics node postprocessor, a scripted stand-in LLM) → log the answer → report → trace →
 * signed webhook → the next ask no longer retrieves the quarantined texts.
 *   npx jest test/integrate-docs-llamaindex.test.ts
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { namedBlocks } from './support/docs-blocks';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const run = promisify(execFile);
const PAGE = namedBlocks(readFileSync(join(ROOT, 'docs/integrate.md'), 'utf8'));

describe('docs/integrate.md LlamaIndex.TS example runs as printed', () => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    // The example's webhook receiver listens on 127.0.0.1.
    t = await createTestApp({ api: true, worker: true, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '200' } });
    // Inside the repository, so the block resolves @forensics/* (tsconfig paths) and node_modules as an app would.
    dir = mkdtempSync(join(ROOT, '.docs-run-'));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('the page block is the example app verbatim', () => {
    expect(PAGE.get('llamaindex')?.lang).toBe('ts');
    expect(PAGE.get('llamaindex')!.body).toBe(readFileSync(join(ROOT, 'examples/llamaindex-rag/rag-app.ts'), 'utf8'));
  });

  it('ingest → ask → report → trace → webhook → the next ask no longer retrieves the quarantined texts', async () => {
    const collection = uniqueName('docs_li');
    const file = join(dir, 'llamaindex.ts');
    writeFileSync(file, PAGE.get('llamaindex')!.body);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT, timeout: 240_000, env: { ...process.env, FORENSICS_URL: t.url, FORENSICS_API_KEY: TEST_API_KEY, COLLECTION: collection },
    });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    const planted = (s: string) => s.includes('Charles Dickens');

    // First ask: the app's own index served the planted texts, and the answer was logged with them.
    expect(out.first.answer).toBe('Charles Dickens');
    expect(out.first.feedbackToken).toBe(true);
    expect(out.first.served.filter(planted).length).toBe(2);
    // The texts logged as served are the texts the LLM's prompt carried.
    for (const text of out.first.served) expect(out.first.prompt).toContain(text);
    // The service logged exactly those texts as served for that answer.
    const answer = (await t.prisma.answer.findFirst({ where: { collection }, orderBy: { createdAt: 'asc' } }))!;
    const servedDocs = await t.prisma.document.findMany({ where: { id: { in: answer.servedIds as string[] } } });
    expect(servedDocs.map((d) => d.text).sort()).toEqual([...out.first.served].sort());

    expect(out.trace.status).toBe('TRACED');
    expect(out.trace.quarantined.filter(planted).length).toBe(2);
    // The signed webhook reached the app's receiver (and cleared the filter's cache: its TTL is 60 s).
    expect(out.webhooks).toEqual({ subscription: 'subscribed', received: expect.arrayContaining(['quarantine.created']) });
    // Second ask: the postprocessor dropped them before the synthesizer; the app's index still holds them.
    expect(out.second.served.length).toBeGreaterThan(0);
    expect(out.second.served.filter(planted)).toEqual([]);
    expect(out.second.prompt).not.toContain('Charles Dickens');
    for (const text of out.second.served) expect(out.second.prompt).toContain(text);
    const states = await t.prisma.document.findMany({ where: { collection, text: { contains: 'Charles Dickens' } } });
    expect(states.map((d) => d.status)).toEqual(['QUARANTINED', 'QUARANTINED']);
  });
});
