/**
 * Issue 56, item 7c: collection names that differ only in case must not become two collections. Each collection is a
 * directory of the embedded vector store (`<DATA_DIR>/vectors/<name>.lance`) — on a case-insensitive filesystem
 * (macOS, Windows) `kb` and `KB` would be one directory holding two collections' vectors. Creating a collection whose
 * name differs only in case from an existing one is refused with 409 naming the existing spelling; lookups stay exact.
 * Real service: API, Postgres (the unique index on lower(name) settles concurrent creations), the embedded store.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from './support/test-app';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

describe('collection names that differ only in case', () => {
  let t: TestApp;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  const ingest = (name: string, text: string) => api('POST', `/v1/collections/${name}/documents`, { documents: [{ text }] });
  const tables = () => readdirSync(join(t.dataDir, 'vectors')).filter((f) => f.endsWith('.lance')).map((f) => f.slice(0, -'.lance'.length));

  beforeAll(async () => { t = await createTestApp({ api: true, queue: false }); });
  afterAll(async () => { await t?.close(); });

  it('a case variant of an existing collection is refused with 409 naming it; the collection and its directory stay one', async () => {
    const name = `${uniqueName('case')}_Kb`;
    expect((await ingest(name, 'The first text of the knowledge base.')).status).toBe(200);
    for (const variant of [name.toUpperCase(), name.toLowerCase()]) {
      const r = await ingest(variant, 'A second text, sent under another spelling.');
      expect({ status: r.status, message: r.body?.message }).toEqual({ status: 409, message: expect.stringContaining(`'${name}'`) });
      expect(r.body.message).toMatch(/differs only in case/);
    }
    const listed = (await api('GET', '/v1/collections')).body.items.map((c: { name: string }) => c.name).filter((n: string) => n.toLowerCase() === name.toLowerCase());
    expect(listed).toEqual([name]);
    expect(tables().filter((n) => n.toLowerCase() === name.toLowerCase())).toEqual([name]);
    // The exact spelling still ingests; the variant reaches nothing (no collection by that name).
    expect((await ingest(name, 'A third text, under the stored spelling.')).status).toBe(200);
    expect(await t.prisma.document.count({ where: { collection: { equals: name, mode: 'insensitive' } } })).toBe(2);
  });

  it('two spellings created at the same moment: one wins, the other gets 409', async () => {
    const name = `${uniqueName('race')}_kb`;
    const results = await Promise.all([ingest(name, 'Text one of the race.'), ingest(name.toUpperCase(), 'Text two of the race.')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.prisma.collection.count({ where: { name: { equals: name, mode: 'insensitive' } } })).toBe(1);
  });

  it('the database itself holds one spelling per name (the unique index on lower(name)), whoever writes the row', async () => {
    const name = `${uniqueName('db')}_Kb`;
    await t.prisma.collection.create({ data: { name, embedder: 'e', dimension: 4 } });
    await expect(t.prisma.collection.create({ data: { name: name.toLowerCase(), embedder: 'e', dimension: 4 } })).rejects.toThrow(/Unique constraint/i);
  });
});
