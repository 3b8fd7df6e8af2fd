import {
  birdScores, birdSuspicion, combineEvidence, gradaRerank, gradaSuspicion, progrankScores, progrankSuspicion, selectProbeSet,
  DEFAULT_BIRD_PARAMS, DEFAULT_PROGRANK_PARAMS, DEFAULT_TOKEN_DROPOUT_RATE,
  type BirdResult, type GradaResult, type ProgrankResult,
} from '@forensics/algorithms';
import type { CandidateEvidence } from '../../../domain/evidence-record';
import type { GradientProbe } from '../../../ports/gradient-probe.port';
import type { NeighbourLists } from '../../../ports/runtime.port';
import type { ScoredHit, VectorStore } from '../../../ports/vector-store.port';

/** Settings of the retriever-side evidence (BiRD arXiv 2605.20123 §4; GRADA arXiv 2505.07546 §3; ProGRank arXiv 2603.22934 §3). */
export interface EvidenceSettings {
  enabled: boolean;
  /** BiRD k (forward and backward depth). Paper default 20. */
  birdK: number;
  birdEpsilon: number;
  /** GRADA pool M = max(gradaPoolFactor·K, deepest judged rank); paper M ≥ 2n. */
  gradaPoolFactor: number;
  /** ProGRank perturbation runs R (paper 20), token dropout rate, seed. */
  progrankRuns: number;
  progrankTokenDropout: number;
  progrankSeed: number;
  /** Cap on texts probed per event (the gated tail's top); default K. */
  progrankMaxProbes?: number;
  /**
   * B, the bounded first-stage pool ProGRank's gate is estimated on (ProGRank §3.5: "retrieve a
   * buffer of top-B candidates with B > K, estimate the gate on this pool"). Default: the evidence
   * pool's depth max(birdK, gradaPoolFactor·K) (20 at K = 5); always at least K + 1.
   */
  progrankPoolSize?: number;
}

/**
 * Algorithm values come from the pure library's params objects; only the two service choices
 * below (no library counterpart) are literals.
 */
export const DEFAULT_EVIDENCE_SETTINGS: Readonly<EvidenceSettings> = Object.freeze({
  enabled: true,
  birdK: DEFAULT_BIRD_PARAMS.k,
  birdEpsilon: DEFAULT_BIRD_PARAMS.epsilon,
  // Not a GradaParams field: GRADA needs M ≥ 2n (GRADA, arXiv 2505.07546, §3.2) and n = K here, hence M ≥ 2K.
  gradaPoolFactor: 2,
  progrankRuns: DEFAULT_PROGRANK_PARAMS.runs,
  progrankTokenDropout: DEFAULT_TOKEN_DROPOUT_RATE,
  // Not a ProgrankParams field: the service's fixed seed, so perturbations are reproducible.
  progrankSeed: 1234,
});

export type { CandidateEvidence } from '../../../domain/evidence-record';

/**
 * BiRD's backward neighbour lists depend only on the collection's content, so they are cached per
 * (collection, store revision, text id) and dropped when the revision changes (any write).
 */
export class NeighbourCache implements NeighbourLists {
  private revision = new Map<string, string>();
  private lists = new Map<string, Map<string, string[]>>();
  constructor(private readonly maxPerCollection = 50_000) {}

  recall(collection: string, revision: string | null, id: string): string[] | undefined {
    if (revision === null || this.revision.get(collection) !== revision) return undefined;
    return this.lists.get(collection)?.get(id);
  }

  remember(collection: string, revision: string | null, id: string, list: string[]): void {
    if (revision === null) return;
    if (this.revision.get(collection) !== revision) {
      this.revision.set(collection, revision);
      this.lists.set(collection, new Map());
    }
    const m = this.lists.get(collection)!;
    if (m.size >= this.maxPerCollection) m.clear();
    m.set(id, list);
  }
}

/** What collectEvidence is asked: the event's query over one collection, and the judged texts to give evidence for. */
export interface CollectEvidenceArgs {
  store: VectorStore;
  probe?: GradientProbe | null;
  probeUnavailableReason?: string;
  cache?: NeighbourLists;
  collection: string;
  query: string;
  queryVector: ArrayLike<number>;
  /** Id of the retriever's encoder (Embedder.id): equal to the probe's encoder = white-box. */
  retrieverId?: string;
  k: number;
  judgedIds: readonly string[];
  excludeIds?: readonly string[];
  settings: EvidenceSettings;
}

/** The candidate pool for q, and the rank of the deepest judged text in it (0 when none is in it). */
interface EvidencePool {
  pool: ScoredHit[];
  rankOf: Map<string, number>;
  deepest: number;
}

