import { Document } from '@langchain/core/documents';
import { FakeRetriever } from '@langchain/core/utils/testing';
import type { ForensicsClient, ServingStatus } from '@forensics/client';
import { FORENSICS_ID, ForensicsRetriever } from '../forensics-retriever';

/** The one client call the filter makes, over an in-memory set of withheld texts; records each batch. */
function fakeClient(withheld: Set<string>) {
  const batches: string[][] = [];
  const client = {
    async servingStatus(collection: string, lookup: { texts?: string[] }): Promise<ServingStatus> {
      batches.push(lookup.texts ?? []);
      const texts = (lookup.texts ?? []).map((t) => ({ id: `id:${t}`, known: true, status: withheld.has(t) ? ('QUARANTINED' as const) : ('ACTIVE' as const), withheld: withheld.has(t) }));
      return { collection, ids: [], texts };
    },
  };
  return { client: client as unknown as ForensicsClient, batches };
}

const docs = ['alpha', 'beta', 'gamma'].map((pageContent) => new Document({ pageContent }));

describe('ForensicsRetriever', () => {
  it('drops withheld texts, tags the rest with the service id, in one batched lookup', async () => {
    const { client, batches } = fakeClient(new Set(['beta']));
    const r = new ForensicsRetriever({ client, collection: 'c', retriever: new FakeRetriever({ output: docs }) });
    const out = await r.invoke('q');
    expect(out.map((d) => [d.pageContent, d.metadata[FORENSICS_ID]])).toEqual([['alpha', 'id:alpha'], ['gamma', 'id:gamma']]);
    expect(batches).toEqual([['alpha', 'beta', 'gamma']]);
  });

  it('serves from the cache within the TTL, and a webhook event clears it', async () => {
    const withheld = new Set<string>();
    const { client, batches } = fakeClient(withheld);
    const r = new ForensicsRetriever({ client, collection: 'c', retriever: new FakeRetriever({ output: docs }), ttlMs: 60_000 });
    expect((await r.invoke('q')).length).toBe(3);
    withheld.add('gamma');
    // Cached: the service's change is not seen yet, and no lookup is made.
    expect((await r.invoke('q')).length).toBe(3);
    expect(batches.length).toBe(1);
    expect(r.handleWebhookEvent({ type: 'feedback.failed' })).toBe(false);
    expect(r.handleWebhookEvent({ type: 'quarantine.created' })).toBe(true);
    expect((await r.invoke('q')).map((d) => d.pageContent)).toEqual(['alpha', 'beta']);
    expect(batches.length).toBe(2);
  });

  it('looks again once the TTL has passed', async () => {
    const withheld = new Set<string>();
    const { client, batches } = fakeClient(withheld);
    const r = new ForensicsRetriever({ client, collection: 'c', retriever: new FakeRetriever({ output: docs }), ttlMs: 0 });
    await r.invoke('q');
    withheld.add('alpha');
    expect((await r.invoke('q')).map((d) => d.pageContent)).toEqual(['beta', 'gamma']);
    expect(batches.length).toBe(2);
  });

  it('serves unfiltered when the service cannot be reached, or throws with onLookupError: closed', async () => {
    const down = { servingStatus: async () => { throw new Error('ECONNREFUSED'); } } as unknown as ForensicsClient;
    const open = new ForensicsRetriever({ client: down, collection: 'c', retriever: new FakeRetriever({ output: docs }) });
    expect((await open.invoke('q')).length).toBe(3);
    const closed = new ForensicsRetriever({ client: down, collection: 'c', retriever: new FakeRetriever({ output: docs }), onLookupError: 'closed' });
    await expect(closed.invoke('q')).rejects.toThrow('ECONNREFUSED');
  });
});
