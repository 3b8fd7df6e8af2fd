import { randomUUID } from 'node:crypto';
import { decodeScanGraph, encodeScanGraph } from './scan-graph-codec';

describe('scan graph codec', () => {
  it('round-trips UUID and other ids, neighbour order, cosines to 6 decimals and LSH signatures', () => {
    const [a, b, c] = [randomUUID(), randomUUID(), 'Not-A-Uuid ü'];
    const g = new Map([
      [a, { ids: [b, c], scores: [0.912345, -0.25], lsh: [4095, 0, 2 ** 30 - 1] }],
      [b, { ids: [a], scores: [0.912345] }],
      [c, { ids: [], scores: [] }],
    ]);
    const back = decodeScanGraph(encodeScanGraph(g));
    expect([...back.entries()]).toEqual([...g.entries()]);
  });

  it('is compact: 1,000 texts × 20 neighbours in well under 100 bytes per neighbour', () => {
    const ids = Array.from({ length: 1000 }, () => randomUUID());
    const g = new Map(ids.map((id, i) => [id, { ids: Array.from({ length: 20 }, (_, x) => ids[(i + x + 1) % 1000]!), scores: Array.from({ length: 20 }, (_, x) => 1 - x / 100), lsh: Array.from({ length: 24 }, (_, x) => x) }]));
    const buf = encodeScanGraph(g);
    expect(buf.length / 20_000).toBeLessThan(15);
    expect(decodeScanGraph(buf).get(ids[5]!)!.ids[0]).toBe(ids[6]);
  });

  it('refuses what is not a graph', () => {
    expect(() => decodeScanGraph(Buffer.from('nope'))).toThrow(/bad magic/);
  });
});
