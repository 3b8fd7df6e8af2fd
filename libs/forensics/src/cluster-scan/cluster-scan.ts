/**
 * Corpus-wide scan for planted groups (issue 12, `cluster-scan`), with no report at all.
 *
 * Texts written for one target are paraphrases that all assert the SAME specific claim (the target
 * answer). The genuine texts around the same topic are often just as close to each other in the
 * embedding (measured: a question's clean texts are as tight a group as its poisons with the default
 * encoder), and the planted claim is not rare corpus-wide (a year, a common name). So the contrast is
 * LOCAL: a group is suspicious when every member states something its own topic neighbourhood does
 * not. On the k-NN lists the store returns (CleanBase: groups in a k-NN graph; HubScan: hubs):
 *
 *  - **token-anchored local groups**: for every text i (the anchor) and every token w it states, the
 *    `groupSize` nearest of i's `searchNeighbours` nearest neighbours that also state w, with i. A
 *    paraphrase group is found from any of its members through the claim they share, even when a
 *    genuine text sits between them in the embedding;
 *  - the group's **topic neighbourhood** N: the union of its members' `contextNeighbours` nearest
 *    neighbours, minus the group;
 *  - **claim tokens**: stated by every member and by at most `maxClaimShare` of N; **topic tokens**:
 *    stated by every member and by at least `minTopicShare` of N (the group is about what its
 *    neighbourhood is about). `claimGivenTopic`: of the texts of N that state every topic token, the
 *    share that state a claim token — the neighbourhood discusses the same thing and does not say it;
 *  - **answer-like** claims (optional gate): a number, or a word capitalised inside a sentence in
 *    every member (a name);
 *  - structural tests: tightness (smallest pair similarity), coverage (pairs whose similarity is
 *    known, when no vectors are given), no copies (near-exact copies of one page are revisions, not a
 *    planted group: any pair above `duplicateSim`), length homogeneity (`maxLengthCv`: coefficient of
 *    variation of the members' word counts);
 *  - candidate groups that pass and share members are merged into one finding;
 *  - **hubs**: texts in far more k-NN lists than the average (in-degree z-score), reported as hubs,
 *    never merged into groups.
 *
 * Generic: nothing about any attack's wording, no phrase lists, no question. Defaults: see
 * DEFAULT_CLUSTER_SCAN_PARAMS (chosen leave-one-file-out on the development files).
 * Pure: the caller supplies the k-NN lists (the vector store's own search), the texts' tokens
 * (`scanDoc`) and optionally the vectors (exact pair similarities).
 */
export interface KnnList {
  /** Neighbour indexes into the node array, best first, without the node itself. */
  j: number[];
  /** Cosine similarities, aligned with `j`. */
  s: number[];
}

export interface ClusterScanParams {
  /** Members besides the anchor (group size m + 1). */
  groupSize: number;
  /** The anchor's nearest neighbours among which its group is sought. */
  searchNeighbours: number;
  /** Each member's nearest neighbours that form the group's topic neighbourhood. */
  contextNeighbours: number;
  /** Smallest pair similarity inside a candidate group. */
  minTightness: number;
  /** Share of a group's pairs whose similarity is known (only without vectors: from the k-NN lists). */
  minCoverage: number;
  /** A pair above this is a copy, not a paraphrase: the group is not a candidate. */
  duplicateSim: number;
  /** A pair sharing a run of this many consecutive words is a copy too (one page's revisions, a lead paragraph repeated); 0 = no such test. */
  copyRun: number;
  /** Claim token: stated by every member and by at most this share of the topic neighbourhood. */
  maxClaimShare: number;
  /** Topic token: stated by every member and by at least this share of the topic neighbourhood. */
  minTopicShare: number;
  /** Claim tokens a group must share. */
  minClaims: number;
  /** Topic tokens a group must share (0 = no topic test). */
  minTopics: number;
  /** Texts of the neighbourhood stating every topic token needed (0 = no such test). */
  minTopicTexts: number;
  /** Of those, the largest share that may state a claim token (1 = no such test). */
  maxClaimGivenTopic: number;
  /** Claims must include an answer-like token (a number, or a name: capitalised inside a sentence in every member). */
  answerLike: boolean;
  /** Largest coefficient of variation of the members' word counts (Infinity = no test). */
  maxLengthCv: number;
  /** Cohesion against separation: mean pair similarity inside the group minus the members' mean similarity to their topic neighbourhood. */
  minMargin: number;
  /** Hub: in-degree z-score at least this. */
  hubZ: number;
}

