/**
 * ONE contract for every VectorStore adapter (test/support/vector-store-contract.ts; pgvector's run is
 * test/pgvector.contract.test.ts). Each adapter gets the same describe block through a factory:
 * - LanceDB (embedded, on disk): always, in temp dirs under os.tmpdir();
 * - Qdrant: only when QDRANT_URL is set (optional QDRANT_API_KEY), otherwise skipped with a message;
 *   also attach mode on an app-owned collection (last block). With Docker:
 *   docker run -p 6333:6333 qdrant/qdrant   then   QDRANT_URL=http://localhost:6333 npx jest test/vector-store
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import {
  documentIdOf,
  QdrantAttachedVectorStore,
  DimensionMismatchError,
  LanceDbVectorStore,
  QdrantVectorStore,
} from '@forensics/infra/vector-store';
import { contract, ids, X, type AdapterFactory } from './support/vector-store-contract';

const lanceFactory: AdapterFactory = {
  name: 'lancedb',
  skipReason: null,
  harness() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-store-contract-'));
    return {
      open: () => new LanceDbVectorStore({ dir }),
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  },
};

const QDRANT_URL = process.env.QDRANT_URL;
const qdrantFactory: AdapterFactory = {
  name: 'qdrant',
  skipReason: QDRANT_URL ? null : 'QDRANT_URL not set: Qdrant contract suite skipped',
  harness() {
    const collectionPrefix = `contract_${randomUUID().slice(0, 8)}_`;
    return {
      open: () =>
        new QdrantVectorStore({ url: QDRANT_URL as string, apiKey: process.env.QDRANT_API_KEY, collectionPrefix }),
      cleanup: async () => undefined, // collections are dropped by the suite
    };
  },
};

contract(lanceFactory);
contract(qdrantFactory);

/**
 * Attach mode (README "Attach to an existing Qdrant collection"): the service works on a collection
 * the RAG app created and filled itself — named vectors, integer ids, the text under a nested payload
 * key — and may only read it and set one payload flag. Needs a real Qdrant (QDRANT_URL); the request
 * bodies are also checked without a server in libs/infra/src/vector-store/__tests__/qdrant-attach.spec.ts.
 */
