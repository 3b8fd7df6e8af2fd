import { containsAnswer } from '../text/answer-match';
import { answerClaim, offlineJudgeFeatures, quotedAnswerSpan } from '../offline-judge/offline-judge';
import { longestContentRun } from '../text/token-salad';
import { contentTerms } from '../text/tokenizer';

/**
 * Consensus check (issue 13, item 1; a project design, not from the papers): is the reported "wrong"
 * answer what many mutually independent texts of the collection state? A poisoning attack plants a
 * few texts written for one question — they say the same thing in nearly the same words and sit
 * close together in embedding space (one tight group). A correct answer is usually stated by texts
 * written independently (different articles, different wording). So among a pool wider than the
 * top-K, the texts that state the reported answer are grouped by near-duplicate similarity
 * (single link: cosine of their vectors when given, or content-term Jaccard), and groups are
 * counted, not texts. The report is a suspected false flag when at least `minClusters` independent
 * groups state it AND the groups other than the largest are at least as many as the largest
 * group's texts (independent support outweighs the planted-looking tight group). Generic: no
 * question, answer or wording is special-cased. Pure.
 */
export interface ConsensusParams {
  /** Texts retrieved for the check (dense top-N of the question; default 50). */
  pool: number;
  /** Independent groups stating the answer needed to suspect a false flag (default 4 since issue 33, was 3: docs/decisions/0100). */
  minClusters: number;
  /** Two texts are near-duplicates at cosine ≥ this (when both have vectors; default 0.85). */
  dupCosine: number;
  /** …or at content-term Jaccard ≥ this (default 0.5). */
  dupJaccard: number;
  /** Off = never suspect (default on). */
  enabled: boolean;
  /**
   * Count the texts the judge found inducing the answer among the supporters ('include'), or leave
   * them out ('exclude', so a planted group reworded past the near-duplicate rule cannot vouch for
   * itself). With an eager judge that says YES to every text stating the answer near the question,
   * 'exclude' leaves nothing to count and the check never fires. Default 'include', together with
   * `minQueryCoverage` and the strict group rule below: without them, including suspects made real
   * attacks look like a consensus (a planted pair plus two true texts that merely mention the answer).
   * Measured with all three (--false-flag, identified): events suspected nq 20, hotpotqa 6,
   * realtimeqa 22 of 100; test/traceback-flow, traceback-outcomes and false-flag pass.
   */
  suspects: 'include' | 'exclude';
  /**
   * With the question given, a text supports the reported answer only when it states it *as the answer
   * to the question*: in a passage window (its sentence ± 1) restating at least this share of the
   * query's terms (the offline judge's `windowCoverage`). A text that mentions the answer about
   * something else ("A Tale of Two Cities is a novel by Charles Dickens" for "who wrote Moby-Dick")
   * is no vote for it. 0 = any text containing the answer. Default 0.4.
   */
  minQueryCoverage: number;
  /**
   * The metadata key naming a text's source (a URL, a domain, a publisher), read from the record's
   * ingested `metadata` (or its payload, for an attached collection); '' = ignore sources. Texts from
   * two different known sources are independent even when they read alike — news outlets reporting
   * the same story repeat each other's wording, and single-link grouping by similarity alone merged
   * 41 of 44 such snippets into one group — and texts from one source are one voice however they
   * are worded. A URL counts by its host (without "www."). Texts without a source are grouped by
   * similarity alone, as before. Set it only when the ingestion pipeline, not a text's author, writes
   * that key: a source an attacker can name at will would let a planted group pass as independent
   * (its report would go to review with its texts kept served; nothing good is removed). Default 'source'.
   */
  sourceKey: string;
  /**
   * Issue 33: the supporters that restate the question — their answer window covers at least this share
   * of the query's terms — are one voice: a planted group is written for the question, every text of it
   * restates the question next to the answer, and rewording it past the near-duplicate rule must not turn
   * it into several "independent" groups. Until decision 0240 only the suspects (the texts the judge
   * found inducing the answer) were merged so; the planted texts the traceback never judged (outside the
   * top-K, but inside the check's pool of 50) then counted as independent voices, and 52 attack events of
   * the development suite were taken for false flags that way. Two supporters from different known sources
   * stay independent. 0 = off (the issue-13 rule). Default 0.5 (the trade-off curve: docs/trust.md).
   */
  restatedCoverage: number;
}

/**
 * A text with a run of this many words holding at most one function word (`longestContentRun`) does
 * not count as a supporter. Measured on the development files: 97–98% of HotFlip-optimised texts,
 * 3–4% of clean passages (tables, lists: a clean text lost as a voice only weakens the check).
 */
