/**
 * Corpus-wide scan for planted groups (issue 12, `cluster-scan`), with no report at all.
 *
 * Texts written for one target are paraphrases of each other: each one's nearest neighbours are
 * the others, and they all state the same rare claim (the target answer). Following CleanBase
 * (cliques in a k-NN similarity graph) and HubScan (hubs), on the k-NN lists the store returns:
 *
 *  - a **local clique** around every text i: i and its m nearest neighbours. It is a candidate
 *    group when the pairs' similarities are known from the lists (coverage: most pairs appear in
 *    each other's k-NN lists — mutual closeness, which a chain a–b–c–d does not have) and all of
 *    them are high (tightness = the smallest pair similarity);
 *  - near-exact copies (a pair above `duplicateSim`) are not a planted group: corpora hold copies
 *    of the same page; planted texts are paraphrases;
 *  - **shared rare tokens**: tokens every member contains and that occur in few texts of the whole
 *    corpus (document frequency ≤ `rareDfFactor` × group size) — the answer-like claim a planted
 *    group shares. Generic: nothing about any attack's wording;
 *  - candidate groups that share members are merged into one finding;
 *  - **hubs**: texts in far more k-NN lists than the average (in-degree z-score), reported as hubs,
 *    never merged into groups.
 *
 * Pure: the caller supplies the k-NN lists (the vector store's own search) and token sets.
 */
export interface KnnList {
  /** Neighbour indexes into the node array, best first, without the node itself. */
  j: number[];
  /** Cosine similarities, aligned with `j`. */
  s: number[];
}

export interface ClusterScanParams {
  /** Neighbours per local clique (group size m + 1). */
  groupSize: number;
  /** Smallest pair similarity inside a candidate group. */
  minTightness: number;
  /** Share of a group's pairs that must appear in each other's k-NN lists. */
  minCoverage: number;
  /** A pair above this is a copy, not a paraphrase: the group is not a candidate. */
  duplicateSim: number;
  /** Tokens every member states that are rare in the corpus. */
  minSharedRare: number;
  /** Rare = document frequency ≤ rareDfFactor × group size. */
  rareDfFactor: number;
  /** Hub: in-degree z-score at least this. */
  hubZ: number;
}

export const DEFAULT_CLUSTER_SCAN_PARAMS: Readonly<ClusterScanParams> = Object.freeze({
  groupSize: 4, minTightness: 0.75, minCoverage: 0.8, duplicateSim: 0.97, minSharedRare: 2, rareDfFactor: 2, hubZ: 6,
});

export interface ScanGroup {
  /** Node indexes, sorted. */
  members: number[];
  /** Smallest tightness of the local cliques merged into this group. */
  tightness: number;
  coverage: number;
  /** Rare tokens shared by every member of at least one merged clique. */
  sharedRare: string[];
  /** In [0,1]: the tightness (the swept threshold); 0 when the group fails a structural test. */
  score: number;
}

export interface ScanHub { node: number; inDegree: number; z: number }

export interface ClusterScanResult { groups: ScanGroup[]; hubs: ScanHub[]; candidates: number }

const STOP = new Set('the a an of and or to in on at for by with from is are was were be been it its this that as which who whom what when where how than then there their they he she his her not no yes'.split(' '));

/** Lower-cased word tokens without stop words (the shared-claim test's vocabulary). */
export function scanTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (!STOP.has(w)) out.add(w);
  return out;
}

export function validateClusterScanParams(p: Partial<ClusterScanParams> = {}): ClusterScanParams {
  const v = { ...DEFAULT_CLUSTER_SCAN_PARAMS, ...p };
  if (!Number.isInteger(v.groupSize) || v.groupSize < 2 || v.groupSize > 50) throw new RangeError('groupSize must be an integer in [2, 50]');
  for (const k of ['minTightness', 'minCoverage', 'duplicateSim'] as const) if (!(v[k] >= -1 && v[k] <= 1)) throw new RangeError(`${k} must be in [-1, 1]`);
  if (!(v.minSharedRare >= 0) || !(v.rareDfFactor > 0) || !Number.isFinite(v.hubZ)) throw new RangeError('minSharedRare ≥ 0, rareDfFactor > 0, hubZ finite');
  return v;
}

/**
 * Candidate local cliques of every node (before the tightness threshold, which callers sweep):
 * each with its tightness, coverage, copies, shared rare tokens.
 */
