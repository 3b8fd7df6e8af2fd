import { LshIndex } from '../lsh-knn';

function rng(seed: number) { let s = seed; return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; }; }
const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

describe('LSH k-NN for the scan', () => {
  it('finds planted near-duplicates among random vectors, and new texts added later find their old near-duplicates', () => {
    const r = rng(3);
    const dim = 64;
    const vecs: Float32Array[] = [];
    for (let i = 0; i < 2000; i++) vecs.push(Float32Array.from({ length: dim }, () => gauss(r)));
    // 20 groups of 4 near-duplicates (cos ≈ 0.95) of random bases.
    const groups: number[][] = [];
    for (let g = 0; g < 20; g++) {
      const base = Float32Array.from({ length: dim }, () => gauss(r));
      const members: number[] = [];
      for (let m = 0; m < 4; m++) { members.push(vecs.length); vecs.push(Float32Array.from(base, (x) => x + 0.3 * gauss(r))); }
      groups.push(members);
    }
    const index = new LshIndex(dim);
    index.add(vecs.slice(0, 2040));
    const lists = index.knn(Array.from({ length: 2080 }, (_, i) => i).slice(2000, 2040), 3);
    let found = 0, total = 0;
    lists.forEach((l, x) => {
      const i = 2000 + x;
      const group = groups.find((g) => g.includes(i))!.filter((j) => j !== i && j < 2040);
      total += group.length;
      found += group.filter((j) => l.j.includes(j)).length;
    });
    expect(found / total).toBeGreaterThan(0.9);
    // Incremental: the rest of the groups' members arrive later.
    const added = index.add(vecs.slice(2040));
    const later = index.knn(added, 3);
    const lateFound = later.reduce((a, l, x) => a + groups.find((g) => g.includes(2040 + x))!.filter((j) => j !== 2040 + x && l.j.includes(j)).length, 0);
    expect(lateFound / (later.length * 3)).toBeGreaterThan(0.9);
    // Random vectors are rarely each other's neighbours at high similarity.
    const randomLists = index.knn([0, 1, 2, 3, 4], 3);
    for (const l of randomLists) for (const s of l.s) expect(s).toBeLessThan(0.6);
  });

  it('re-adding vectors with their kept signatures gives the same buckets and lists without projecting them again', () => {
    const r = rng(5);
    const dim = 32;
    const vecs = Array.from({ length: 500 }, () => Float32Array.from({ length: dim }, () => gauss(r)));
    const a = new LshIndex(dim);
    a.add(vecs);
    const kept = vecs.map((_, i) => [...a.signatureOf(i)]);
    const b = new LshIndex(dim);
    // A signature of the wrong length is ignored (computed again), so a corrupt row cannot break the index.
    b.add(vecs, kept.map((sg, i) => (i === 7 ? sg.slice(1) : sg)));
    expect([...b.signatureOf(7)]).toEqual(kept[7]);
    const ids = [0, 7, 100, 499];
    expect(b.knn(ids, 5)).toEqual(a.knn(ids, 5));
    // Given signatures are used as they are: a wrong one moves the vector into other buckets.
    const c = new LshIndex(dim);
    c.add(vecs, kept.map((sg) => sg.map((x) => x ^ 1)));
    expect([...c.signatureOf(0)]).not.toEqual(kept[0]);
  });
});
