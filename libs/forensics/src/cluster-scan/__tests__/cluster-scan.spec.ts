import { clusterScan, findHubs, localCandidates, scanDoc, validateClusterScanParams, type KnnList } from '../cluster-scan';

/** k-NN lists from a symmetric similarity function over n nodes (top k, best first). */
function knnOf(n: number, k: number, sim: (a: number, b: number) => number): KnnList[] {
  return Array.from({ length: n }, (_, i) => {
    const all = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i).map((j) => ({ j, s: sim(i, j) })).sort((x, y) => y.s - x.s || x.j - y.j).slice(0, k);
    return { j: all.map((x) => x.j), s: all.map((x) => x.s) };
  });
}

/** A small deterministic jitter so no two similarities tie. */
const jitter = (a: number, b: number) => 0.001 * ((a * 7 + b * 13 + a * b) % 37);
const background = (i: number) => scanDoc(`ordinary text number w${i} about subject s${i % 9}`);
const params = { minTightness: 0.8, minMargin: 0.1, hubZ: 4 };

describe('cluster scan on hand-built graphs', () => {
  it('finds a clique of five that states a claim nothing around it states, and nothing else', () => {
    const n = 40;
    const clique = new Set([3, 7, 11, 19, 23]);
    const sim = (a: number, b: number) => (clique.has(a) && clique.has(b) ? 0.9 : 0.2 + jitter(a, b));
    const docs = Array.from({ length: n }, (_, i) => (clique.has(i) ? scanDoc(`The tower was built by Zorblax in 1931, version ${i}.`) : background(i)));
    const r = clusterScan(knnOf(n, 20, sim), docs, params);
    expect(r.groups.map((g) => g.members)).toEqual([[3, 7, 11, 19, 23]]);
    expect(r.groups[0]!.claims.map((t) => t.token)).toEqual(expect.arrayContaining(['zorblax', '1931']));
    expect(r.groups[0]!.claims.find((t) => t.token === 'zorblax')).toMatchObject({ share: 0, answerLike: true });
    expect(r.groups[0]!.tightness).toBeCloseTo(0.9);
  });

  it('local contrast: of two equally tight groups in one topic, flags the one stating a claim its neighbourhood does not, not the one sharing only topic words', () => {
    // 40 texts on one topic (episodes of a TV season, each with its own episode count); two tight groups of 5 inside it.
    const n = 40;
    const A = new Set([0, 1, 2, 3, 4]); // all state "24 episodes", which no other text states
    const B = new Set([5, 6, 7, 8, 9]); // share only the topic's words, which the whole neighbourhood states
    const sim = (a: number, b: number) => ((A.has(a) && A.has(b)) || (B.has(a) && B.has(b)) ? 0.9 + jitter(a, b) : 0.6 + jitter(a, b));
    const texts = Array.from({ length: n }, (_, i) => (A.has(i)
      ? `Season four of Chicago Fire has 24 episodes, account ${i}q.`
      : B.has(i)
        ? `The episodes of the Chicago Fire season, k${i}z.`
        : `Chicago Fire season ${i} aired ${100 + i} episodes over the season, source r${i}.`));
    const docs = texts.map(scanDoc);
    const knn = knnOf(n, 20, sim);
    const r = clusterScan(knn, docs, params);
    expect(r.groups.map((g) => g.members)).toEqual([[0, 1, 2, 3, 4]]);
    const claims = r.groups[0]!.claims.map((t) => t.token);
    expect(claims).toContain('24');
    expect(claims).not.toContain('chicago'); // a topic word: stated around the group too
    expect(r.groups[0]!.topics).toEqual(expect.arrayContaining(['chicago', 'episodes', 'fire', 'season']));
    // B is a candidate only in structure: every token its members share is stated by most of its neighbourhood.
    const forB = localCandidates(knn, docs, { ...params, maxClaimShare: 1 }).filter((c) => c.members.every((m) => B.has(m)));
    expect(forB.length).toBeGreaterThan(0);
    expect(Math.min(...forB.flatMap((c) => c.claims.map((t) => t.share)))).toBeGreaterThan(0.5);
  });

  it('does not take a chain for a group (each link is close, the ends are not)', () => {
    const n = 30;
    // 0–1–2–…–9: consecutive texts 0.9 alike, two apart 0.5, further 0.1; all share a rare token.
    const sim = (a: number, b: number) => (a < 10 && b < 10 ? (Math.abs(a - b) === 1 ? 0.9 : Math.abs(a - b) === 2 ? 0.5 : 0.1) : 0.05 + jitter(a, b));
    const docs = Array.from({ length: n }, (_, i) => (i < 10 ? scanDoc(`river quorvik segment ${i}`) : background(i)));
    expect(clusterScan(knnOf(n, 20, sim), docs, params).groups).toEqual([]);
  });

  it('reports a hub as a hub and does not merge it with the texts it is near', () => {
    const n = 60;
    const HUB = 5;
    // The hub is everybody's nearest neighbour; the others are unrelated to each other.
    const sim = (a: number, b: number) => (a === HUB || b === HUB ? 0.85 : 0.1 + 0.001 * ((a * 31 + b * 17) % 100));
    const docs = Array.from({ length: n }, (_, i) => scanDoc(`common hubword text ${i}`));
    const knn = knnOf(n, 5, sim);
    expect(findHubs(knn, 4).map((h) => h.node)).toEqual([HUB]);
    const r = clusterScan(knn, docs, params);
    expect(r.hubs.map((h) => h.node)).toEqual([HUB]);
    expect(r.groups).toEqual([]);
  });

  it('skips copies (a pair above duplicateSim, or sharing a long verbatim run) and groups without a claim of their own', () => {
    const n = 30;
    const g = new Set([1, 2, 3, 4, 5]);
    const copy = (a: number, b: number) => (g.has(a) && g.has(b) ? 0.99 : 0.1 + jitter(a, b));
    const same = Array.from({ length: n }, (_, i) => (g.has(i) ? scanDoc('identical page about vexmoor') : background(i)));
    expect(clusterScan(knnOf(n, 20, copy), same, params).groups).toEqual([]);
    const para = (a: number, b: number) => (g.has(a) && g.has(b) ? 0.9 : 0.1 + jitter(a, b));
    // Revisions of one page: the same lead sentence (12+ words), different continuations.
    const lead = 'The Vexmoor Almanac is a reference book published every year with a collection of records';
    const revisions = Array.from({ length: n }, (_, i) => (g.has(i) ? scanDoc(`${lead}; revision ${i} adds section q${i}x.`) : background(i)));
    expect(clusterScan(knnOf(n, 20, para), revisions, params).groups).toEqual([]);
    expect(clusterScan(knnOf(n, 20, para), revisions, { ...params, copyRun: 0 }).groups.map((x) => x.members)).toEqual([[1, 2, 3, 4, 5]]);
    const noClaim = Array.from({ length: n }, (_, i) => scanDoc(`text ${i} ${g.has(i) ? `unique${i}` : ''}`));
    expect(clusterScan(knnOf(n, 20, para), noClaim, params).groups).toEqual([]);
  });

  it('uses exact similarities from the vectors when given', () => {
    // Five texts around one direction (e0 plus their own small offset: cosine 1 / (1 + 0.45²) ≈ 0.83 to each other)
    // among others spread over ten further directions; 16-d, not normalised (the scan normalises).
    const n = 30;
    const vec = (i: number) => Float32Array.from({ length: 16 }, (_, d) => (i < 5 ? (d === 0 ? 2 : d === 1 + i ? 0.9 : 0) : d === 6 + (i % 10) ? 1 : d === 6 + ((i + 3) % 10) ? 0.3 : 0));
    const vectors = Array.from({ length: n }, (_, i) => vec(i));
    const cos = (a: number, b: number) => {
      let s = 0, x = 0, y = 0;
      for (let d = 0; d < 16; d++) { s += vectors[a]![d]! * vectors[b]![d]!; x += vectors[a]![d]! ** 2; y += vectors[b]![d]! ** 2; }
      return s / Math.sqrt(x * y) + jitter(a, b) * 1e-3;
    };
    const docs = Array.from({ length: n }, (_, i) => (i < 5 ? scanDoc(`The bridge opened in 1874 under Quellin, note ${i}.`) : background(i)));
    const r = clusterScan(knnOf(n, 20, cos), docs, params, vectors);
    expect(r.groups.map((g) => g.members)).toEqual([[0, 1, 2, 3, 4]]);
    expect(r.groups[0]!.coverage).toBe(1);
    expect(r.groups[0]!.tightness).toBeCloseTo(1 / (1 + 0.45 ** 2), 5); // exact, from the vectors (the lists carry a jitter)
  });
});