/**
 * Defaults chosen leave-one-file-out on the three development files (one collection per file: every
 * question's clean texts + its 5 poisons, default encoder; `npx tsx scripts/scan-research.ts eval`):
 * gates fitted over minTightness × minMargin × copyRun on two files (highest worst-file recall at
 * ≤ 1 flagged benign text per 1,000 on each), measured on the third. All three folds chose this point
 * (minTightness 0.8, minMargin 0.1, copyRun 12); held out: recall 0.20 at 0.19 benign/1k
 * (poisonedrag_nq), 0.35 at 0.92 (poisonedrag_hotpotqa), 0.28 at 0.99 (robustrag_realtimeqa) —
 * far below issue 12's target (≥ 0.90 at ≤ 1/1k). groupSize 4 (groups of 5), searchNeighbours 10,
 * contextNeighbours 20, maxClaimShare 0.05 and duplicateSim 0.95 were fixed before the fit. The
 * topic, answer-like and length gates are off: they did not help held out (README, Audits).
 */
export const DEFAULT_CLUSTER_SCAN_PARAMS: Readonly<ClusterScanParams> = Object.freeze({
  groupSize: 4, searchNeighbours: 10, contextNeighbours: 20, minTightness: 0.8, minCoverage: 0.8, duplicateSim: 0.95, copyRun: 12,
  maxClaimShare: 0.05, minTopicShare: 0.2, minClaims: 1, minTopics: 0, minTopicTexts: 0, maxClaimGivenTopic: 1, answerLike: false,
  maxLengthCv: Infinity, minMargin: 0.1, hubZ: 6,
});

/** A token stated by every member of a group, with the share of its topic neighbourhood that states it. */
export interface LocalToken { token: string; share: number; answerLike: boolean }

/** One token-anchored local group with everything the gates test. */
export interface ScanCandidate {
  /** Node indexes, sorted. */
  members: number[];
  anchor: number;
  tightness: number;
  maxSim: number;
  coverage: number;
  /** Size of the topic neighbourhood N. */
  neighbourhood: number;
  claims: LocalToken[];
  topics: LocalToken[];
  /** Texts of N stating every topic token. */
  topicTexts: number;
  /** Of those, the share stating a claim token (1 when there are none). */
  claimGivenTopic: number;
  lengthCv: number;
  /** Member pairs sharing a run of `copyRun` consecutive words (copies). */
  copyPairs: number;
  /** Mean pair similarity inside the group minus the members' mean similarity to N. */
  margin: number;
}

export interface ScanGroup {
  /** Node indexes, sorted. */
  members: number[];
  /** Smallest tightness of the local groups merged into this group. */
  tightness: number;
  coverage: number;
  /** Smallest cohesion margin of the merged local groups. */
  margin: number;
  /** Claim tokens of the merged local groups (the smallest share of each). */
  claims: LocalToken[];
  /** Topic tokens of the merged local groups. */
  topics: string[];
  /** In [0,1]: 1 − (smallest claim share ÷ maxClaimShare) averaged with tightness; orders findings. */
  score: number;
}

export interface ScanHub { node: number; inDegree: number; z: number }

export interface ClusterScanResult { groups: ScanGroup[]; hubs: ScanHub[]; candidates: number }

/** What the scan reads of a text: its tokens, the answer-like ones among them, its length in words. */
export interface ScanDoc {
  tokens: ReadonlySet<string>;
  answerLike: ReadonlySet<string>;
  /** Length in words. */
  words: number;
  /** The lower-cased words in order, stop words included (the verbatim-copy test). */
  seq: readonly string[];
}

const STOP = new Set('the a an of and or to in on at for by with from is are was were be been it its this that as which who whom what when where how than then there their they he she his her not no yes'.split(' '));

const keep = (w: string) => !STOP.has(w) && (w.length > 1 || /\p{N}/u.test(w));

/**
 * Tokens, answer-like tokens (containing a digit, or capitalised somewhere other than at the start
 * of a sentence: a name) and word count of a text.
 */
