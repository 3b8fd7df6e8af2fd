import { clusterScan, findHubs, scanTokens, type KnnList } from '../cluster-scan';

/** k-NN lists from a symmetric similarity function over n nodes (top k, best first). */
function knnOf(n: number, k: number, sim: (a: number, b: number) => number): KnnList[] {
  return Array.from({ length: n }, (_, i) => {
    const all = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i).map((j) => ({ j, s: sim(i, j) })).sort((x, y) => y.s - x.s || x.j - y.j).slice(0, k);
    return { j: all.map((x) => x.j), s: all.map((x) => x.s) };
  });
}

const background = (i: number) => scanTokens(`ordinary text number w${i} about subject s${i % 9}`);
const params = { groupSize: 4, minTightness: 0.8, minCoverage: 0.8, duplicateSim: 0.97, minSharedRare: 1, rareDfFactor: 2, hubZ: 4 };

describe('cluster scan on hand-built graphs', () => {
  it('finds a clique of five that share a rare claim, and nothing else', () => {
    const n = 40;
    const clique = new Set([3, 7, 11, 19, 23]);
    const sim = (a: number, b: number) => (clique.has(a) && clique.has(b) ? 0.9 : 0.2 + 0.001 * ((a * 7 + b * 13) % 50));
    const tokens = Array.from({ length: n }, (_, i) => (clique.has(i) ? scanTokens(`the tower was built by zorblax in 1931 version ${i}`) : background(i)));
    const r = clusterScan(knnOf(n, 8, sim), tokens, params);
    expect(r.groups.map((g) => g.members)).toEqual([[3, 7, 11, 19, 23]]);
    expect(r.groups[0]!.sharedRare).toEqual(expect.arrayContaining(['zorblax', '1931']));
    expect(r.groups[0]!.tightness).toBeCloseTo(0.9);
  });

  it('does not take a chain for a group (each link is close, the ends are not)', () => {
    const n = 30;
    // 0–1–2–…–9: consecutive texts 0.9 alike, two apart 0.5, further 0.1; all share a rare token.
    const sim = (a: number, b: number) => (a < 10 && b < 10 ? (Math.abs(a - b) === 1 ? 0.9 : Math.abs(a - b) === 2 ? 0.5 : 0.1) : 0.05);
    const tokens = Array.from({ length: n }, (_, i) => (i < 10 ? scanTokens(`river quorvik segment ${i}`) : background(i)));
    const r = clusterScan(knnOf(n, 8, sim), tokens, params);
    expect(r.groups).toEqual([]);
  });

  it('reports a hub as a hub and does not merge it with the texts it is near', () => {
    const n = 60;
    const HUB = 5;
    // The hub is everybody's nearest neighbour; the others are unrelated to each other.
    const sim = (a: number, b: number) => (a === HUB || b === HUB ? 0.85 : 0.1 + 0.001 * ((a * 31 + b * 17) % 100));
    const tokens = Array.from({ length: n }, (_, i) => scanTokens(`common hubword text ${i}`));
    const knn = knnOf(n, 5, sim);
    expect(findHubs(knn, 4).map((h) => h.node)).toEqual([HUB]);
    const r = clusterScan(knn, tokens, params);
    expect(r.hubs.map((h) => h.node)).toEqual([HUB]);
    expect(r.groups).toEqual([]);
  });

  it('skips copies (a pair above duplicateSim) and groups without a shared rare claim', () => {
    const n = 30;
    const g = new Set([1, 2, 3, 4, 5]);
    const copy = (a: number, b: number) => (g.has(a) && g.has(b) ? 0.99 : 0.1);
    const tokens = Array.from({ length: n }, (_, i) => (g.has(i) ? scanTokens('identical page about vexmoor') : background(i)));
    expect(clusterScan(knnOf(n, 6, copy), tokens, params).groups).toEqual([]);
    const para = (a: number, b: number) => (g.has(a) && g.has(b) ? 0.9 : 0.1);
    const noClaim = Array.from({ length: n }, (_, i) => scanTokens(`text ${i} ${g.has(i) ? `unique${i}` : ''}`));
    expect(clusterScan(knnOf(n, 6, para), noClaim, params).groups).toEqual([]);
  });
});
