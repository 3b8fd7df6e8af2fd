/**
 * The VectorStore contract (test/support/vector-store-contract.ts) against pgvector's own collections,
 * on a real PostgreSQL 15 cluster with the pgvector extension started by this file
 * (test/support/pgvector-cluster.ts). Never skipped: a missing server or extension fails the suite.
 *   npx jest test/pgvector.contract.test.ts
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { PgVectorStore } from '@forensics/infra/vector-store';
import { startPgVectorCluster, type PgVectorCluster } from './support/pgvector-cluster';
import { A, B, C, contract, E, ids, small, X, type AdapterFactory } from './support/vector-store-contract';

jest.setTimeout(60_000);

let cluster: PgVectorCluster | undefined;
afterAll(async () => cluster?.stop());

const pgvectorFactory: AdapterFactory = {
  name: 'pgvector',
  skipReason: null,
  async harness() {
    cluster = await startPgVectorCluster();
    const schema = `contract_${randomUUID().slice(0, 8)}`;
    return {
      open: () => new PgVectorStore({ url: cluster!.url, schema }),
      cleanup: async () => undefined, // the cluster is stopped and its directory removed
    };
  },
};

contract(pgvectorFactory);

describe('pgvector specifics', () => {
  let store: PgVectorStore;
  let sql: Client;
  beforeAll(async () => {
    cluster ??= await startPgVectorCluster();
    store = new PgVectorStore({ url: cluster.url, schema: 'specifics' });
    sql = new Client({ connectionString: cluster.url });
    await sql.connect();
  });
  afterAll(async () => {
    await store?.close();
    await sql?.end();
  });

  it('serves searches through the HNSW index, quarantine filtered in the query, k rows despite the filter', async () => {
    await store.ensureCollection('hnsw', 3);
    await store.upsert('hnsw', small);
    const table = await store.tableOf('hnsw');
    const idx = await sql.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'specifics'`);
    expect(idx.rows.map((r) => r.indexdef).join('\n')).toMatch(/USING hnsw \(embedding vector_cosine_ops\) WITH \(m='16', ef_construction='64'\)/);
    // The planner uses the index when sequential scans are off (tiny table): the same answers, filter applied.
    await sql.query('SET enable_seqscan = off');
    const plan = await sql.query(`EXPLAIN SELECT id FROM ${table} WHERE NOT quarantined ORDER BY embedding <=> '[2,0,0]' LIMIT 3`);
    expect(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan using .*_hnsw/);
    await store.setQuarantined('hnsw', [A], true);
    expect(ids(await store.search('hnsw', { vector: X, k: 3 }))).toEqual([E, B, C]);
    const shown = await sql.query(`SHOW hnsw.ef_search`).catch(() => null);
    expect(shown).not.toBeNull(); // the extension's setting exists on this server
  });

  it('revision changes with every write, in any process, and not on reads', async () => {
    const other = new PgVectorStore({ url: cluster!.url, schema: 'specifics' });
    try {
      await store.ensureCollection('rev', 3);
      const r0 = await store.revision('rev');
      await store.search('rev', { vector: X, k: 1 });
      expect(await other.revision('rev')).toBe(r0);
      await other.upsert('rev', small);
      const r1 = await store.revision('rev');
      expect(r1).not.toBe(r0);
      await other.setQuarantined('rev', [A], true);
      const r2 = await store.revision('rev');
      expect(r2).not.toBe(r1);
      await other.setQuarantined('rev', [A], true); // no change, no new revision
      expect(await store.revision('rev')).toBe(r2);
      expect(await store.revision('missing')).toBeNull();
    } finally {
      await other.close();
    }
  });
});

describe('pgvector serving advice (the operator is told when shared_buffers cannot hold the HNSW indexes)', () => {
  it('silent while the indexes fit; one line naming the sizes and the fix when they do not', async () => {
    cluster ??= await startPgVectorCluster();
    const roomy = new PgVectorStore({ url: cluster.url, schema: `advice_${randomUUID().slice(0, 8)}` });
    const tiny = await startPgVectorCluster({ settings: { shared_buffers: '1MB', max_connections: '20' } });
    const tight = new PgVectorStore({ url: tiny.url, schema: 'advice' });
    try {
      // 800 texts × 384 dimensions: an HNSW index of a few MB, nothing against 128 MB, too much for 1 MB.
      const rows = Array.from({ length: 800 }, (_, i) => ({ id: `t${i}`, vector: Array.from({ length: 384 }, (_, j) => Math.sin(i * 7 + j)), text: `text ${i}` }));
      for (const s of [roomy, tight]) {
        await s.ensureCollection('big', 384);
        await s.upsert('big', rows);
      }
      expect(await roomy.servingAdvice()).toEqual([]);
      const [line, ...rest] = await tight.servingAdvice();
      expect(rest).toEqual([]);
      expect(line).toMatch(/^pgvector: the HNSW indexes of 1 collection\(s\) take \d+ MB \(largest: 'big', \d+ MB\) but shared_buffers is 1 MB: .*raise shared_buffers above \d+ MB, with huge pages/);
    } finally {
      await roomy.close();
      await tight.close();
      await tiny.stop();
    }
  });
});
