/**
 * docs/vector-stores.md: every code block is either run by a test (`<!-- test: NAME -->`, and some
 * test under test/ takes that name) or marked `<!-- illustrative: … -->`. The pgvector blocks are
 * run by test/pgvector-attach.test.ts; the Qdrant attach blocks are run here as written: the
 * `export` block by bash, its variables through the service's configuration loader and store
 * factory into the attach store, against a local HTTP endpoint that records what it receives and
 * answers as Qdrant would (no Qdrant server can be had here) — its searches must send the page's
 * JSON filter, its quarantine must set the flag that filter excludes; the `curl` block by bash
 * against the same endpoint. Only the placeholders (the Qdrant address and key) are replaced.
 * The illustrative command blocks must name npm scripts, flags and test files that exist.
 *   npx jest test/vector-stores-docs.test.ts
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createVectorStore, documentIdOf } from '@forensics/infra/vector-store';
import { fencedBlocks, namedBlocks } from './support/docs-blocks';
import { ROOT } from './support/test-runtime';

const run = promisify(execFile);
const MARKDOWN = readFileSync(join(ROOT, 'docs/vector-stores.md'), 'utf8');
const BLOCKS = fencedBlocks(MARKDOWN);
const NAMED = namedBlocks(MARKDOWN, 'test');
const body = (name: string): string => {
  const b = NAMED.get(name);
  if (!b) throw new Error(`docs/vector-stores.md has no block marked "test: ${name}"`);
  return b.body;
};

/** Runs a bash block as written, from an empty environment plus `env`; returns the variables it leaves exported. */
async function runBash(script: string, env: Record<string, string> = {}): Promise<{ exported: Record<string, string>; stdout: string }> {
  const { stdout } = await run('bash', ['--noprofile', '--norc', '-euo', 'pipefail', '-c', `${script}\nprintf '\\n--ENV--\\n'; env -0`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000,
  });
  const [out, rawEnv] = stdout.split('\n--ENV--\n');
  const exported: Record<string, string> = {};
  for (const kv of rawEnv!.split('\0').filter(Boolean)) {
    const i = kv.indexOf('=');
    exported[kv.slice(0, i)] = kv.slice(i + 1);
  }
  for (const k of ['PATH', 'PWD', 'SHLVL', '_', ...Object.keys(env)]) delete exported[k];
  return { exported, stdout: out! };
}

interface Recorded { method: string; path: string; query: string; headers: IncomingHttpHeaders; body: any }

