/**
 * The VectorStore contract (port: libs/core/src/ports/vector-store.port.ts), one describe block per
 * adapter through a factory. Used by test/vector-store.contract.test.ts (LanceDB, Qdrant) and
 * test/pgvector.contract.test.ts (pgvector, against a real PostgreSQL with the extension).
 */
import { mulberry32 } from '@forensics/algorithms';
import { randomUUID } from 'node:crypto';
import type { ScoredHit, VectorRecord, VectorStore } from '@forensics/core';
import { CollectionNotFoundError, DimensionMismatchError, InvalidCollectionNameError } from '@forensics/infra/vector-store';

export type DroppableStore = VectorStore & { dropCollection(collection: string): Promise<void> };

export interface Harness {
  /** A fresh store instance; all instances of one harness share the same underlying data. */
  open(): DroppableStore;
  cleanup(): Promise<void>;
}

export interface AdapterFactory {
  name: string;
  /** Reason to skip, or null to run. */
  skipReason: string | null;
  harness(): Harness | Promise<Harness>;
}


// ---- fixtures ----------------------------------------------------------------------------------------

/** Ids as UUIDs (Qdrant accepts only UUIDs or integers); uuid(1) < uuid(2) < … as strings. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const rng = mulberry32;

/**
 * Hand-checkable 3-d corpus. Against the query [2, 0, 0] (any positive multiple of x):
 *   A [1,0,0] → 1 ; E [1,1,0] → √½ ≈ 0.70711 ; B [3,4,0] → 0.6 ; C [0,2,0] → 0 ; D [-1,0,0] → -1
 */
export const A = uuid(1);
export const B = uuid(2);
export const C = uuid(3);
export const D = uuid(4);
export const E = uuid(5);
export const small: VectorRecord[] = [
  { id: B, vector: [3, 4, 0], text: 'text B', payload: { externalId: 'b', tags: ['x', 'y'], nested: { n: 2 } } },
  { id: D, vector: [-1, 0, 0], text: 'text D', payload: { externalId: 'd' } },
  { id: A, vector: [1, 0, 0], text: 'text A', payload: { externalId: 'a' } },
  { id: C, vector: [0, 2, 0], text: 'text C' },
  { id: E, vector: [1, 1, 0], text: 'text E', payload: { externalId: 'e', score: 0.5, ok: true, none: null } },
];
export const X = [2, 0, 0];

export const ids = (hits: ScoredHit[]): string[] => hits.map((h) => h.id);
export const f32 = (v: ArrayLike<number>): number[] => Array.from(Float32Array.from(Array.from(v)));