(QDRANT_URL ? describe : describe.skip)('VectorStore contract: qdrant attach mode (app-owned collection)', () => {
  const DENSE_NAME = 'text-dense';
  const app = `app_${randomUUID().slice(0, 8)}`;
  let raw: QdrantClient;
  let store: QdrantAttachedVectorStore;
  const point = { A: 11, B: 12, C: 13, D: 14, E: 15 } as const;
  const doc = (n: number): string => documentIdOf(n, 'integer');
  const appFilter = { must_not: [{ key: 'rf_quarantined', match: { value: true } }] };

  beforeAll(async () => {
    raw = new QdrantClient({ url: QDRANT_URL as string, apiKey: process.env.QDRANT_API_KEY, checkCompatibility: false });
    await raw.createCollection(app, { vectors: { [DENSE_NAME]: { size: 3, distance: 'Cosine' }, other: { size: 2, distance: 'Dot' } } });
    await raw.createPayloadIndex(app, { field_name: 'rf_quarantined', field_schema: 'bool', wait: true });
    const byName: Record<string, number[]> = { A: [1, 0, 0], B: [3, 4, 0], C: [0, 2, 0], D: [-1, 0, 0], E: [1, 1, 0] };
    await raw.upsert(app, {
      wait: true,
      points: Object.entries(point).map(([name, id]) => ({
        id,
        vector: { [DENSE_NAME]: byName[name], other: [1, 0] },
        payload: { doc: { body: `app text ${name}` }, lang: 'en' },
      })),
    });
    store = new QdrantAttachedVectorStore({
      url: QDRANT_URL as string,
      apiKey: process.env.QDRANT_API_KEY,
      attach: { collection: app, textKey: 'doc.body', vectorName: DENSE_NAME, idType: 'integer' },
    });
    await store.ensureCollection(app, 3);
  });

  afterAll(async () => {
    await store?.dropCollection(app).catch(() => undefined); // ours (rf_own_<app>) only
    await raw?.deleteCollection(app).catch(() => undefined);
    await store?.close();
  });

  it('checks the configured vector and dimension', async () => {
    await expect(store.ensureCollection(app, 4)).rejects.toThrow(DimensionMismatchError);
  });

  it("searches the app's named vector; ids, text and payload mapped", async () => {
    const hits = await store.search(app, { vector: X, k: 3 });
    expect(ids(hits)).toEqual([doc(point.A), doc(point.E), doc(point.B)]);
    expect(hits[0]).toMatchObject({ text: 'app text A', payload: { externalId: String(point.A), source: 'qdrant-attached' } });
    expect(hits[0].score).toBeCloseTo(1, 5);
    expect(ids(await store.search(app, { vector: X, k: 2, excludeIds: [doc(point.A)] }))).toEqual([doc(point.E), doc(point.B)]);
    const [fetched] = await store.fetch(app, [doc(point.B)]);
    expect(fetched).toMatchObject({ id: doc(point.B), text: 'app text B', quarantined: false });
    expect(Array.from(fetched.vector).map((x) => +x.toFixed(5))).toEqual([0.6, 0.8, 0]); // Qdrant stores Cosine vectors normalised
  });

  it('quarantine sets only the flag; the README must_not filter hides the point from the app too; restore clears it', async () => {
    const before = (await raw.retrieve(app, { ids: [point.A], with_payload: true, with_vector: true }))[0];
    await store.setQuarantined(app, [doc(point.A)], true);
    expect(ids(await store.search(app, { vector: X, k: 1 }))).toEqual([doc(point.E)]);
    expect(ids(await store.search(app, { vector: X, k: 1, includeQuarantined: true }))).toEqual([doc(point.A)]);
    const after = (await raw.retrieve(app, { ids: [point.A], with_payload: true, with_vector: true }))[0];
    expect(after.payload).toEqual({ ...before.payload, rf_quarantined: true });
    expect(after.vector).toEqual(before.vector);
    const appView = await raw.query(app, { query: X, using: DENSE_NAME, limit: 1, filter: appFilter });
    expect(appView.points.map((p) => p.id)).toEqual([point.E]);
    expect((await store.fetch(app, [doc(point.A)]))[0].quarantined).toBe(true);
    await store.setQuarantined(app, [doc(point.A)], false);
    expect(ids(await store.search(app, { vector: X, k: 1 }))).toEqual([doc(point.A)]);
    expect((await raw.query(app, { query: X, using: DENSE_NAME, limit: 1, filter: appFilter })).points.map((p) => p.id)).toEqual([point.A]);
  });

  it("never writes the app's points: our records go to our own collection and are merged into searches", async () => {
    const proxy = randomUUID();
    await store.upsert(app, [{ id: proxy, vector: [0.9, 0.1, 0], text: 'our proxy', payload: { kind: 'proxy' } }]);
    expect((await raw.count(app, { exact: true })).count).toBe(5);
    expect(ids(await store.search(app, { vector: X, k: 2 }))).toEqual([doc(point.A), proxy]);
    expect(await store.count(app)).toBe(6);
    await store.delete(app, [proxy, doc(point.D)]); // the app's point D is not deleted: withdrawn with the flag
    expect((await raw.count(app, { exact: true })).count).toBe(5);
    expect(await store.fetch(app, [proxy])).toEqual([]);
    expect(await store.count(app)).toBe(5);
    const d = (await raw.retrieve(app, { ids: [point.D], with_payload: true }))[0];
    expect(d.payload).toEqual({ doc: { body: 'app text D' }, lang: 'en', rf_quarantined: true });
    expect(ids(await store.search(app, { vector: [-1, 0, 0], k: 1 }))).not.toEqual([doc(point.D)]);
    // a record whose id names an app point goes to our collection, never into the app's point
    await store.upsert(app, [{ id: doc(point.C), vector: [0, 1, 0], text: 'our copy' }]);
    expect((await raw.retrieve(app, { ids: [point.C], with_payload: true }))[0].payload).toEqual({ doc: { body: 'app text C' }, lang: 'en' });
    await store.delete(app, [doc(point.C)]);
  });
});