/** A local endpoint answering the few Qdrant routes the attach store and the curl block use; records every request. */
async function recordingQdrant(collection: string, vectorName: string, dim: number) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const [path, query = ''] = (req.url ?? '').split('?');
      const rec: Recorded = { method: req.method ?? '', path: path!, query, headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
      requests.push(rec);
      const ok = (result: unknown) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result, status: 'ok', time: 0 })); };
      const base = `/collections/${collection}`;
      if (rec.method === 'GET' && rec.path === base) {
        return ok({ status: 'green', optimizer_status: 'ok', segments_count: 1, payload_schema: {}, config: { params: { vectors: { [vectorName]: { size: dim, distance: 'Cosine' } } }, hnsw_config: {}, optimizer_config: {}, wal_config: {} } });
      }
      if (rec.method === 'GET' && rec.path === `/collections/rf_own_${collection}/exists`) return ok({ exists: false });
      if (rec.method === 'GET' && rec.path === '/collections') return ok({ collections: [] });
      if (rec.method === 'POST' && rec.path === `${base}/points/query/batch`) {
        return ok(rec.body.searches.map(() => ({ points: [{ id: 7, version: 1, score: 0.9, payload: { text: 'an app text' } }] })));
      }
      if (rec.method === 'POST' && rec.path === `${base}/points/payload`) return ok({ operation_id: 1, status: 'completed' });
      if (rec.method === 'PUT' && rec.path === `${base}/index`) return ok({ operation_id: 2, status: 'completed' });
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: { error: `Not found: ${rec.path}` }, time: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('docs/vector-stores.md code blocks', () => {
  it('every block is run by a test or marked illustrative, and every test block is taken by a test under test/', () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    expect(BLOCKS.filter((b) => !b.label || !/^(test: [a-z0-9-]+|illustrative: .+)$/.test(b.label)).map((b) => `line ${b.line}: ${b.label ?? 'no marker'}`)).toEqual([]);
    const tests = readdirSync(join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts')).map((f) => readFileSync(join(ROOT, 'test', f), 'utf8')).join('\n');
    const untaken = [...NAMED.keys()].filter((name) => !new RegExp(`\\w\\('${name}'\\)`).test(tests));
    expect(untaken).toEqual([]); // taken = passed by name to a function, e.g. block('grants'), storeFromDocs('table-env')
  });

  it('illustrative command blocks name npm scripts, bench flags and test paths that exist', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const testFiles = readdirSync(join(ROOT, 'test')).map((f) => `test/${f}`);
    let commands = 0;
    for (const b of BLOCKS.filter((x) => x.label?.startsWith('illustrative:'))) {
      for (const line of b.body.split('\n').map((l) => l.replace(/^#\s*/, '').trim())) {
        const npmRun = /^npm run (?:-s )?([\w:]+)(?: -- (.*))?/.exec(line);
        if (npmRun) {
          commands++;
          expect(scripts[npmRun[1]!]).toBeDefined();
          // A bench script's flags are read with arg('name') or argv.includes('--name') in its source.
          const source = /tsx (\S+)/.exec(scripts[npmRun[1]!]!)?.[1];
          for (const flag of (npmRun[2] ?? '').matchAll(/--([a-z-]+)/g)) {
            expect(source && readFileSync(join(ROOT, source), 'utf8')).toMatch(new RegExp(`arg\\('${flag[1]}'|'--${flag[1]}'`));
          }
        }
        const jest = /npx jest (\S+)/.exec(line);
        if (jest) {
          commands++;
          expect(testFiles.filter((f) => f.startsWith(jest[1]!)).length).toBeGreaterThan(0);
        }
      }
    }
    expect(commands).toBeGreaterThanOrEqual(4);
  });

  describe('Qdrant attach mode, run as written against a recording endpoint', () => {
    let qdrant: Awaited<ReturnType<typeof recordingQdrant>>;
    let config: ReturnType<typeof loadConfig>;
    const KEY = 'docs-test-qdrant-key';

    beforeAll(async () => {
      qdrant = await recordingQdrant('kb_docs', 'dense', 3);
      const { exported } = await runBash(body('qdrant-attach-env'));
      // The page's placeholders: the Qdrant address and its key.
      expect(exported.QDRANT_URL).toBe('http://qdrant:6333');
      config = loadConfig({ ...exported, QDRANT_URL: qdrant.url, QDRANT_API_KEY: KEY }, ROOT);
    });
    afterAll(async () => qdrant?.close());

    it('the export block configures attach mode on the app collection', () => {
      expect(config.vectorStore.attach).toEqual({
        collection: 'kb_docs', serviceCollection: undefined, textKey: 'text', vectorName: 'dense', idType: 'integer', quarantineKey: 'rf_quarantined',
      });
      expect(config.defaultCollection).toBe('kb_docs');
    });

    it("the attach store's searches send exactly the page's filter, and its quarantine sets the flag that filter excludes", async () => {
      // The Qdrant client warns that a key goes over plain http: here it goes to the loopback endpoint.
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      const store = createVectorStore({ dir: '/nonexistent', kind: config.vectorStore.kind, qdrantUrl: config.qdrantUrl, qdrantApiKey: config.qdrantApiKey, attach: config.vectorStore.attach });
      warn.mockRestore();
      try {
        const hits = await store.search(config.defaultCollection, { vector: [1, 0, 0], k: 1 });
        expect(hits.map((h) => h.text)).toEqual(['an app text']);
        const search = qdrant.requests.find((r) => r.path === '/collections/kb_docs/points/query/batch')!;
        expect(search.headers['api-key']).toBe(KEY);
        expect(search.body.searches[0].using).toBe('dense');
        expect(search.body.searches[0].filter).toEqual(JSON.parse(body('qdrant-filter')));

        await store.setQuarantined(config.defaultCollection, [documentIdOf(7, 'integer')], true);
        const flag = qdrant.requests.filter((r) => r.path === '/collections/kb_docs/points/payload').at(-1)!;
        const condition = JSON.parse(body('qdrant-filter')).must_not[0];
        expect(flag.body.payload).toEqual({ [condition.key]: condition.match.value });
      } finally {
        await store.close();
      }
    });

    it('the curl block creates the bool payload index on the flag the filter names', async () => {
      const before = qdrant.requests.length;
      await runBash(body('qdrant-payload-index'), { QDRANT_URL: qdrant.url, QDRANT_API_KEY: KEY });
      const sent = qdrant.requests.slice(before);
      expect(sent.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual(['PUT /collections/kb_docs/index?wait=true']);
      expect(sent[0]!.headers['api-key']).toBe(KEY);
      expect(sent[0]!.headers['content-type']).toBe('application/json');
      expect(sent[0]!.body).toEqual({ field_name: JSON.parse(body('qdrant-filter')).must_not[0].key, field_schema: 'bool' });
    });
  });
});