/**
 * Computes BiRD, GRADA and ProGRank for the judged candidates of one event, over the candidate
 * pool retrieved for q (before anything of this event is quarantined).
 * - BiRD (arXiv 2605.20123, §4.2–4.4): forward top-k; the k backward retrievals (each text's stored vector as the
 *   query, itself excluded) go to the store as ONE batched request; cached neighbour lists are reused.
 * - GRADA (arXiv 2505.07546, §3.1–3.2): HRSIM over BM25 on the top M texts.
 * - ProGRank (arXiv 2603.22934, §3.2–3.3): probe gradients on the gated upper tail of the pool, when a
 *   gradient probe is configured; otherwise the record says why it was skipped.
 */
export async function collectEvidence(args: CollectEvidenceArgs): Promise<Record<string, CandidateEvidence>> {
  const p = await evidencePool(args);
  const t0 = performance.now();
  const bird = await birdOf(args, p);
  const t1 = performance.now();
  const grada = gradaOf(args, p);
  const t2 = performance.now();
  const progrank = await progrankOf(args, p);
  const t3 = performance.now();
  const ms = { bird: +(t1 - t0).toFixed(2), grada: +(t2 - t1).toFixed(2), progrank: +(t3 - t2).toFixed(2) };
  const out: Record<string, CandidateEvidence> = {};
  for (const id of new Set(args.judgedIds)) out[id] = evidenceRecord(id, args, p, { bird, grada, progrank }, ms);
  return out;
}

/** The pool: deep enough for BiRD's k, GRADA's M, ProGRank's B and every judged text. */
async function evidencePool(args: CollectEvidenceArgs): Promise<EvidencePool> {
  const { store, collection, settings: s } = args;
  const exclude = args.excludeIds ?? [];
  const judged = new Set(args.judgedIds);
  let depth = Math.max(s.birdK, s.gradaPoolFactor * args.k, s.progrankPoolSize ?? 0, args.k + 1);
  let pool: ScoredHit[] = await store.search(collection, { vector: args.queryVector, k: depth, excludeIds: exclude });
  const missing = () => [...judged].filter((id) => !pool.some((h) => h.id === id));
  while (missing().length && pool.length === depth && depth < 1000) {
    depth *= 2;
    pool = await store.search(collection, { vector: args.queryVector, k: depth, excludeIds: exclude });
  }
  const rankOf = new Map(pool.map((h, i) => [h.id, i + 1]));
  const deepest = Math.max(0, ...[...judged].map((id) => rankOf.get(id) ?? 0));
  return { pool, rankOf, deepest };
}

/** BiRD over the top max(k, deepest judged) texts. */
async function birdOf(args: CollectEvidenceArgs, { pool, deepest }: EvidencePool): Promise<Map<string, BirdResult>> {
  const { store, collection, settings: s } = args;
  const exclude = args.excludeIds ?? [];
  const forward = pool.slice(0, Math.max(s.birdK, deepest));
  const revision = store.revision ? await store.revision(collection) : null;
  const backward: Record<string, string[]> = {};
  const need: string[] = [];
  for (const h of forward) {
    const cached = args.cache?.recall(collection, revision, h.id);
    if (cached) backward[h.id] = cached;
    else need.push(h.id);
  }
  if (need.length) {
    const stored = new Map((await store.fetch(collection, need)).map((r) => [r.id, r]));
    const ids = need.filter((id) => stored.has(id));
    const lists = await store.searchBatch(collection, ids.map((id) => ({ vector: stored.get(id)!.vector, k: s.birdK, excludeIds: [id, ...exclude] })));
    ids.forEach((id, i) => {
      backward[id] = lists[i].map((x) => x.id);
      args.cache?.remember(collection, revision, id, backward[id]);
    });
  }
  return new Map(birdScores({ query: { forward: forward.filter((h) => backward[h.id]).map((h) => ({ id: h.id, score: h.score })) }, backward }, { k: s.birdK, epsilon: s.birdEpsilon }).map((r) => [r.id, r]));
}

/** GRADA over M = max(2K, deepest judged) texts, keeping n = K; `skip` says why it was not run. */
function gradaOf(args: CollectEvidenceArgs, { pool, deepest }: EvidencePool): { results: Map<string, GradaResult>; n: number; skip: string } {
  const m = Math.min(pool.length, Math.max(args.settings.gradaPoolFactor * args.k, deepest));
  const n = Math.min(args.k, Math.floor(m / 2));
  if (n < 1) return { results: new Map(), n, skip: `pool of ${m} texts is too small for GRADA (needs M ≥ 2n, n ≥ 1)` };
  const ranked = gradaRerank({ query: args.query, queryVector: args.queryVector, candidates: pool.slice(0, m).map((h) => ({ id: h.id, text: h.text, score: h.score })) }, { n });
  return { results: new Map(ranked.map((r) => [r.id, r])), n, skip: '' };
}