export function scanDoc(text: string): ScanDoc {
  const tokens = new Set<string>();
  const answerLike = new Set<string>();
  const seq: string[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const raw = m[0];
    const w = raw.toLowerCase();
    seq.push(w);
    if (!keep(w)) continue;
    tokens.add(w);
    if (/\p{N}/u.test(w)) { answerLike.add(w); continue; }
    if (!/^\p{Lu}/u.test(raw)) continue;
    // Sentence start: nothing but spaces/quotes/brackets back to the text's start or to . ! ? : ;
    let k = m.index! - 1;
    while (k >= 0 && /[\s"'“”‘’(\[]/u.test(text[k]!)) k--;
    if (k >= 0 && !/[.!?:;]/.test(text[k]!)) answerLike.add(w);
  }
  return { tokens, answerLike, words: seq.length, seq };
}

export function validateClusterScanParams(p: Partial<ClusterScanParams> = {}): ClusterScanParams {
  const v = { ...DEFAULT_CLUSTER_SCAN_PARAMS, ...p };
  const int = (k: keyof ClusterScanParams, lo: number, hi: number) => {
    if (!Number.isInteger(v[k]) || (v[k] as number) < lo || (v[k] as number) > hi) throw new RangeError(`${k} must be an integer in [${lo}, ${hi}]`);
  };
  int('groupSize', 2, 50);
  int('searchNeighbours', 2, 200);
  int('contextNeighbours', 1, 200);
  if (v.searchNeighbours < v.groupSize) throw new RangeError('searchNeighbours must be at least groupSize');
  for (const k of ['minTightness', 'duplicateSim'] as const) if (!(v[k] >= -1 && v[k] <= 1)) throw new RangeError(`${k} must be in [-1, 1]`);
  for (const k of ['minCoverage', 'maxClaimShare', 'minTopicShare', 'maxClaimGivenTopic'] as const) if (!(v[k] >= 0 && v[k] <= 1)) throw new RangeError(`${k} must be in [0, 1]`);
  int('copyRun', 0, 1000);
  int('minClaims', 1, 1000);
  int('minTopics', 0, 1000);
  int('minTopicTexts', 0, 100_000);
  if (typeof v.answerLike !== 'boolean') throw new RangeError('answerLike must be true or false');
  if (!(v.minMargin >= -2 && v.minMargin <= 2)) throw new RangeError('minMargin must be in [-2, 2]');
  if (!(v.maxLengthCv >= 0)) throw new RangeError('maxLengthCv must be ≥ 0 (Infinity = no length test)');
  if (!Number.isFinite(v.hubZ)) throw new RangeError('hubZ must be a finite number');
  return v;
}

/** Pair similarity: exact from vectors when given, else from the k-NN lists (undefined when neither list holds the pair). */
function pairSim(knn: readonly KnnList[], vectors: readonly Float32Array[] | undefined) {
  // Norms on first use: an incremental run looks at a few thousand texts of 100k (all of them took ~0.3 s).
  const norms = vectors ? new Float64Array(vectors.length).fill(-1) : undefined;
  const norm = (i: number): number => {
    if (norms![i]! < 0) { const v = vectors![i]!; let s = 0; for (let d = 0; d < v.length; d++) s += v[d]! * v[d]!; norms![i] = Math.sqrt(s); }
    return norms![i]!;
  };
  return (a: number, b: number): number | undefined => {
    if (vectors) {
      const x = vectors[a]!, y = vectors[b]!;
      let s = 0;
      for (let d = 0; d < x.length; d++) s += x[d]! * y[d]!;
      return s / (norm(a) * norm(b) || 1);
    }
    const la = knn[a]!;
    const ia = la.j.indexOf(b);
    if (ia >= 0) return la.s[ia];
    const lb = knn[b]!;
    const ib = lb.j.indexOf(a);
    return ib >= 0 ? lb.s[ib] : undefined;
  };
}

/**
 * Every token-anchored local group that shares at least one claim token (before the gates, which
 * `passesGates` applies; callers may sweep them over the same candidates). Deduplicated by members.
 */
export function localCandidates(
  knn: readonly KnnList[], docsIn: readonly ScanDoc[] | ScanDocSource, params: Partial<ClusterScanParams> = {}, vectors?: readonly Float32Array[],
  anchors?: readonly number[],
): ScanCandidate[] {
  const p = validateClusterScanParams(params);
  const n = knn.length;
  const doc = docGetter(docsIn);
  if ((Array.isArray(docsIn) && docsIn.length !== n) || (vectors && vectors.length !== n)) throw new RangeError('knn, docs and vectors must have one entry per text');
  const sim = pairSim(knn, vectors);
  const seen = new Set<string>();
  const out: ScanCandidate[] = [];
  const runs = new Map<number, Set<string>>();
  const runsOf = (i: number): Set<string> => {
    let r = runs.get(i);
    if (!r) {
      r = new Set<string>();
      const q = doc(i).seq;
      for (let x = 0; x + p.copyRun <= q.length; x++) r.add(q.slice(x, x + p.copyRun).join(' '));
      runs.set(i, r);
    }
    return r;
  };
  const copies = (a: number, b: number): boolean => {
    if (p.copyRun === 0) return false;
    const ra = runsOf(a), rb = runsOf(b);
    const [small, large] = ra.size <= rb.size ? [ra, rb] : [rb, ra];
    for (const x of small) if (large.has(x)) return true;
    return false;
  };
  for (const i of anchors ?? Array.from({ length: n }, (_, x) => x)) {
    const near = knn[i]!.j.slice(0, p.searchNeighbours);
    if (near.length < p.groupSize) continue;
    for (const w of doc(i).tokens) {
      const carriers: number[] = [];
      for (const j of near) if (doc(j).tokens.has(w)) { carriers.push(j); if (carriers.length === p.groupSize) break; }
      if (carriers.length < p.groupSize) continue;
      const members = [i, ...carriers].sort((a, b) => a - b);
      const key = members.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      const inGroup = new Set(members);
      const hood = new Set<number>();
      for (const g of members) for (const j of knn[g]!.j.slice(0, p.contextNeighbours)) if (!inGroup.has(j)) hood.add(j);
      if (hood.size === 0) continue;
      const claims: LocalToken[] = [];
      const topics: LocalToken[] = [];
      const hoodTokens = [...hood].map((j) => doc(j).tokens); // resolved once: the loop below visits them once per shared token
      for (const t of doc(members[0]!).tokens) {
        if (!members.every((g) => doc(g).tokens.has(t))) continue;
        let c = 0;
        for (const d of hoodTokens) if (d.has(t)) c++;
        const share = c / hood.size;
        const tok = { token: t, share: +share.toFixed(3), answerLike: members.every((g) => doc(g).answerLike.has(t)) };
        if (share <= p.maxClaimShare) claims.push(tok);
        else if (share >= p.minTopicShare) topics.push(tok);
      }
      if (claims.length === 0) continue;
      let topicTexts = 0, stating = 0;
      if (topics.length) {
        for (const d of hoodTokens) {
          if (!topics.every((t) => d.has(t.token))) continue;
          topicTexts++;
          if (claims.some((c) => d.has(c.token))) stating++;
        }
      }
      let known = 0, pairs = 0, tightness = 1, maxSim = -1, inside = 0, copyPairs = 0;
      for (let x = 0; x < members.length; x++) {
        for (let y = x + 1; y < members.length; y++) {
          pairs++;
          if (copies(members[x]!, members[y]!)) copyPairs++;
          const s = sim(members[x]!, members[y]!);
          if (s === undefined) continue;
          known++;
          inside += s;
          if (s < tightness) tightness = s;
          if (s > maxSim) maxSim = s;
        }
      }
      let around = 0, aroundN = 0;
      for (const g of members) for (const j of hood) { const s = sim(g, j); if (s !== undefined) { around += s; aroundN++; } }
      const lens = members.map((g) => doc(g).words);
      const mean = lens.reduce((a, b) => a + b, 0) / lens.length;
      const sd = Math.sqrt(lens.reduce((a, b) => a + (b - mean) ** 2, 0) / lens.length);
      out.push({
        members, anchor: i, tightness: known ? tightness : 0, maxSim, coverage: known / pairs, neighbourhood: hood.size,
        claims: claims.sort((a, b) => a.share - b.share || (a.token < b.token ? -1 : 1)), topics: topics.sort((a, b) => b.share - a.share || (a.token < b.token ? -1 : 1)),
        topicTexts, claimGivenTopic: topicTexts ? stating / topicTexts : 1, lengthCv: mean ? sd / mean : 0,
        copyPairs, margin: known && aroundN ? inside / known - around / aroundN : 0,
      });
    }
  }
  return out;
}

/** Whether a candidate passes every gate of `p` (the hub test aside). */
export function passesGates(c: ScanCandidate, p: ClusterScanParams): boolean {
  if (c.coverage < p.minCoverage || c.tightness < p.minTightness || c.maxSim > p.duplicateSim || c.copyPairs > 0) return false;
  const claims = c.claims.filter((t) => t.share <= p.maxClaimShare);
  if (claims.length < p.minClaims || (p.answerLike && !claims.some((t) => t.answerLike))) return false;
  if (c.topics.filter((t) => t.share >= p.minTopicShare).length < p.minTopics) return false;
  if (p.minTopicTexts > 0 && c.topicTexts < p.minTopicTexts) return false;
  if (p.maxClaimGivenTopic < 1 && c.claimGivenTopic > p.maxClaimGivenTopic) return false;
  return c.lengthCv <= p.maxLengthCv && c.margin >= p.minMargin;
}

/** Candidates that pass the gates, merged when they share members (hub members excluded); and hubs. */
export function groupCandidates(candidates: readonly ScanCandidate[], knn: readonly KnnList[], params: Partial<ClusterScanParams> = {}): ClusterScanResult {
  const p = validateClusterScanParams(params);
  const hubs = findHubs(knn, p.hubZ);
  const hubSet = new Set(hubs.map((h) => h.node));
  const kept = candidates.filter((c) => passesGates(c, p) && !c.members.some((m) => hubSet.has(m)));
  // Merge candidates that share members (union–find over nodes).
  const parent = new Map<number, number>();
  const find = (x: number): number => { let r = x; while (parent.get(r) !== r) r = parent.get(r)!; parent.set(x, r); return r; };
  for (const c of kept) for (const m of c.members) if (!parent.has(m)) parent.set(m, m);
  for (const c of kept) for (const m of c.members.slice(1)) { const a = find(c.members[0]!), b = find(m); if (a !== b) parent.set(b, a); }
  const byRoot = new Map<number, ScanGroup & { claimMap: Map<string, LocalToken> }>();
  for (const c of kept) {
    const root = find(c.members[0]!);
    const g = byRoot.get(root) ?? { members: [], tightness: 1, coverage: 1, margin: 2, claims: [], topics: [], score: 0, claimMap: new Map<string, LocalToken>() };
    g.members = [...new Set([...g.members, ...c.members])].sort((a, b) => a - b);
    g.tightness = Math.min(g.tightness, c.tightness);
    g.coverage = Math.min(g.coverage, c.coverage);
    g.margin = Math.min(g.margin, c.margin);
    for (const t of c.claims) if (t.share <= p.maxClaimShare && (g.claimMap.get(t.token)?.share ?? 2) > t.share) g.claimMap.set(t.token, t);
    g.topics = [...new Set([...g.topics, ...c.topics.map((t) => t.token)])].sort();
    byRoot.set(root, g);
  }
  const groups: ScanGroup[] = [...byRoot.values()].map(({ claimMap, ...g }) => {
    const claims = [...claimMap.values()].sort((a, b) => a.share - b.share || (a.token < b.token ? -1 : 1));
    const contrast = p.maxClaimShare > 0 ? 1 - (claims[0]?.share ?? 0) / p.maxClaimShare : 1;
    return { ...g, claims, score: +((contrast + Math.max(0, g.tightness)) / 2).toFixed(4) };
  });
  groups.sort((a, b) => b.score - a.score || a.members[0]! - b.members[0]!);
  return { groups, hubs, candidates: kept.length };
}

/**
 * The scan: local candidates, the gates, merged groups, hubs. `anchors` (an incremental run: the texts
 * whose neighbour lists changed since the last run) limits the candidate groups to those anchored there;
 * groups elsewhere were already looked at. Docs may be given lazily (texts are tokenized when a group
 * needs them).
 */
export function clusterScan(
  knn: readonly KnnList[], docs: readonly ScanDoc[] | ScanDocSource, params: Partial<ClusterScanParams> = {}, vectors?: readonly Float32Array[], anchors?: readonly number[],
): ClusterScanResult {
  const p = validateClusterScanParams(params);
  return groupCandidates(localCandidates(knn, docs, p, vectors, anchors), knn, p);
}

/** A text's ScanDoc by index, made on first use. */
export type ScanDocSource = (i: number) => ScanDoc;

function docGetter(docs: readonly ScanDoc[] | ScanDocSource): (i: number) => ScanDoc {
  if (typeof docs !== 'function') return (i) => docs[i]!;
  const cache: (ScanDoc | undefined)[] = [];
  return (i) => cache[i] ?? (cache[i] = docs(i));
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