describe('cluster scan parameters and tokens', () => {
  it('refuses bad parameters with the parameter named', () => {
    expect(() => validateClusterScanParams({ groupSize: 1 })).toThrow(/groupSize/);
    expect(() => validateClusterScanParams({ searchNeighbours: 3, groupSize: 4 })).toThrow(/searchNeighbours must be at least groupSize/);
    expect(() => validateClusterScanParams({ maxClaimShare: 1.5 })).toThrow(/maxClaimShare must be in \[0, 1\]/);
    expect(() => validateClusterScanParams({ copyRun: 2.5 })).toThrow(/copyRun/);
    expect(() => validateClusterScanParams({ minMargin: Number.NaN })).toThrow(/minMargin/);
    expect(() => validateClusterScanParams({ answerLike: 'yes' as unknown as boolean })).toThrow(/answerLike/);
    expect(() => validateClusterScanParams({ maxLengthCv: -1 })).toThrow(/maxLengthCv/);
    expect(validateClusterScanParams({ maxLengthCv: Infinity }).maxLengthCv).toBe(Infinity);
  });

  it('scanDoc: numbers and names inside a sentence are answer-like; sentence-initial capitals and stop words are not', () => {
    const d = scanDoc('The fourth season has 24 episodes. Filming moved to Chicago in May, said Dick Wolf.');
    expect(d.tokens.has('the')).toBe(false);
    expect([...d.answerLike].sort()).toEqual(['24', 'chicago', 'dick', 'may', 'wolf']);
    expect(d.words).toBe(15);
    expect(d.seq.slice(0, 3)).toEqual(['the', 'fourth', 'season']);
  });
});