export const TOKEN_SALAD_RUN = 16;

export const DEFAULT_CONSENSUS_PARAMS: ConsensusParams = { pool: 50, minClusters: 4, dupCosine: 0.85, dupJaccard: 0.5, enabled: true, suspects: 'include', minQueryCoverage: 0.4, sourceKey: 'source', restatedCoverage: 0.5 };

export function validateConsensusParams(p: Partial<ConsensusParams> = {}): ConsensusParams {
  const out = { ...DEFAULT_CONSENSUS_PARAMS, ...p };
  if (!Number.isInteger(out.pool) || out.pool < 1) throw new RangeError(`pool must be an integer ≥ 1, got ${String(out.pool)}`);
  if (!Number.isInteger(out.minClusters) || out.minClusters < 2) throw new RangeError(`minClusters must be an integer ≥ 2, got ${String(out.minClusters)}`);
  if (out.suspects !== 'include' && out.suspects !== 'exclude') throw new RangeError(`suspects must be 'include' or 'exclude', got '${String(out.suspects)}'`);
  if (typeof out.sourceKey !== 'string') throw new RangeError(`sourceKey must be a string ('' = ignore sources), got ${String(out.sourceKey)}`);
  if (!(out.restatedCoverage >= 0 && out.restatedCoverage <= 1)) throw new RangeError(`restatedCoverage must be in [0, 1], got ${String(out.restatedCoverage)}`);
  if (!(out.minQueryCoverage >= 0 && out.minQueryCoverage <= 1)) throw new RangeError(`minQueryCoverage must be in [0, 1], got ${String(out.minQueryCoverage)}`);
  for (const k of ['dupCosine', 'dupJaccard'] as const) {
    if (!(out[k] > 0 && out[k] <= 1)) throw new RangeError(`${k} must be in (0, 1], got ${String(out[k])}`);
  }
  return out;
}

export interface ConsensusText {
  id: string; text: string; vector?: ArrayLike<number>;
  /** Where the text comes from (see `ConsensusParams.sourceKey` and `sourceOf`); absent = unknown. */
  source?: string | null;
}

/**
 * A record's source under `key`: its ingested `metadata[key]`, else `payload[key]` (an attached
 * collection's own payload). A URL is reduced to its host without "www." (two articles of one site
 * are one source); other strings are trimmed and lower-cased. Null when absent, empty or not a string.
 */
export function sourceOf(payload: Readonly<Record<string, unknown>> | null | undefined, key: string): string | null {
  if (!key || !payload) return null;
  const meta = payload.metadata;
  const raw = (meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>)[key] : undefined) ?? payload[key];
  if (typeof raw !== 'string' || !raw.trim()) return null;
  const v = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
    try {
      const host = new URL(v).hostname.toLowerCase().replace(/^www\./, '');
      if (host) return host;
    } catch { /* not a URL after all: the string itself */ }
  }
  return v.toLowerCase();
}

