import type { ServingStatus } from '../types';
import { SERVING_STATUS_BATCH, ServingStatusCache } from '../serving-status-cache';

/** The one client call the cache makes, over an in-memory set of withheld texts; records each batch. */
function fakeClient(withheld: Set<string>) {
  const batches: string[][] = [];
  const client = {
    async servingStatus(collection: string, lookup: { texts?: string[] }): Promise<ServingStatus> {
      batches.push(lookup.texts ?? []);
      const texts = (lookup.texts ?? []).map((t) => ({ id: `id:${t}`, known: true, status: withheld.has(t) ? ('QUARANTINED' as const) : ('ACTIVE' as const), withheld: withheld.has(t) }));
      return { collection, ids: [], texts };
    },
  };
  return { client, batches };
}

describe('ServingStatusCache', () => {
  it('answers in the order asked, looking up each uncached text once per call', async () => {
    const { client, batches } = fakeClient(new Set(['b']));
    const cache = new ServingStatusCache({ client, collection: 'c' });
    const out = await cache.lookup(['a', 'b', 'a', 'c']);
    expect(out.map((s) => [s.id, s.withheld])).toEqual([['id:a', false], ['id:b', true], ['id:a', false], ['id:c', false]]);
    expect(batches).toEqual([['a', 'b', 'c']]);
    // Only the new text is looked up next time.
    await cache.lookup(['c', 'd']);
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
    expect(cache.lookups).toBe(2);
  });

  it('trusts a status for ttlMs, then looks again', async () => {
    const withheld = new Set<string>();
    const { client, batches } = fakeClient(withheld);
    let now = 1_000;
    const cache = new ServingStatusCache({ client, collection: 'c', ttlMs: 500, now: () => now });
    await cache.lookup(['a']);
    withheld.add('a');
    now += 499;
    expect((await cache.lookup(['a']))[0]!.withheld).toBe(false);
    expect(batches.length).toBe(1);
    now += 1;
    expect((await cache.lookup(['a']))[0]!.withheld).toBe(true);
    expect(batches.length).toBe(2);
  });

  it('ttlMs 0 caches nothing but still answers', async () => {
    const { client, batches } = fakeClient(new Set(['a']));
    const cache = new ServingStatusCache({ client, collection: 'c', ttlMs: 0 });
    expect((await cache.lookup(['a', 'b'])).map((s) => s.withheld)).toEqual([true, false]);
    await cache.lookup(['a']);
    expect(batches.length).toBe(2);
  });

  it('is cleared by the webhook events that change serving, not by others', async () => {
    const { client, batches } = fakeClient(new Set());
    const cache = new ServingStatusCache({ client, collection: 'c', ttlMs: 60_000 });
    await cache.lookup(['a']);
    expect(cache.handleWebhookEvent({ type: 'feedback.failed' })).toBe(false);
    await cache.lookup(['a']);
    expect(batches.length).toBe(1);
    for (const type of ['quarantine.created', 'review.needed', 'review.decided']) {
      expect(cache.handleWebhookEvent({ type })).toBe(true);
      await cache.lookup(['a']);
    }
    expect(batches.length).toBe(4);
  });

  it(`splits a lookup into calls of at most ${SERVING_STATUS_BATCH} texts`, async () => {
    const { client, batches } = fakeClient(new Set(['t2500']));
    const texts = Array.from({ length: 2501 }, (_, i) => `t${i}`);
    const out = await new ServingStatusCache({ client, collection: 'c' }).lookup(texts);
    expect(batches.map((b) => b.length)).toEqual([1000, 1000, 501]);
    expect(out[2500]!.withheld).toBe(true);
    expect(out.filter((s) => s.withheld).length).toBe(1);
  });

  it('passes the client error on and caches nothing from a failed call', async () => {
    let up = false;
    const client = {
      async servingStatus(collection: string, lookup: { texts?: string[] }): Promise<ServingStatus> {
        if (!up) throw new Error('ECONNREFUSED');
        return { collection, ids: [], texts: (lookup.texts ?? []).map((t) => ({ id: t, known: true, status: 'ACTIVE' as const, withheld: false })) };
      },
    };
    const cache = new ServingStatusCache({ client, collection: 'c' });
    await expect(cache.lookup(['a'])).rejects.toThrow('ECONNREFUSED');
    up = true;
    expect((await cache.lookup(['a']))[0]!.id).toBe('a');
  });

  it('rejects a negative ttlMs', () => {
    expect(() => new ServingStatusCache({ client: fakeClient(new Set()).client, collection: 'c', ttlMs: -1 })).toThrow(RangeError);
  });
});
