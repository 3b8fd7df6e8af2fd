import { randomUUID } from 'node:crypto';
import { ScanGraph } from '@forensics/core';
import { decodeScanGraph, encodeScanGraph } from './scan-graph-codec';

describe('scan graph codec', () => {
  it('round-trips UUID and other ids, neighbour order, cosines (float32) and LSH signatures', () => {
    const [a, b, c] = [randomUUID(), randomUUID(), 'Not-A-Uuid ü'];
    const g = ScanGraph.fromLists([
      [a, { ids: [b, c], scores: [0.912345, -0.25], lsh: [4095, 0, 2 ** 30 - 1] }],
      [b, { ids: [a], scores: [0.912345], lsh: [1, 2, 3] }],
      [c, { ids: [], scores: [], lsh: [0, 0, 0] }],
    ]);
    const back = decodeScanGraph(encodeScanGraph(g));
    expect([...back.entries()]).toEqual([...g.entries()]);
    expect(back.get(a)).toEqual({ ids: [b, c], scores: [0.912345, -0.25], lsh: [4095, 0, 2 ** 30 - 1] });
    expect(Array.from(back.scores)).toEqual(Array.from(g.scores));
  });

  it('keeps neighbours that have no list of their own, and graphs without signatures', () => {
    const g = ScanGraph.fromLists([['a', { ids: ['z', 'b'], scores: [0.1, 0.05] }], ['b', { ids: ['a'], scores: [0.05] }]]);
    const back = decodeScanGraph(encodeScanGraph(g));
    expect(back.size).toBe(2);
    expect(back.get('a')).toEqual({ ids: ['z', 'b'], scores: [0.1, 0.05] });
    expect(back.has('z')).toBe(false);
    expect(back.lshTables).toBe(0);
    expect(decodeScanGraph(encodeScanGraph(ScanGraph.empty())).size).toBe(0);
  });

  it('is compact: 1,000 texts × 20 neighbours in well under 15 bytes per neighbour', () => {
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    const g = ScanGraph.fromLists(ids.map((id, i) => [id, { ids: Array.from({ length: 20 }, (_, x) => ids[(i + x + 1) % 1000]!), scores: Array.from({ length: 20 }, (_, x) => 1 - x / 100), lsh: Array.from({ length: 24 }, (_, x) => x) }]));
    const buf = encodeScanGraph(g);
    expect(buf.length / 20_000).toBeLessThan(15);
    expect(decodeScanGraph(buf).get(ids[5]!)).toMatchObject({ ids: expect.arrayContaining([ids[6]]), lsh: Array.from({ length: 24 }, (_, x) => x) }); // 16-bit signatures
    expect(decodeScanGraph(buf).get(ids[5]!)!.ids[0]).toBe(ids[6]);
  });

  it('reads a graph kept in the first form (SG1: one record per text)', () => {
    // Two ids (a UUID, a plain one); entry 0 lists id 1 at 0.5 with one signature, entry 1 lists nothing.
    const u = '0f0e0d0c-0b0a-4908-8706-050403020100';
    const parts = [
      Buffer.from('SG1', 'latin1'), u32(2), Buffer.from([0]), Buffer.from(u.replace(/-/g, ''), 'hex'), Buffer.from([1, 1, 0]), Buffer.from('x'),
      u32(2), u32(0), Buffer.from([1, 1]), u32(1), f32(0.5), u32(77), u32(1), Buffer.from([0, 0]),
    ];
    const g = decodeScanGraph(Buffer.concat(parts));
    expect([...g.entries()]).toEqual([[u, { ids: ['x'], scores: [0.5] }], ['x', { ids: [], scores: [] }]]);
  });

  it('refuses what is not a graph, and a truncated one', () => {
    expect(() => decodeScanGraph(Buffer.from('nope'))).toThrow(/bad magic/);
    const buf = encodeScanGraph(ScanGraph.fromLists([['a', { ids: ['b'], scores: [0.5] }]]));
    expect(() => decodeScanGraph(buf.subarray(0, buf.length - 3))).toThrow(/truncated/);
  });
});

function u32(n: number): Buffer { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; }
function f32(n: number): Buffer { const b = Buffer.alloc(4); b.writeFloatLE(n); return b; }
