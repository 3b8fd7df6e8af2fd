/**
 * Attach mode without a Qdrant server: the id/text mapping as pure functions, and the REQUEST BODIES
 * the adapter sends through @qdrant/js-client-rest, recorded by a small local HTTP server that
 * answers with Qdrant-shaped JSON. This checks what we ask Qdrant (vector name, payload keys, the
 * must_not filter, set_payload of the flag only, no writes to the app's points) — not Qdrant itself:
 * the real server is exercised by test/vector-store.contract.test.ts when QDRANT_URL is set.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../config/app-config';
import { documentIdOf, pointIdOf, resolveAttachConfig, textOf } from '../qdrant-attach.mapping';
import { QdrantAttachedVectorStore } from '../qdrant-attached-vector-store.adapter';

interface Recorded {
  method: string;
  path: string;
  query: string;
  body: any;
}

/** Answers by route; everything it receives is recorded. */
function fakeQdrant(routes: (req: Recorded) => unknown): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', path: (req.url ?? '').split('?')[0], query: (req.url ?? '').split('?')[1] ?? '', body: raw ? JSON.parse(raw) : undefined };
      requests.push(rec);
      const result = routes(rec);
      res.setHeader('content-type', 'application/json');
      if (result === undefined) {
        res.statusCode = 404;
        res.end(JSON.stringify({ status: { error: `Not found: ${rec.path}` }, time: 0 }));
        return;
      }
      res.end(JSON.stringify({ result, status: 'ok', time: 0 }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

const collectionInfo = (vectors: unknown) => ({
  status: 'green',
  optimizer_status: 'ok',
  segments_count: 1,
  config: { params: { vectors }, hnsw_config: {}, optimizer_config: {}, wal_config: {} },
  payload_schema: {},
});

describe('attach mapping (pure)', () => {
  it('integer point ids map to reversible, recognisable UUIDs', () => {
    for (const n of [0, 1, 42, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER]) {
      const id = documentIdOf(n, 'integer');
      expect(id).toMatch(/^00000000-0000-8[0-9a-f]{3}-8[0-9a-f]{3}-00[0-9a-f]{10}$/);
      expect(pointIdOf(id, 'integer')).toBe(n);
      expect(documentIdOf(String(n), 'integer')).toBe(id); // ids may arrive as strings
    }
    expect(documentIdOf(0x0123456789abcd, 'integer')).toBe('00000000-0000-8000-8123-00456789abcd');
    expect(new Set([1, 2, 3, 256, 4096].map((n) => documentIdOf(n, 'integer'))).size).toBe(5);
  });

  it('refuses ids that are not what the id type says', () => {
    expect(() => documentIdOf(-1, 'integer')).toThrow(/unsigned integer/);
    expect(() => documentIdOf(1.5, 'integer')).toThrow(/unsigned integer/);
    expect(() => documentIdOf(2 ** 53, 'integer')).toThrow(/2\^53/);
    expect(() => documentIdOf('0f8fad5b-d9cb-469f-a165-70867728950e', 'integer')).toThrow(/unsigned integer/);
    expect(() => documentIdOf(7, 'uuid')).toThrow(/not a UUID/);
    // a UUID that is not a mapped integer names no point of an integer-id collection (e.g. our own proxies)
    expect(pointIdOf('0f8fad5b-d9cb-469f-a165-70867728950e', 'integer')).toBeNull();
    expect(pointIdOf('not-a-uuid', 'uuid')).toBeNull();
  });

  it('uuid point ids are used as they are (lower-case)', () => {
    expect(documentIdOf('0F8FAD5B-D9CB-469F-A165-70867728950E', 'uuid')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(pointIdOf('0F8FAD5B-D9CB-469F-A165-70867728950E', 'uuid')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('text from a top-level or dotted payload key', () => {
    expect(textOf({ text: 'a' }, 'text')).toBe('a');
    expect(textOf({ doc: { body: 'b' } }, 'doc.body')).toBe('b');
    expect(textOf({ doc: 'x' }, 'doc.body')).toBe('');
    expect(textOf({ text: 3 }, 'text')).toBe('');
    expect(textOf(null, 'text')).toBe('');
  });

  it('configuration defaults and refusals', () => {
    expect(resolveAttachConfig({ collection: 'docs' })).toEqual({ collection: 'docs', textKey: 'text', idType: 'uuid', quarantineKey: 'rf_quarantined', vectorName: undefined });
    expect(() => resolveAttachConfig({ collection: ' ' })).toThrow(/QDRANT_ATTACH_COLLECTION/);
    expect(() => resolveAttachConfig({ collection: 'docs', quarantineKey: 'a.b' })).toThrow(/top-level/);
    expect(() => resolveAttachConfig({ collection: 'docs', idType: 'int' as never })).toThrow(/uuid or integer/);
  });
});

describe('QdrantAttachedVectorStore request bodies (recorded by a fake HTTP endpoint)', () => {
  const DIM = 4;
  let fake: Awaited<ReturnType<typeof fakeQdrant>>;
  let named = true;

  beforeEach(async () => {
    named = true;
    fake = await fakeQdrant((req) => {
      if (req.method === 'GET' && req.path === '/collections/docs') {
        return collectionInfo(named ? { 'text-dense': { size: DIM, distance: 'Cosine' }, sparse_like: { size: 2, distance: 'Dot' } } : { size: DIM, distance: 'Cosine' });
      }
      if (req.method === 'GET' && req.path === '/collections/rf_own_docs/exists') return { exists: false };
      if (req.method === 'GET' && req.path === '/collections') return { collections: [] };
      if (req.method === 'POST' && req.path === '/collections/docs/points/query/batch') {
        return req.body.searches.map(() => ({
          points: [
            { id: 7, version: 1, score: 0.9, payload: { content: 'seven', rf_quarantined: false } },
            { id: 3, version: 1, score: 0.9, payload: { content: 'three' } },
            { id: 9, version: 1, score: 0.5, payload: {} },
          ],
        }));
      }
      if (req.method === 'POST' && req.path === '/collections/docs/points') {
        return req.body.ids.includes(7)
          ? [{ id: 7, payload: { content: 'seven', rf_quarantined: true }, vector: { 'text-dense': [1, 0, 0, 0] } }]
          : [];
      }
      if (req.method === 'POST' && req.path === '/collections/docs/points/payload') return { operation_id: 1, status: 'completed' };
      if (req.method === 'POST' && req.path === '/collections/docs/points/count') return { count: 1234 };
      return undefined;
    });
  });
  afterEach(async () => fake.close());

  const store = (over: Partial<ConstructorParameters<typeof QdrantAttachedVectorStore>[0]['attach']> = {}) =>
    new QdrantAttachedVectorStore({
      url: fake.url,
      tieSlack: 2,
      attach: { collection: 'docs', textKey: 'content', vectorName: 'text-dense', idType: 'integer', ...over },
    });
  const appWrites = () =>
    fake.requests.filter((r) => r.path.startsWith('/collections/docs') && (r.method === 'PUT' || r.method === 'DELETE' || /\/points\/(delete|vectors|payload\/(clear|delete))|overwrite/.test(r.path)));

  it('searches the named vector with the quarantine must_not and excluded point ids; maps ids, text and payload', async () => {
    const s = store();
    const hits = await s.search('docs', { vector: [1, 0, 0, 0], k: 2, excludeIds: [documentIdOf(42, 'integer'), '0f8fad5b-d9cb-469f-a165-70867728950e'] });
    const q = fake.requests.find((r) => r.path === '/collections/docs/points/query/batch');
    expect(q?.body.searches).toEqual([
      {
        query: [1, 0, 0, 0],
        using: 'text-dense',
        limit: 4,
        filter: { must_not: [{ key: 'rf_quarantined', match: { value: true } }, { has_id: [42] }] },
        with_payload: { include: ['content', 'rf_quarantined'] },
        with_vector: false,
      },
    ]);
    // equal scores ordered by our id; ids mapped; text from `content`; externalId = the app's point id
    expect(hits).toEqual([
      { id: documentIdOf(3, 'integer'), score: 0.9, text: 'three', payload: { externalId: '3', source: 'qdrant-attached' } },
      { id: documentIdOf(7, 'integer'), score: 0.9, text: 'seven', payload: { externalId: '7', source: 'qdrant-attached' } },
    ]);
    await s.close();
  });

  it('includeQuarantined drops the flag condition; the default vector sends no `using`', async () => {
    named = false;
    const s = store({ vectorName: undefined, idType: 'integer' });
    await s.search('docs', { vector: [0, 1, 0, 0], k: 1, includeQuarantined: true });
    const body = fake.requests.find((r) => r.path === '/collections/docs/points/query/batch')?.body.searches[0];
    expect(body).not.toHaveProperty('using');
    expect(body.filter).toBeUndefined();
    await s.close();
  });

  it('quarantine is set_payload of the flag key only, by id filter; nothing else is written to the app collection', async () => {
    const s = store();
    await s.setQuarantined('docs', [documentIdOf(7, 'integer'), '0f8fad5b-d9cb-469f-a165-70867728950e'], true);
    await s.setQuarantined('docs', [documentIdOf(7, 'integer')], false);
    const payloads = fake.requests.filter((r) => r.path === '/collections/docs/points/payload');
    expect(payloads.map((r) => r.body)).toEqual([
      { payload: { rf_quarantined: true }, filter: { must: [{ has_id: [7] }] } },
      { payload: { rf_quarantined: false }, filter: { must: [{ has_id: [7] }] } },
    ]);
    expect(payloads.map((r) => r.query)).toEqual(['wait=true', 'wait=true']);
    // delete withdraws an app point with the same flag (never a delete of the app's point)
    await s.delete('docs', [documentIdOf(9, 'integer')]);
    expect(fake.requests.filter((r) => r.path === '/collections/docs/points/payload').at(-1)?.body).toEqual({
      payload: { rf_quarantined: true },
      filter: { must: [{ has_id: [9] }] },
    });
    // upserts go to our own collection, even for an id that names an app point
    await expect(s.upsert('docs', [{ id: documentIdOf(7, 'integer'), vector: [1, 0, 0, 0], text: 'x' }])).rejects.toThrow(/rf_own_docs/);
    expect(fake.requests.filter((r) => r.path.startsWith('/collections/rf_own_docs')).length).toBeGreaterThan(0);
    expect(appWrites()).toEqual([]);
    await s.close();
  });

  it('fetch retrieves the named vector and the flag; count adds our own records (none yet)', async () => {
    const s = store();
    const got = await s.fetch('docs', [documentIdOf(7, 'integer'), documentIdOf(8, 'integer')]);
    const r = fake.requests.find((x) => x.path === '/collections/docs/points');
    expect(r?.body).toEqual({ ids: [7, 8], with_payload: { include: ['content', 'rf_quarantined'] }, with_vector: ['text-dense'] });
    expect(got).toEqual([
      { id: documentIdOf(7, 'integer'), vector: Float32Array.from([1, 0, 0, 0]), text: 'seven', payload: { externalId: '7', source: 'qdrant-attached' }, quarantined: true },
    ]);
    expect(await s.count('docs')).toBe(1234);
    await s.close();
  });

  it('uuid ids pass through; a wrong vector name or dimension is a clear error', async () => {
    const uuidStore = store({ idType: 'uuid' });
    // the fake answers integer ids: in uuid mode that is a configuration error, said clearly
    await expect(uuidStore.search('docs', { vector: [1, 0, 0, 0], k: 1, excludeIds: ['0F8FAD5B-D9CB-469F-A165-70867728950E'] })).rejects.toThrow(
      /not a UUID \(QDRANT_ATTACH_ID_TYPE=uuid\)/,
    );
    const body = fake.requests.find((r) => r.path === '/collections/docs/points/query/batch')?.body.searches[0];
    expect(body.filter.must_not[1]).toEqual({ has_id: ['0f8fad5b-d9cb-469f-a165-70867728950e'] });
    await uuidStore.close();

    const wrongName = store({ vectorName: 'nope' });
    await expect(wrongName.search('docs', { vector: [1, 0, 0, 0], k: 1 })).rejects.toThrow(/no vector named "nope" \(it has: text-dense, sparse_like\)/);
    await wrongName.close();

    const unnamed = store({ vectorName: undefined });
    await expect(unnamed.search('docs', { vector: [1, 0, 0, 0], k: 1 })).rejects.toThrow(/uses named vectors .*QDRANT_ATTACH_VECTOR/);
    await unnamed.close();

    const s = store();
    await expect(s.ensureCollection('docs', 8)).rejects.toThrow(/dimension 4 \(vector "text-dense"\), requested 8/);
    await s.close();
  });
});

describe('attach mode configuration (loadConfig)', () => {
  it('reads the QDRANT_ATTACH_* variables with their defaults', () => {
    const cfg = loadConfig({ QDRANT_URL: 'http://q:6333', QDRANT_ATTACH_COLLECTION: 'kb_docs', QDRANT_ATTACH_ID_TYPE: 'integer', QDRANT_ATTACH_VECTOR: 'dense' });
    expect(cfg.vectorStore.attach).toEqual({
      collection: 'kb_docs', serviceCollection: undefined, textKey: 'text', vectorName: 'dense', idType: 'integer', quarantineKey: 'rf_quarantined',
    });
    expect(loadConfig({}).vectorStore).toEqual({
      kind: 'auto', indexMinRows: 50_000, annNprobes: 128, annRefine: 0, annIndex: 'ivf_rq', annEf: 100, attach: undefined,
      pgvector: { url: undefined, schema: 'rf_vectors', efSearch: 200, hnswM: 16, hnswEfConstruction: 64, attach: undefined },
    });
  });

  it('refuses attach mode without QDRANT_URL, a bad id type, and an unusable service name', () => {
    const problems = (env: NodeJS.ProcessEnv): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).problems;
      }
    };
    expect(problems({ QDRANT_ATTACH_COLLECTION: 'kb' }).join('\n')).toMatch(/QDRANT_ATTACH_COLLECTION needs QDRANT_URL/);
    expect(problems({ QDRANT_URL: 'http://q', QDRANT_ATTACH_COLLECTION: 'kb', QDRANT_ATTACH_ID_TYPE: 'int' }).join('\n')).toMatch(/QDRANT_ATTACH_ID_TYPE must be one of uuid, integer/);
    expect(problems({ QDRANT_URL: 'http://q', QDRANT_ATTACH_COLLECTION: 'my.docs' }).join('\n')).toMatch(/set QDRANT_ATTACH_AS/);
    expect(problems({ QDRANT_URL: 'http://q', QDRANT_ATTACH_COLLECTION: 'my.docs', QDRANT_ATTACH_AS: 'docs' })).toEqual([]);
  });
});