export function localCliques(knn: readonly KnnList[], tokens: readonly ReadonlySet<string>[], params: Partial<ClusterScanParams> = {}) {
  const p = validateClusterScanParams(params);
  const n = knn.length;
  const df = new Map<string, number>();
  for (const t of tokens) for (const w of t) df.set(w, (df.get(w) ?? 0) + 1);
  const sim = (a: number, b: number): number | undefined => {
    const la = knn[a]!;
    const ia = la.j.indexOf(b);
    if (ia >= 0) return la.s[ia];
    const lb = knn[b]!;
    const ib = lb.j.indexOf(a);
    return ib >= 0 ? lb.s[ib] : undefined;
  };
  const out: { members: number[]; tightness: number; coverage: number; copies: number; sharedRare: string[] }[] = [];
  for (let i = 0; i < n; i++) {
    const members = [i, ...knn[i]!.j.slice(0, p.groupSize)];
    if (members.length < p.groupSize + 1) continue;
    let known = 0, pairs = 0, copies = 0, tightness = 1;
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        pairs++;
        const s = sim(members[x]!, members[y]!);
        if (s === undefined) continue;
        known++;
        if (s > p.duplicateSim) copies++;
        if (s < tightness) tightness = s;
      }
    }
    const coverage = known / pairs;
    const rareMax = p.rareDfFactor * members.length;
    const first = tokens[members[0]!]!;
    const sharedRare: string[] = [];
    for (const w of first) {
      if ((df.get(w) ?? 0) > rareMax) continue;
      if (members.every((m) => tokens[m]!.has(w))) sharedRare.push(w);
    }
    out.push({ members: members.sort((a, b) => a - b), tightness: known ? tightness : 0, coverage, copies, sharedRare });
  }
  return out;
}

/** Groups above `minTightness` that pass the structural tests, merged when they share members; and hubs. */
export function clusterScan(knn: readonly KnnList[], tokens: readonly ReadonlySet<string>[], params: Partial<ClusterScanParams> = {}): ClusterScanResult {
  const p = validateClusterScanParams(params);
  const cliques = localCliques(knn, tokens, p);
  const hubs = findHubs(knn, p.hubZ);
  const hubSet = new Set(hubs.map((h) => h.node));
  const kept = cliques.filter((c) => c.coverage >= p.minCoverage && c.copies === 0 && c.sharedRare.length >= p.minSharedRare && c.tightness >= p.minTightness
    && !c.members.some((m) => hubSet.has(m)));
  // Merge cliques that share members (union–find over nodes).
  const parent = new Map<number, number>();
  const find = (x: number): number => { let r = x; while (parent.get(r) !== r) r = parent.get(r)!; parent.set(x, r); return r; };
  for (const c of kept) for (const m of c.members) if (!parent.has(m)) parent.set(m, m);
  for (const c of kept) for (const m of c.members.slice(1)) { const a = find(c.members[0]!), b = find(m); if (a !== b) parent.set(b, a); }
  const byRoot = new Map<number, ScanGroup>();
  for (const c of kept) {
    const root = find(c.members[0]!);
    const g = byRoot.get(root) ?? { members: [], tightness: 1, coverage: 1, sharedRare: [], score: 0 };
    g.members = [...new Set([...g.members, ...c.members])].sort((a, b) => a - b);
    g.tightness = Math.min(g.tightness, c.tightness);
    g.coverage = Math.min(g.coverage, c.coverage);
    g.sharedRare = [...new Set([...g.sharedRare, ...c.sharedRare])].sort();
    g.score = g.tightness;
    byRoot.set(root, g);
  }
  const groups = [...byRoot.values()].sort((a, b) => b.score - a.score || a.members[0]! - b.members[0]!);
  return { groups, hubs, candidates: kept.length };
}

/** Nodes whose in-degree (appearances in others' k-NN lists) is `z` standard deviations above the mean. */
export function findHubs(knn: readonly KnnList[], z: number): ScanHub[] {
  const n = knn.length;
  if (n < 3) return [];
  const deg = new Float64Array(n);
  for (const l of knn) for (const j of l.j) deg[j]! += 1;
  let mean = 0;
  for (const d of deg) mean += d;
  mean /= n;
  let v = 0;
  for (const d of deg) v += (d - mean) ** 2;
  const sd = Math.sqrt(v / n) || 1;
  const hubs: ScanHub[] = [];
  for (let i = 0; i < n; i++) {
    const zi = (deg[i]! - mean) / sd;
    if (zi >= z) hubs.push({ node: i, inDegree: deg[i]!, z: +zi.toFixed(2) });
  }
  return hubs.sort((a, b) => b.z - a.z);
}