export interface ConsensusResult {
  suspected: boolean;
  /** Texts of the pool that state the answer. */
  supporters: number;
  /** Near-duplicate groups among them (ids), largest first. */
  clusters: string[][];
  largestCluster: number;
  /** Distinct known sources among the supporters (0 when no text has one). */
  sources: number;
  pool: number;
  params: { minClusters: number; dupCosine: number; dupJaccard: number; sourceKey: string; restatedCoverage: number };
  reason: string;
  /**
   * Per text (issue 33), given the suspects: the suspects the consensus protects — their answer is
   * stated by at least `minClusters` groups counting their own, and the groups other than their own
   * outnumber their own group's texts. Only these are held for review, kept in serving; the other
   * suspects are decided as usual. Without suspects: every id of the pool when `suspected`.
   */
  protectedIds: string[];
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { d += a[i]! * b[i]!; na += a[i]! * a[i]!; nb += b[i]! * b[i]!; }
  return na && nb ? d / Math.sqrt(na * nb) : 0;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * The reported answer as the judge reads it, once for a whole pool of texts: a served answer without its framing
 * (`answerClaim`), a sentence quoted from one of the texts as the span that answers the question (`quotedAnswerSpan`).
 * Read text by text (no peers), a quoted sentence would be stated only by the text it was quoted from, and its sibling
 * texts would not count as supporters; matched literally, a framed answer is stated by no text at all. Without a
 * question, the answer as reported.
 */
export function consensusAnswer(answer: string, texts: readonly string[], query?: string): string {
  if (query === undefined) return answer;
  const claim = answerClaim(answer);
  return quotedAnswerSpan(query, claim, texts) ?? claim;
}

/** Groups the pool's texts that state `answer` and decides whether the report looks like a false flag. */
export function consensusCheck(answer: string, pool: readonly ConsensusText[], params: Partial<ConsensusParams> = {}, query?: string, suspectIds?: readonly string[]): ConsensusResult {
  const p = validateConsensusParams(params);
  const suspects = new Set(suspectIds ?? []);
  const restated = new Set<string>();
  const read = consensusAnswer(answer, pool.map((t) => t.text), query);
  const answers = (t: ConsensusText) => {
    // Token salad is no independent voice: optimisation-based attacks (HotFlip) prefix each planted
    // text with different gibberish, so their texts read as unrelated and looked like a consensus.
    if (longestContentRun(t.text) >= TOKEN_SALAD_RUN) return false;
    if (query === undefined || p.minQueryCoverage === 0) return containsAnswer(t.text, read);
    const ev = offlineJudgeFeatures({ query, wrongAnswer: read, text: t.text });
    if (ev.support > 0 && p.restatedCoverage > 0 && ev.features.windowCoverage >= p.restatedCoverage) restated.add(t.id);
    return ev.support > 0 && ev.features.windowCoverage >= p.minQueryCoverage;
  };
  const sup = pool.filter(answers);
  const terms = sup.map((t) => new Set(contentTerms(t.text)));
  // Union-find over the near-duplicate pairs (n ≤ pool, so the O(n²) pairs are cheap).
  const parent = sup.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < sup.length; i++) {
    for (let j = i + 1; j < sup.length; j++) {
      const vi = sup[i]!.vector, vj = sup[j]!.vector;
      const si = p.sourceKey ? sup[i]!.source ?? null : null, sj = p.sourceKey ? sup[j]!.source ?? null : null;
      // One known source is one voice; two different known sources are independent however alike they read.
      const same = si !== null && si === sj;
      const distinct = si !== null && sj !== null && si !== sj;
      const dup = !distinct && ((vi && vj && vi.length === vj.length && cosine(vi, vj) >= p.dupCosine) || jaccard(terms[i]!, terms[j]!) >= p.dupJaccard);
      // Supporters restating the question next to the answer arrived as one group written for it (issue 33,
      // decision 0240), unless the ingestion pipeline names two different sources for them (independent, as above).
      const together = !distinct && restated.has(sup[i]!.id) && restated.has(sup[j]!.id);
      if (same || dup || together) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, string[]>();
  sup.forEach((t, i) => { const r = find(i); groups.set(r, [...(groups.get(r) ?? []), t.id]); });
  const clusters = [...groups.values()].sort((a, b) => b.length - a.length);
  const largest = clusters[0]?.length ?? 0;
  const others = Math.max(0, clusters.length - 1);
  const sources = p.sourceKey ? new Set(sup.map((t) => t.source ?? null).filter((x): x is string => x !== null)).size : 0;
  const fromSources = sources > 0 ? `, from ${sources} distinct source(s)` : '';
  // Strictly more other groups than the largest group's texts: a planted pair plus two unrelated
  // mentions ([2], [1], [1]) is not a consensus; seven independent statements are.
  const groupOf = new Map<string, string[]>();
  for (const c of clusters) for (const id of c) groupOf.set(id, c);
  // Per text: a suspect is protected when the groups other than its own outnumber its own group's
  // texts and, with its own, reach minClusters (a suspect that states no answer here has no group).
  const protects = (id: string) => {
    const own = groupOf.get(id);
    const independent = clusters.length - (own ? 1 : 0);
    return clusters.length >= p.minClusters && independent > (own?.length ?? 0);
  };
  const protectedIds = !p.enabled ? [] : suspectIds ? suspectIds.filter(protects) : (clusters.length >= p.minClusters && others > largest ? pool.map((t) => t.id) : []);
  const suspected = protectedIds.length > 0;
  const reason = suspected
    ? `suspected false flag: ${sup.length} of the ${pool.length} texts retrieved for the question state "${answer}", in ${clusters.length} independent groups${fromSources} (≥ ${p.minClusters}; the largest has ${largest}) — the reported answer looks like the collection's consensus, not a planted claim`
    : `no consensus: ${sup.length} of the ${pool.length} retrieved texts state the answer, in ${clusters.length} independent group(s)${fromSources} (largest ${largest}; a false flag needs ≥ ${p.minClusters} groups and more other groups than the largest has texts)`;
  return { suspected, supporters: sup.length, clusters, largestCluster: largest, sources, pool: pool.length, params: { minClusters: p.minClusters, dupCosine: p.dupCosine, dupJaccard: p.dupJaccard, sourceKey: p.sourceKey, restatedCoverage: p.restatedCoverage }, reason, protectedIds };
}
