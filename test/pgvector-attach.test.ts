/**
 * pgvector attach mode against a real PostgreSQL 15 + pgvector cluster (started here), on tables the
 * "app" created and filled itself: LangChain's PGVector layout (two LangChain collections, only one
 * attached) and a plain (id, content, embedding) table with integer ids. The service connects as a
 * role with only SELECT on the app's tables (docs/vector-stores.md "Rights", run as written), so any
 * write to them would fail; the tables' contents are also checksummed before and after.
 * The page's marked code blocks are executed: the configuration blocks through the service's
 * configuration loader and store factory, the SQL blocks as written (the app's queries must leave
 * quarantined rows out). Never skipped.
 *   npx jest test/pgvector-attach.test.ts
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { RunAuditUseCase, StartAuditUseCase, type VectorStore } from '@forensics/core';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryAuditRunRepository, ScriptedJudge } from '@forensics/core/testing';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createVectorStore, DimensionMismatchError, documentIdOf, PgVectorAttachedVectorStore, PgVectorStore } from '@forensics/infra/vector-store';
import { startPgVectorCluster, type PgVectorCluster } from './support/pgvector-cluster';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '..');
const PAGE = fs.readFileSync(path.join(ROOT, 'docs/vector-stores.md'), 'utf8');

/** The page's code block marked `<!-- test: name -->`. */
function block(name: string): string {
  const m = new RegExp(`<!-- test: ${name} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(PAGE);
  if (!m) throw new Error(`docs/vector-stores.md has no block marked "${name}"`);
  return m[1]!;
}
/** `export NAME=value` lines of a bash block (comments dropped). */
function envOf(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of block(name).split('\n')) {
    const m = /^export ([A-Z_]+)=(\S*)/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

const lit = (v: number[]): string => `[${v.join(',')}]`;
const X = [2, 0, 0];
const ids = (hits: { id: string }[]): string[] => hits.map((h) => h.id);

// The LangChain app's rows ('kb') and another LangChain collection's ('other', never attached).
const LC = {
  A: { id: '0a000000-0000-4000-8000-00000000000a', v: [1, 0, 0], doc: 'lc text A' },
  B: { id: '0b000000-0000-4000-8000-00000000000b', v: [3, 4, 0], doc: 'lc text B' },
  C: { id: '0c000000-0000-4000-8000-00000000000c', v: [0, 2, 0], doc: 'lc text C' },
  E: { id: '0e000000-0000-4000-8000-00000000000e', v: [1, 1, 0], doc: 'lc text E' },
};
const OTHER = { id: '0f000000-0000-4000-8000-00000000000f', v: [1, 0.001, 0], doc: 'other collection text' };
const DOCS = { A: { id: 11, v: [1, 0, 0] }, B: { id: 12, v: [3, 4, 0] }, C: { id: 13, v: [0, 2, 0] }, D: { id: 14, v: [-1, 0, 0] }, E: { id: 15, v: [1, 1, 0] } };
const doc = (n: number): string => documentIdOf(n, 'integer');

let cluster: PgVectorCluster;
let admin: Client;
let app: Client;
const opened: VectorStore[] = [];

async function checksum(): Promise<string> {
  const r = await admin.query<{ s: string }>(`SELECT
    (SELECT md5(string_agg(e::text, '|' ORDER BY e.id)) FROM langchain_pg_embedding e) || ':' ||
    (SELECT md5(string_agg(c::text, '|' ORDER BY c.name)) FROM langchain_pg_collection c) || ':' ||
    (SELECT md5(string_agg(d::text, '|' ORDER BY d.id)) FROM public.docs d) AS s`);
  return r.rows[0]!.s;
}

/** The docs' env block → the service's config → the store factory, connected as the read-only role. */
function storeFromDocs(name: string): VectorStore {
  const env = { ...envOf(name), PGVECTOR_URL: cluster.urlAs('forensics', 'secret') };
  const config = loadConfig(env, ROOT);
  const store = createVectorStore({ dir: '/nonexistent', kind: config.vectorStore.kind, pgvector: config.vectorStore.pgvector });
  opened.push(store);
  return store;
}

beforeAll(async () => {
  cluster = await startPgVectorCluster();
  admin = new Client({ connectionString: cluster.url });
  await admin.connect();
  // The app's tables, as LangChain's PGVector creates them, and a plain table; owned by the superuser.
  await admin.query(`
    CREATE ROLE forensics LOGIN PASSWORD 'secret';
    CREATE ROLE app LOGIN PASSWORD 'secret';
    CREATE TABLE langchain_pg_collection (uuid uuid PRIMARY KEY, name varchar NOT NULL UNIQUE, cmetadata json);
    CREATE TABLE langchain_pg_embedding (
      id varchar PRIMARY KEY, collection_id uuid REFERENCES langchain_pg_collection(uuid) ON DELETE CASCADE,
      embedding vector, document varchar, cmetadata jsonb);
    CREATE TABLE public.docs (id bigint PRIMARY KEY, content text NOT NULL, embedding vector(3) NOT NULL);
    CREATE INDEX ON public.docs USING hnsw (embedding vector_cosine_ops);
    GRANT SELECT, INSERT, UPDATE, DELETE ON langchain_pg_collection, langchain_pg_embedding, public.docs TO app;
    INSERT INTO langchain_pg_collection VALUES ('11111111-1111-4111-8111-111111111111', 'kb', '{}'), ('22222222-2222-4222-8222-222222222222', 'other', '{}');`);
  for (const r of Object.values(LC)) {
    await admin.query(`INSERT INTO langchain_pg_embedding VALUES ($1, '11111111-1111-4111-8111-111111111111', $2, $3, '{"source":"wiki"}')`, [r.id, lit(r.v), r.doc]);
  }
  await admin.query(`INSERT INTO langchain_pg_embedding VALUES ($1, '22222222-2222-4222-8222-222222222222', $2, $3, '{}')`, [OTHER.id, lit(OTHER.v), OTHER.doc]);
  for (const [name, r] of Object.entries(DOCS)) await admin.query('INSERT INTO public.docs VALUES ($1, $2, $3)', [r.id, `doc text ${name}`, lit(r.v)]);
  await admin.query(block('grants')); // docs "Rights", as written
  app = new Client({ connectionString: cluster.urlAs('app', 'secret') });
  await app.connect();
});

afterAll(async () => {
  for (const s of opened) await s.close().catch(() => undefined);
  await app?.end();
  await admin?.end();
  await cluster?.stop();
});

describe('pgvector attach: LangChain PGVector tables (docs langchain-env)', () => {
  let store: PgVectorAttachedVectorStore;
  let before: string;
  beforeAll(async () => {
    before = await checksum();
    store = storeFromDocs('langchain-env') as PgVectorAttachedVectorStore;
    expect(store).toBeInstanceOf(PgVectorAttachedVectorStore);
    expect(store.attachedAs).toBe('kb');
    await store.ensureCollection('kb', 3); // the column has no declared dimension: taken from a row
  });

  it('checks the dimension', async () => {
    await expect(store.ensureCollection('kb', 4)).rejects.toThrow(DimensionMismatchError);
  });

  it("searches the attached LangChain collection only, with the app's ids, text and mapped payload", async () => {
    const hits = await store.search('kb', { vector: X, k: 10 });
    expect(ids(hits)).toEqual([LC.A.id, LC.E.id, LC.B.id, LC.C.id]); // not OTHER, though it is the 2nd nearest
    expect(hits[0]).toMatchObject({ text: 'lc text A', payload: { externalId: LC.A.id, source: 'pgvector-attached' } });
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[2]!.score).toBeCloseTo(0.6, 5);
    expect(ids(await store.search('kb', { vector: X, k: 2, excludeIds: [LC.A.id] }))).toEqual([LC.E.id, LC.B.id]);
    const [b] = await store.fetch('kb', [LC.B.id, OTHER.id]);
    expect(b).toMatchObject({ id: LC.B.id, text: 'lc text B', quarantined: false });
    expect(Array.from(b!.vector)).toEqual([3, 4, 0]);
    expect(await store.fetch('kb', [OTHER.id])).toEqual([]);
    expect(await store.count('kb')).toBe(4);
  });

  it("quarantine is a row in our side table; the docs' LangChain query and view leave it out; restore brings it back", async () => {
    await store.setQuarantined('kb', [LC.A.id, OTHER.id], true);
    await store.setQuarantined('kb', [LC.A.id], true); // idempotent
    expect(ids(await store.search('kb', { vector: X, k: 1 }))).toEqual([LC.E.id]);
    expect(ids(await store.search('kb', { vector: X, k: 1, includeQuarantined: true }))).toEqual([LC.A.id]);
    expect((await store.fetch('kb', [LC.A.id]))[0]!.quarantined).toBe(true);
    const side = await admin.query('SELECT app_table, app_id FROM rf_vectors.attach_quarantine ORDER BY app_id');
    expect(side.rows).toEqual([{ app_table: 'langchain_pg_embedding', app_id: LC.A.id }]); // OTHER is not in the attached collection: ignored
    // The app's own query (docs langchain-query), run by the app's role.
    const appQuery = async () => (await app.query<{ id: string }>(block('langchain-query'), [lit(X)])).rows.map((r) => r.id);
    expect(await appQuery()).toEqual([LC.E.id, LC.B.id, LC.C.id]);
    // The view for LangChain's PGVector class (docs langchain-view), queried the way LangChain.js does.
    await admin.query(block('langchain-view'));
    const viaView = await app.query<{ id: string }>(
      `SELECT *, embedding <=> $1 AS "_distance" FROM served_langchain_pg_embedding WHERE collection_id = $2 ORDER BY "_distance" ASC LIMIT $3`,
      [lit(X), '11111111-1111-4111-8111-111111111111', 2],
    );
    expect(viaView.rows.map((r) => r.id)).toEqual([LC.E.id, LC.B.id]);
    await store.setQuarantined('kb', [LC.A.id], false);
    expect(await appQuery()).toEqual([LC.A.id, LC.E.id, LC.B.id, LC.C.id]);
    expect(ids(await store.search('kb', { vector: X, k: 1 }))).toEqual([LC.A.id]);
  });

  it("never writes the app's tables: our records go to rf_own_kb, a purge withdraws the app's row", async () => {
    const proxy = '0d000000-0000-4000-8000-0000000000dd';
    await store.upsert('kb', [{ id: proxy, vector: [0.9, 0.1, 0], text: 'our proxy', payload: { kind: 'proxy' } }]);
    expect(ids(await store.search('kb', { vector: X, k: 2 }))).toEqual([LC.A.id, proxy]);
    expect(await store.count('kb')).toBe(5);
    await store.delete('kb', [proxy, LC.C.id]);
    expect(await store.fetch('kb', [proxy])).toEqual([]);
    expect((await store.fetch('kb', [LC.C.id]))[0]!.quarantined).toBe(true);
    expect(ids(await store.search('kb', { vector: [0, 1, 0], k: 10 }))).not.toContain(LC.C.id);
    // listPage: the app's rows of 'kb' (C included, flagged), then ours (none left)
    const seen: { id: string; quarantined: boolean }[] = [];
    let after: string | null = null;
    do {
      const page = await store.listPage('kb', { after, limit: 3, withText: true });
      seen.push(...page.records);
      after = page.next;
    } while (after !== null);
    expect(seen.map((r) => r.id).sort()).toEqual([LC.A.id, LC.B.id, LC.C.id, LC.E.id].sort());
    expect(seen.find((r) => r.id === LC.C.id)!.quarantined).toBe(true);
    await store.setQuarantined('kb', [LC.C.id], false);
    expect(await checksum()).toBe(before);
  });

  it("reconcile with register=true registers the app's rows as they stand (so a vetted baseline can cover them), writing nothing of the app's", async () => {
    const repos = createInMemoryRepositories();
    const uc = composeUseCases({ repos, store, embedder: new HashingEmbedder(3), judge: new ScriptedJudge(() => 'NO'), auditRuns: new InMemoryAuditRunRepository() });
    await repos.documents.ensureCollection({ name: 'kb', embedder: 'app', dimension: 3 });
    const run = await uc.get(StartAuditUseCase).execute({ kind: 'reconcile', collection: 'kb', trigger: 'cli', actor: 'test', enqueue: false, params: { register: true } });
    const out = await uc.get(RunAuditUseCase).execute({ runId: run.id });
    expect(out!.run.status).toBe('SUCCEEDED');
    expect(out!.run.counts['point-unknown.repaired']).toBe(4);
    const docs = await repos.documents.get([LC.A.id, LC.B.id, LC.C.id, LC.E.id, OTHER.id]);
    expect(docs.map((d) => d.id).sort()).toEqual([LC.A.id, LC.B.id, LC.C.id, LC.E.id].sort()); // not the other LangChain collection's row
    expect(docs.find((d) => d.id === LC.A.id)).toMatchObject({ text: 'lc text A', externalId: LC.A.id, status: 'ACTIVE' });
    expect((await store.fetch('kb', [LC.A.id]))[0]!.quarantined).toBe(false);
    expect(await checksum()).toBe(before);
  });

  it('the service role cannot write the app tables (the promise is enforced by the rights, not only by the code)', async () => {
    const svc = new Client({ connectionString: cluster.urlAs('forensics', 'secret') });
    await svc.connect();
    try {
      await expect(svc.query(`UPDATE langchain_pg_embedding SET document = 'x'`)).rejects.toThrow(/permission denied/);
    } finally {
      await svc.end();
    }
  });
});

describe('pgvector attach: a plain (id, content, embedding) table with integer ids (docs table-env)', () => {
  let store: VectorStore;
  let before: string;
  beforeAll(async () => {
    before = await checksum();
    store = storeFromDocs('table-env');
    await store.ensureCollection('docs', 3);
  });

  it('searches, excludes and fetches with integer ids mapped to UUIDs', async () => {
    expect(ids(await store.search('docs', { vector: X, k: 3 }))).toEqual([doc(11), doc(15), doc(12)]);
    expect(ids(await store.search('docs', { vector: X, k: 2, excludeIds: [doc(11), 'not-an-id'] }))).toEqual([doc(15), doc(12)]);
    const [e] = await store.fetch('docs', [doc(15)]);
    expect(e).toMatchObject({ id: doc(15), text: 'doc text E', payload: { externalId: '15', source: 'pgvector-attached' } });
  });

  it("the docs' table query leaves quarantined rows out (run by the app's role); restore", async () => {
    await store.setQuarantined('docs', [doc(11), doc(99)], true);
    const appQuery = async () => (await app.query<{ id: string }>(block('table-query'), [lit(X)])).rows.map((r) => Number(r.id));
    expect(await appQuery()).toEqual([15, 12, 13, 14]);
    expect(ids(await store.search('docs', { vector: X, k: 1 }))).toEqual([doc(15)]);
    await store.setQuarantined('docs', [doc(11)], false);
    expect(await appQuery()).toEqual([11, 15, 12, 13, 14]);
    expect(await checksum()).toBe(before);
  });
});

describe('pgvector own collections from the docs configuration (docs pgvector-env)', () => {
  it('the factory builds a PgVectorStore that creates its schema and serves a collection', async () => {
    const env = { ...envOf('pgvector-env'), PGVECTOR_URL: cluster.url, PGVECTOR_SCHEMA: 'own_from_docs' };
    const config = loadConfig(env, ROOT);
    expect(config.vectorStore).toMatchObject({ kind: 'pgvector', pgvector: { schema: 'own_from_docs', efSearch: 200, hnswM: 16, hnswEfConstruction: 64 } });
    const store = createVectorStore({ dir: '/nonexistent', kind: config.vectorStore.kind, pgvector: config.vectorStore.pgvector });
    opened.push(store);
    expect(store).toBeInstanceOf(PgVectorStore);
    await store.ensureCollection('kb', 3);
    await store.upsert('kb', [{ id: 'a', vector: [1, 0, 0], text: 'a' }, { id: 'b', vector: [0, 1, 0], text: 'b' }]);
    await store.setQuarantined('kb', ['a'], true);
    expect(ids(await store.search('kb', { vector: X, k: 2 }))).toEqual(['b']);
  });
});
