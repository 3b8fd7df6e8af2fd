/**
 * Embedded vector store benchmark: 10,000 random unit vectors of 384 dims, BiRD-shaped load
 * (21 searches per event, each query a stored vector, k = 21, excluding itself).
 * Run: npx tsx bench/vector-store.bench.ts [N] [DIM]     — prints one JSON object.
 */
import { mulberry32 } from '@forensics/algorithms';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import type { SearchRequest, VectorRecord } from '../libs/core/src/ports/vector-store.port';
import { LanceDbVectorStore } from '../libs/infra/src/vector-store/lancedb-vector-store.adapter';

const N = Number(process.argv[2] ?? 10_000);
const DIM = Number(process.argv[3] ?? 384);
const BATCH = 21;
const K = 21;

const rng = mulberry32;

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean: +mean.toFixed(3), p50: +s[Math.floor(s.length / 2)].toFixed(3), p95: +s[Math.floor(s.length * 0.95)].toFixed(3) };
};

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const out = await fn();
  return [performance.now() - t0, out];
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vector-store-bench-'));
  const rand = rng(7);
  const records: VectorRecord[] = Array.from({ length: N }, (_, i) => {
    const v = new Float32Array(DIM);
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      v[d] = rand() * 2 - 1;
      norm += v[d] * v[d];
    }
    for (let d = 0; d < DIM; d++) v[d] /= Math.sqrt(norm);
    return { id: uuid(i + 1), vector: v, text: `text ${i}`, payload: { externalId: `doc-${i}` } };
  });
  const store = new LanceDbVectorStore({ dir });
  const other = new LanceDbVectorStore({ dir }); // a second "process" on the same directory
  try {
    await store.ensureCollection('bench', DIM);
    const [upsertMs] = await time(() => store.upsert('bench', records));

    const event = (e: number): SearchRequest[] =>
      Array.from({ length: BATCH }, (_, j) => {
        const r = records[(e * 997 + j * 131) % N];
        return { vector: r.vector, k: K, excludeIds: [r.id] };
      });

    const [coldLoadMs] = await time(() => store.search('bench', event(0)[0]));
    for (let e = 0; e < 5; e++) await store.searchBatch('bench', event(e)); // warm-up

    const single: number[] = [];
    for (let e = 0; e < 50; e++) single.push((await time(() => store.search('bench', event(e)[e % BATCH])))[0]);
    const batch: number[] = [];
    for (let e = 0; e < 30; e++) batch.push((await time(() => store.searchBatch('bench', event(e))))[0]);
    const sequential: number[] = [];
    for (let e = 0; e < 5; e++) {
      const reqs = event(e);
      sequential.push((await time(async () => { for (const r of reqs) await store.search('bench', r); }))[0]);
    }

    // own write: patched in place, next search stays fast
    const [quarantineMs] = await time(() => store.setQuarantined('bench', [records[3].id], true));
    const [afterOwnWriteMs] = await time(() => store.searchBatch('bench', event(1)));
    // another process's write: next search reloads the snapshot
    const [otherWriteMs] = await time(() => other.setQuarantined('bench', [records[3].id], false));
    const [afterOtherWriteMs] = await time(() => store.searchBatch('bench', event(2)));

    // reference: plain LanceDB filtered vector search (what the snapshot replaces)
    const conn = await lancedb.connect(dir, { readConsistencyInterval: 0 });
    const table = await conn.openTable('bench');
    const plain: number[] = [];
    for (let e = 0; e < 10; e++) {
      const r = event(e)[0];
      plain.push(
        (
          await time(() =>
            table
              .vectorSearch(Array.from(r.vector))
              .distanceType('cosine')
              .where(`(quarantined IS NULL OR quarantined = false) AND id <> '${r.excludeIds?.[0]}'`)
              .limit(K)
              .toArray(),
          )
        )[0],
      );
    }
    table.close();
    conn.close();

    const mem = process.memoryUsage();
    console.log(
      JSON.stringify(
        {
          corpus: { n: N, dim: DIM, kind: 'random unit vectors' },
          node: process.version,
          upsertAllMs: +upsertMs.toFixed(1),
          coldSnapshotLoadPlusFirstSearchMs: +coldLoadMs.toFixed(1),
          msPerSearch: stats(single),
          msPer21SearchBatch: stats(batch),
          msPer21SequentialSearches: stats(sequential),
          setQuarantinedMs: +quarantineMs.toFixed(1),
          batchAfterOwnWriteMs: +afterOwnWriteMs.toFixed(1),
          otherProcessWriteMs: +otherWriteMs.toFixed(1),
          batchAfterOtherProcessWriteMs: +afterOtherWriteMs.toFixed(1),
          plainLanceDbFilteredSearchMs: stats(plain),
          rssMb: Math.round(mem.rss / 1e6),
        },
        null,
        2,
      ),
    );
  } finally {
    await store.close();
    await other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