export function contract(factory: AdapterFactory): void {
  const title = `VectorStore contract: ${factory.name}`;
  if (factory.skipReason) {
    // eslint-disable-next-line no-console
    console.log(factory.skipReason);
  }
  // Skipped blocks run no hooks: the factory's harness is only built when the adapter can run.
  (factory.skipReason ? describe.skip : describe)(title, () => {
    let harness: Harness;
    let store: DroppableStore;
    const opened: DroppableStore[] = [];
    const collections = new Set<string>();
    let counter = 0;

    const open = (): DroppableStore => {
      const s = harness.open();
      opened.push(s);
      return s;
    };
    /** A fresh collection name per test. */
    const fresh = (): string => {
      const name = `c${++counter}_${randomUUID().slice(0, 8)}`;
      collections.add(name);
      return name;
    };
    const seeded = async (records: VectorRecord[] = small, dim = 3): Promise<string> => {
      const c = fresh();
      await store.ensureCollection(c, dim);
      await store.upsert(c, records);
      return c;
    };

    beforeAll(async () => {
      harness = await factory.harness();
      store = open();
    });

    afterAll(async () => {
      for (const c of collections) await store.dropCollection(c).catch(() => undefined);
      for (const s of opened) await s.close();
      await harness.cleanup();
    });

    it('reports its kind and is healthy', async () => {
      expect(store.kind).toBe(factory.name);
      await expect(store.health()).resolves.toBeUndefined();
    });

    it('ensureCollection is idempotent; count is 0 for a missing collection and counts records', async () => {
      const c = fresh();
      expect(await store.count(c)).toBe(0);
      await store.ensureCollection(c, 3);
      await store.ensureCollection(c, 3);
      expect(await store.count(c)).toBe(0);
      await store.upsert(c, small);
      expect(await store.count(c)).toBe(5);
    });

    it('round-trips records through upsert + fetch (vectors exact to float32, payload, flag)', async () => {
      const c = fresh();
      await store.ensureCollection(c, 4);
      const rec: VectorRecord = {
        id: uuid(100),
        vector: [0.1, 1 / 3, -2.5e-7, 12345.678],
        text: 'Ünïcödé text with "quotes" and \'apostrophes\'\nnewline',
        payload: { externalId: 'doc-1', meta: { page: 3, tags: ['a', 'b'] }, flag: false, nothing: null },
      };
      const other: VectorRecord = { id: uuid(101), vector: Float32Array.from([1, 2, 3, 4]), text: 't' };
      await store.upsert(c, [rec, other]);
      const [got, got2] = await store.fetch(c, [rec.id, uuid(999), other.id]);
      expect(got.id).toBe(rec.id);
      expect(got.vector).toBeInstanceOf(Float32Array);
      expect(Array.from(got.vector)).toEqual(f32(rec.vector));
      expect(got.text).toBe(rec.text);
      expect(got.payload).toEqual(rec.payload);
      expect(got.quarantined).toBe(false);
      expect(got2.id).toBe(other.id);
      expect(got2.payload).toEqual({});
      expect(Array.from(got2.vector)).toEqual([1, 2, 3, 4]);
    });

    it('returns fetch results in request order, each id once', async () => {
      const c = await seeded();
      expect((await store.fetch(c, [E, A, E, C])).map((r) => r.id)).toEqual([E, A, C]);
      expect(await store.fetch(c, [])).toEqual([]);
    });

    it('orders top-k by cosine similarity with hand-checked scores', async () => {
      const c = await seeded();
      const top3 = await store.search(c, { vector: X, k: 3 });
      expect(ids(top3)).toEqual([A, E, B]);
      expect(top3[0].score).toBeCloseTo(1, 5);
      expect(top3[1].score).toBeCloseTo(Math.SQRT1_2, 5);
      expect(top3[2].score).toBeCloseTo(0.6, 5);
      expect(top3[0]).toMatchObject({ text: 'text A', payload: { externalId: 'a' } });
      expect(top3[2].payload).toEqual(small[0].payload);

      const all = await store.search(c, { vector: [0, 5, 0], k: 10 });
      // [0,5,0]: C 1, B 0.8, E √½, A 0 / D 0 (tie → by id: A before D)
      expect(ids(all)).toEqual([C, B, E, A, D]);
      expect(all.map((h) => h.score)).toEqual(
        [1, 0.8, Math.SQRT1_2, 0, 0].map((s) => expect.closeTo(s, 5) as unknown as number),
      );
      expect(await store.search(c, { vector: X, k: 0 })).toEqual([]);
    });

    it('breaks score ties by id, whatever the insertion order', async () => {
      const c = fresh();
      await store.ensureCollection(c, 2);
      const twins = [uuid(33), uuid(31), uuid(34), uuid(32)];
      for (const id of twins) await store.upsert(c, [{ id, vector: [1, 1], text: id }]);
      await store.upsert(c, [{ id: uuid(30), vector: [1, 0.99], text: 'near' }]);
      const hits = await store.search(c, { vector: [1, 1], k: 3 });
      expect(ids(hits)).toEqual([uuid(31), uuid(32), uuid(33)]);
      expect(hits[0].score).toBe(hits[1].score);
    });

    it('never returns excludeIds (unknown ones are ignored)', async () => {
      const c = await seeded();
      const hits = await store.search(c, { vector: X, k: 3, excludeIds: [A, uuid(999), 'not-a-uuid'] });
      expect(ids(hits)).toEqual([E, B, C]);
      const backward = await store.search(c, { vector: small[0].vector, k: 2, excludeIds: [B] });
      expect(ids(backward)).not.toContain(B);
    });

    it('keeps quarantined records out of search but fetchable and counted', async () => {
      const c = await seeded();
      await store.setQuarantined(c, [A], true);
      await store.setQuarantined(c, [A], true); // idempotent
      expect(ids(await store.search(c, { vector: X, k: 3 }))).toEqual([E, B, C]);
      const batch = await store.searchBatch(c, [{ vector: X, k: 5 }]);
      expect(ids(batch[0])).not.toContain(A);
      expect(ids(await store.search(c, { vector: X, k: 3, includeQuarantined: true }))).toEqual([A, E, B]);
      const [a] = await store.fetch(c, [A]);
      expect(a).toMatchObject({ id: A, text: 'text A', quarantined: true, payload: { externalId: 'a' } });
      expect(Array.from(a.vector)).toEqual([1, 0, 0]);
      expect(await store.count(c)).toBe(5);
    });

    it('restores a quarantined record exactly (text, payload, vector, rank and score)', async () => {
      const c = await seeded();
      const before = await store.search(c, { vector: [1, 0.2, 0], k: 5 });
      const [fetchedBefore] = await store.fetch(c, [E]);
      await store.setQuarantined(c, [E, B], true);
      expect(ids(await store.search(c, { vector: [1, 0.2, 0], k: 5 }))).toEqual(
        ids(before).filter((id) => id !== E && id !== B),
      );
      await store.setQuarantined(c, [E, B], false);
      await store.setQuarantined(c, [E, B], false); // idempotent
      expect(await store.search(c, { vector: [1, 0.2, 0], k: 5 })).toEqual(before);
      const [fetchedAfter] = await store.fetch(c, [E]);
      expect(fetchedAfter).toEqual(fetchedBefore);
      expect(fetchedAfter.quarantined).toBe(false);
    });

    it('upsert replaces by id and keeps the quarantine flag unless one is given', async () => {
      const c = await seeded();
      await store.setQuarantined(c, [B], true);
      await store.upsert(c, [{ id: B, vector: [1, 0, 0], text: 'B v2', payload: { externalId: 'b', v: 2 } }]);
      const [b] = await store.fetch(c, [B]);
      expect(b).toMatchObject({ text: 'B v2', payload: { externalId: 'b', v: 2 }, quarantined: true });
      expect(Array.from(b.vector)).toEqual([1, 0, 0]);
      expect(ids(await store.search(c, { vector: X, k: 5 }))).not.toContain(B);
      expect(await store.count(c)).toBe(5);
      // an explicit flag wins (port: "unless `quarantined` is given")
      await store.upsert(c, [{ id: B, vector: [1, 0, 0], text: 'B v3', quarantined: false } as VectorRecord]);
      expect((await store.fetch(c, [B]))[0]).toMatchObject({ text: 'B v3', payload: {}, quarantined: false });
      // B now ties A at score 1: id order
      expect(ids(await store.search(c, { vector: X, k: 2 }))).toEqual([A, B]);
    });

    it('searchBatch equals the individual searches (randomised corpus, mixed options)', async () => {
      const rand = rng(42);
      const dim = 16;
      const records: VectorRecord[] = Array.from({ length: 300 }, (_, i) => ({
        id: uuid(1000 + i),
        vector: Array.from({ length: dim }, () => rand() * 2 - 1),
        text: `t${i}`,
        payload: { i },
      }));
      const c = await seeded(records, dim);
      await store.setQuarantined(c, [uuid(1003), uuid(1010), uuid(1200)], true);
      const requests = Array.from({ length: 23 }, (_, j) => ({
        vector: j % 3 === 0 ? records[j * 7].vector : Array.from({ length: dim }, () => rand() * 2 - 1),
        k: [1, 5, 21, 0, 300][j % 5],
        excludeIds: j % 3 === 0 ? [records[j * 7].id] : j % 4 === 0 ? [uuid(1001), uuid(1002)] : undefined,
        includeQuarantined: j % 5 === 4,
      }));
      const batch = await store.searchBatch(c, requests);
      expect(batch).toHaveLength(requests.length);
      for (let j = 0; j < requests.length; j++) {
        expect(batch[j]).toEqual(await store.search(c, requests[j]));
        const eligible = records.filter(
          (r) =>
            !(requests[j].excludeIds ?? []).includes(r.id) &&
            (requests[j].includeQuarantined || ![uuid(1003), uuid(1010), uuid(1200)].includes(r.id)),
        ).length;
        expect(batch[j]).toHaveLength(Math.min(requests[j].k, eligible));
      }
      expect(await store.searchBatch(c, [])).toEqual([]);
      // sanity against a brute-force reference (cosine), for one request
      const q = requests[1].vector as number[];
      const cos = (v: number[]) => {
        const dot = v.reduce((s, x, i) => s + x * q[i], 0);
        return dot / Math.hypot(...v) / Math.hypot(...q);
      };
      const quarantined = new Set([uuid(1003), uuid(1010), uuid(1200)]);
      const reference = records
        .filter((r) => !quarantined.has(r.id))
        .map((r) => ({ id: r.id, score: cos(r.vector as number[]) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, requests[1].k);
      expect(ids(batch[1])).toEqual(ids(reference as ScoredHit[]));
      batch[1].forEach((h, i) => expect(h.score).toBeCloseTo(reference[i].score, 5));
    });

    it('listPage (where the store has it) walks every record once in cursor order, with text, vector and flag', async () => {
      if (!store.listPage) return;
      const c = fresh();
      await store.ensureCollection(c, 3);
      const records = Array.from({ length: 23 }, (_, i): VectorRecord => ({ id: uuid(200 + ((i * 7) % 23)), vector: [i + 1, 1, -i], text: `text ${i}` }));
      await store.upsert(c, records);
      await store.setQuarantined(c, [records[4]!.id], true);
      const got: NonNullable<Awaited<ReturnType<NonNullable<typeof store.listPage>>>['records']> = [];
      let after: string | null = null;
      do {
        const page = await store.listPage(c, { after, limit: 5, withVectors: true, withText: true });
        expect(page.records.length).toBeLessThanOrEqual(5);
        got.push(...page.records);
        after = page.next;
      } while (after !== null);
      expect(got.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort());
      for (const r of records) {
        const g = got.find((x) => x.id === r.id)!;
        expect(g.text).toBe(r.text);
        expect(Array.from(g.vector!)).toEqual(f32(r.vector));
        expect(g.quarantined).toBe(r.id === records[4]!.id);
      }
      const bare = await store.listPage(c, { after: null, limit: 100 });
      expect(bare.records).toHaveLength(23);
      expect(bare.next).toBeNull();
    });

    it('deletes permanently and idempotently', async () => {
      const c = await seeded();
      await store.delete(c, [A, C, uuid(999)]);
      await store.delete(c, [A]);
      expect(await store.count(c)).toBe(3);
      expect(await store.fetch(c, [A, C])).toEqual([]);
      expect(ids(await store.search(c, { vector: X, k: 10, includeQuarantined: true }))).toEqual([E, B, D]);
      await store.upsert(c, [small[2]]); // re-insert after delete
      expect(ids(await store.search(c, { vector: X, k: 1 }))).toEqual([A]);
    });

    it('ignores unknown ids everywhere and tolerates missing collections where the port allows', async () => {
      const c = await seeded();
      await expect(store.setQuarantined(c, [uuid(777), 'nope'], true)).resolves.toBeUndefined();
      await expect(store.delete(c, [uuid(777)])).resolves.toBeUndefined();
      expect(await store.fetch(c, [uuid(777), 'nope'])).toEqual([]);
      expect(await store.count(c)).toBe(5);
      const missing = fresh();
      expect(await store.fetch(missing, [A])).toEqual([]);
      await expect(store.setQuarantined(missing, [A], true)).resolves.toBeUndefined();
      await expect(store.delete(missing, [A])).resolves.toBeUndefined();
      await expect(store.search(missing, { vector: X, k: 1 })).rejects.toThrow(CollectionNotFoundError);
      await expect(store.upsert(missing, small)).rejects.toThrow(CollectionNotFoundError);
    });

    it('rejects dimension mismatches', async () => {
      const c = await seeded();
      await expect(store.ensureCollection(c, 4)).rejects.toThrow(DimensionMismatchError);
      await expect(store.upsert(c, [{ id: uuid(50), vector: [1, 2], text: 'x' }])).rejects.toThrow(
        DimensionMismatchError,
      );
      await expect(store.search(c, { vector: [1, 0, 0, 0], k: 1 })).rejects.toThrow(/dimension 4.*dimension 3/);
      await expect(store.searchBatch(c, [{ vector: X, k: 1 }, { vector: [1], k: 1 }])).rejects.toThrow(
        DimensionMismatchError,
      );
      expect(await store.count(c)).toBe(5);
    });

    it('rejects bad collection names with a clear error', async () => {
      for (const bad of ['', 'has space', '../etc', 'dot.name', 'x'.repeat(65), 'ünï']) {
        await expect(store.ensureCollection(bad, 3)).rejects.toThrow(InvalidCollectionNameError);
        await expect(store.search(bad, { vector: X, k: 1 })).rejects.toThrow(/Invalid collection name/);
        await expect(store.count(bad)).rejects.toThrow(InvalidCollectionNameError);
      }
      const longest = `L${'x'.repeat(55)}_${randomUUID().slice(0, 7)}`;
      expect(longest).toHaveLength(64);
      collections.add(longest);
      await expect(store.ensureCollection(longest, 3)).resolves.toBeUndefined();
    });

    it('does not lose concurrent upserts into one collection', async () => {
      const c = fresh();
      await store.ensureCollection(c, 3);
      await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          store.upsert(c, [{ id: uuid(200 + i), vector: [1, i, 0], text: `r${i}`, payload: { i } }]),
        ),
      );
      expect(await store.count(c)).toBe(25);
      const all = await store.search(c, { vector: [1, 0, 0], k: 100 });
      expect(all).toHaveLength(25);
      expect(all[0].id).toBe(uuid(200));
    });

    it('makes writes of one instance visible to the next read of another (two processes)', async () => {
      const writer = store;
      const reader = open();
      const c = fresh();
      await writer.ensureCollection(c, 3);
      await reader.ensureCollection(c, 3); // created elsewhere: just checked
      await writer.upsert(c, small);
      expect(ids(await reader.search(c, { vector: X, k: 2 }))).toEqual([A, E]); // reader caches now
      await writer.upsert(c, [{ id: uuid(6), vector: [1, 0.01, 0], text: 'new' }]);
      expect(ids(await reader.search(c, { vector: X, k: 2 }))).toEqual([A, uuid(6)]);
      await writer.setQuarantined(c, [A], true);
      expect(ids(await reader.search(c, { vector: X, k: 2 }))).toEqual([uuid(6), E]);
      expect((await reader.fetch(c, [A]))[0].quarantined).toBe(true);
      await writer.setQuarantined(c, [A], false);
      expect(ids(await reader.search(c, { vector: X, k: 2 }))).toEqual([A, uuid(6)]);
      await writer.delete(c, [uuid(6)]);
      expect(await reader.fetch(c, [uuid(6)])).toEqual([]);
      expect(await reader.count(c)).toBe(5);
      // and the other way round, after the reader wrote
      await reader.setQuarantined(c, [E], true);
      expect(ids(await writer.search(c, { vector: X, k: 2 }))).toEqual([A, B]);
      await reader.upsert(c, [{ id: uuid(7), vector: [0, 0, 1], text: 'from reader' }]);
      expect((await writer.fetch(c, [uuid(7)]))[0].text).toBe('from reader');
    });

    it('keeps the data across close and reopen', async () => {
      const c = await seeded();
      await store.setQuarantined(c, [D], true);
      const first = open();
      const before = await first.searchBatch(c, [{ vector: X, k: 5, includeQuarantined: true }]);
      await first.close();
      const second = open();
      expect(await second.searchBatch(c, [{ vector: X, k: 5, includeQuarantined: true }])).toEqual(before);
      expect((await second.fetch(c, [D]))[0].quarantined).toBe(true);
      await expect(first.count(c)).rejects.toThrow(/closed/);
    });

    it('similarityPairs (where the store has it): each served record with its nearest served neighbours', async () => {
      if (!store.similarityPairs) return; // optional: cluster-scan falls back to searchBatch (LanceDB)
      const c = await seeded();
      await store.setQuarantined(c, [D], true);
      const pairs = await store.similarityPairs(c, { k: 1, sample: 100 });
      const nearest = new Map(pairs.map((p) => [p.a, p]));
      // Served: A, B, C, E. A's nearest is E (√½), C's nearest is B (0.8); D is quarantined and appears nowhere.
      expect(nearest.get(A)).toMatchObject({ b: E });
      expect(nearest.get(A)!.score).toBeCloseTo(Math.SQRT1_2, 4);
      expect(nearest.get(C)).toMatchObject({ b: B });
      expect(nearest.get(C)!.score).toBeCloseTo(0.8, 4);
      expect(pairs.some((p) => p.a === D || p.b === D)).toBe(false);
    });
  });
}

