import type { DocumentRepository, QuarantineRow } from '../../../../ports/repositories';
import { HashingEmbedder, InMemoryVectorStore } from '../../../../testing';
import { ensureRedactedVersionInStore } from '../store-sync';

/**
 * A redacted review item's version stands in for its original in the store. When the original is not in
 * the store — its collection dropped, as a shared test database keeps records of collections that other
 * apps created — there is nothing to stand in for: nothing is written and nothing throws (an upsert into
 * the missing collection used to fail the whole start-up sync of the worker).
 */
describe('ensureRedactedVersionInStore', () => {
  const version = { id: 'v1', text: 'Moby-Dick is a novel about […] a whale.' };
  const documents = { get: async (ids: readonly string[]) => (ids.includes('v1') ? [version] : []) } as unknown as DocumentRepository;
  const rec = { id: 'q1', collection: 'kb', documentId: 'd1', state: 'QUARANTINED', redaction: { active: true, documentId: 'v1' } } as unknown as QuarantineRow;

  it('writes the version next to an original that is in the store', async () => {
    const store = new InMemoryVectorStore();
    const embedder = new HashingEmbedder(16);
    await store.ensureCollection('kb', 16);
    const [vector] = await embedder.embed(['Moby-Dick is a novel about Dickens and a whale.']);
    await store.upsert('kb', [{ id: 'd1', vector: vector!, text: 'Moby-Dick is a novel about Dickens and a whale.', payload: { source: 'x' }, quarantined: true }]);
    expect(await ensureRedactedVersionInStore({ store, embedder, documents }, rec)).toBe(true);
    const [v] = await store.fetch('kb', ['v1']);
    expect(v).toMatchObject({ text: version.text, quarantined: false, payload: { source: 'x', redactionOf: 'd1' } });
    expect(await ensureRedactedVersionInStore({ store, embedder, documents }, rec)).toBe(false); // already there
  });

  it('writes nothing and does not throw when the original (its collection) is not in the store', async () => {
    const store = new InMemoryVectorStore();
    await expect(ensureRedactedVersionInStore({ store, embedder: new HashingEmbedder(16), documents }, rec)).resolves.toBe(false);
    expect(await store.fetch('kb', ['v1'])).toEqual([]);
  });
});