/**
 * ProGRank on the gated upper tail of the bounded first-stage pool (ProGRank, arXiv 2603.22934, §3.5):
 * D is the top-B pool (B > K), NOT the collection — the gate μ = Quantile_{1−m/B} of the pool's
 * scores, m = ⌈√B⌉ (Eq. 11 with |D| = B), which sits near the top-K boundary whatever the
 * collection's size (over the whole collection, ⌈√|D|⌉ outgrows any pool and μ sinks to the
 * pool's minimum, gating everything in). Stochastic probing only on that pool's decision-critical
 * upper tail (w ≥ ½ ⇔ s ≥ μ), capped at `progrankMaxProbes` texts (default K). Judged texts deeper
 * than B get their gate weight from the same μ, unprobed. When the probe IS the retriever's encoder
 * (white-box), the retrieval scores are s(q,p) and the unperturbed pass is skipped. `skip` says why it was not run.
 */
async function progrankOf(args: CollectEvidenceArgs, { pool, deepest }: EvidencePool): Promise<{ results: Map<string, ProgrankResult>; skip: string }> {
  const { settings: s, probe } = args;
  if (!probe) return { results: new Map(), skip: args.probeUnavailableReason ?? 'no gradient probe configured' };
  try {
    await probe.init();
    const poolB = Math.min(pool.length, Math.max(s.progrankPoolSize ?? Math.max(s.birdK, s.gradaPoolFactor * args.k), args.k + 1));
    const texts = pool.slice(0, Math.max(deepest, poolB));
    const whiteBox = args.retrieverId !== undefined && probe.encoder === args.retrieverId;
    const scores = whiteBox ? texts.map((h) => h.score) : (await probe.probe(args.query, texts.map((h) => h.text), { runs: 1, seed: s.progrankSeed, tokenDropout: 0 })).scores;
    const poolScores = scores.slice(0, poolB);
    const idx = selectProbeSet(poolScores, { maxProbes: s.progrankMaxProbes ?? args.k }).sort((a, b) => a - b);
    const probed = idx.length ? await probe.probe(args.query, idx.map((i) => texts[i].text), { runs: s.progrankRuns, seed: s.progrankSeed, tokenDropout: s.progrankTokenDropout }) : { scores: [], gradients: [] };
    const grads = new Map(idx.map((i, j) => [i, probed.gradients[j]]));
    const results = progrankScores({
      candidates: texts.map((h, i) => ({ id: h.id, score: scores[i], gradients: grads.get(i) })),
      corpusScores: poolScores,
    }, { runs: s.progrankRuns });
    return { results: new Map(results.map((r) => [r.id, r])), skip: '' };
  } catch (e) {
    return { results: new Map(), skip: `gradient probe failed: ${(e as Error).message}` };
  }
}

/** One judged text's record: each method's suspicion and details, or why it was skipped, and their combination. */
function evidenceRecord(
  id: string, args: CollectEvidenceArgs, { rankOf }: EvidencePool,
  found: { bird: Map<string, BirdResult>; grada: { results: Map<string, GradaResult>; n: number; skip: string }; progrank: { results: Map<string, ProgrankResult>; skip: string } },
  ms: CandidateEvidence['ms'],
): CandidateEvidence {
  const probe = args.probe;
  const b = found.bird.get(id);
  const g = found.grada.results.get(id);
  const p = found.progrank.results.get(id);
  const bs = b ? birdSuspicion(b) : undefined;
  const gs = g ? gradaSuspicion(g) : undefined;
  const ps = p && p.probed ? progrankSuspicion(p) : undefined;
  const { id: _b, ...bRest } = b ?? ({} as BirdResult);
  const { id: _g, ...gRest } = g ?? ({} as GradaResult);
  const { id: _p, ...pRest } = p ?? ({} as ProgrankResult);
  return {
    bird: b ? { suspicion: bs!, ...bRest } : { skipped: rankOf.has(id) ? 'no stored vector for the backward retrieval' : 'not in the retrieved pool' },
    grada: g ? { suspicion: gs!, n: found.grada.n, ...gRest } : { skipped: found.grada.skip || 'outside the GRADA pool' },
    progrank: p && p.probed
      ? { suspicion: ps!, encoder: probe!.encoder, layer: probe!.layer, exact: probe!.exact, querySide: probe!.querySide, runs: args.settings.progrankRuns, ...pRest }
      : p
        ? { skipped: 'not probed: outside the gated upper tail (no gradient penalty computed)', encoder: probe?.encoder, layer: probe?.layer, score: p.score, gateWeight: p.gateWeight, defendedScore: p.defendedScore }
        : { skipped: found.progrank.skip || 'not in the ProGRank pool', encoder: probe?.encoder },
    combined: combineEvidence({ bird: bs, grada: gs, progrank: ps }),
    ms,
  };
}
