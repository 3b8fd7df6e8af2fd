import { clusterScan, DEFAULT_CLUSTER_SCAN_PARAMS, LshIndex, scanDoc, validateClusterScanParams, type ClusterScanParams, type ClusterScanResult, type KnnList } from '@forensics/algorithms';
import { ScanGraph } from '../../../domain/scan-graph';
import { AUDIT_RUNS, type AuditContext, type AuditKindHandler, type AuditRunRepository } from '../../../ports/audits.port';
import type { AnswerRepository } from '../../../ports/repositories';
import { ANSWERS, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { BTE_PROXY_KIND } from '../../serving/serving-view/serving-view';
import { SubmitFeedbackUseCase } from '../../feedback/submit-feedback/submit-feedback.use-case';

export interface ClusterScanAuditDeps { store: VectorStore; answers: AnswerRepository; submitFeedback: SubmitFeedbackUseCase; runs: AuditRunRepository }

/** What the scan read from the store: the texts and their k-NN lists (indexes into `ids`). */
export interface ScannedCollection { ids: string[]; texts: string[]; vectors: Float32Array[]; knn: KnnList[] }

/**
 * …and, against the lists kept from the last run: the texts whose lists changed (new, merged into or
 * filtered; every text without a prior), how many lists were reused / searched, and every served text's
 * list as the next run needs it (`scanGraph()`, with LSH signatures where the run has them).
 */
export interface IncrementalGraph extends ScannedCollection { changed: number[]; reused: number; searched: number; scanGraph(): ScanGraph }

const PAGE = 20_000;
const SEARCH_BATCH = 64;
const EXCERPT = 160;

/**
 * Reads every served text of a collection with its vector (listPage) and asks the store for each
 * one's k nearest neighbours (searchBatch: the store's own search — the exact in-process kernel on
 * small collections, the ANN index on large ones). Quarantined texts and enhancement proxies are
 * left out: they are already handled. `onProgress(done, total)` after every batch.
 */
/** Above this many texts the k-NN graph comes from LSH over the listed vectors instead of one store query per text (see libs/forensics/src/cluster-scan/lsh-knn.ts). */
export const LSH_MIN_TEXTS = 20_000;

export async function readKnnGraph(
  store: VectorStore, collection: string, k: number, onProgress?: (done: number, total: number) => Promise<void> | void, knnMode: 'auto' | 'store' | 'lsh' = 'auto',
  prior?: ScanGraph,
): Promise<IncrementalGraph> {
  if (!store.listPage) throw new Error(`the ${store.kind} store cannot list its points: cluster-scan needs VectorStore.listPage`);
  const ids: string[] = [];
  const texts: string[] = [];
  const vectors: Float32Array[] = [];
  let served = 0; // what the store's similarityPairs samples from (proxies included)
  let after: string | null = null;
  for (;;) {
    const page = await store.listPage(collection, { after, limit: PAGE, withVectors: true, withText: true });
    for (const r of page.records) {
      if (!r.quarantined) served++;
      if (r.quarantined || r.payload.kind === BTE_PROXY_KIND) continue;
      ids.push(r.id); texts.push(r.text ?? ''); vectors.push(r.vector!);
    }
    after = page.next;
    if (after === null) break;
  }
  const index = new Map(ids.map((id, i) => [id, i]));
  const full = (knn: KnnList[]): IncrementalGraph => ({ ids, texts, vectors, knn, changed: ids.map((_, i) => i), reused: 0, searched: ids.length, scanGraph: () => ScanGraph.fromIndexLists(ids, knn) });
  if (knnMode === 'auto' && store.similarityPairs && ids.length > 0) {
    // One server-side call (Qdrant's distance matrix over every served point) instead of one query per text.
    const pairs = await store.similarityPairs(collection, { k, sample: served });
    const knn: KnnList[] = ids.map(() => ({ j: [], s: [] }));
    for (const p of [...pairs].sort((x, y) => y.score - x.score || (x.b < y.b ? -1 : x.b > y.b ? 1 : 0)) /* ties by id, as search */) {
      const a = index.get(p.a);
      const b = index.get(p.b);
      if (a === undefined || b === undefined || a === b || knn[a]!.j.length >= k) continue;
      knn[a]!.j.push(b); knn[a]!.s.push(p.score);
    }
    await onProgress?.(ids.length, ids.length);
    return full(knn);
  }
  // Incremental: a stored list is reused when it still holds k served neighbours (texts taken out of
  // serving are dropped from it); texts new since the last run, and lists that lost too much, are searched.
  const want = Math.min(k, Math.max(0, ids.length - 1));
  const knn: KnnList[] = new Array(ids.length);
  const todo: number[] = [];
  let sigs: ((i: number) => ArrayLike<number>) | undefined;
  // The kept graph's ids → this run's indexes (-1: no longer served), one lookup per kept id.
  const remap = new Int32Array(prior?.ids.length ?? 0);
  prior?.ids.forEach((id, p) => { remap[p] = index.get(id) ?? -1; });
  const priorOf = new Int32Array(ids.length).fill(-1); // this run's index → the kept list's
  for (let p = 0; p < (prior?.size ?? 0); p++) if (remap[p]! >= 0) priorOf[remap[p]!] = p;
  for (let i = 0; i < ids.length; i++) {
    const p = priorOf[i]!;
    if (p >= 0) {
      const from = prior!.offsets[p]!, to = prior!.offsets[p + 1]!;
      const j: number[] = [];
      const sc: number[] = [];
      for (let x = from; x < to && j.length < k; x++) {
        const idx = remap[prior!.neighbours[x]!]!;
        if (idx >= 0 && idx !== i) { j.push(idx); sc.push(prior!.scores[x]!); }
      }
      // Reused when it lost nothing (an LSH list may hold fewer than k bucket-mates) or still holds k.
      if (j.length >= want || j.length === to - from) { knn[i] = { j, s: sc }; continue; }
    }
    todo.push(i);
  }
  if (todo.length > 0) {
    if (knnMode === 'lsh' || (knnMode === 'auto' && ids.length >= LSH_MIN_TEXTS)) {
      const lsh = new LshIndex(vectors[0]?.length ?? 1);
      // Signatures kept from the last run: only new texts are projected (most of the indexing cost).
      const known = Array.from(priorOf, (p) => (p >= 0 ? prior!.signature(p) : undefined));
      for (let start = 0; start < ids.length; start += 5000) lsh.add(vectors.slice(start, start + 5000), known.slice(start, start + 5000));
      sigs = (i: number) => lsh.signatureOf(i);
      for (let start = 0; start < todo.length; start += 2000) {
        const part = todo.slice(start, start + 2000);
        lsh.knn(part, k).forEach((l, x) => { knn[part[x]!] = l; });
        await onProgress?.(Math.min(start + 2000, todo.length), todo.length);
      }
    } else {
      for (let start = 0; start < todo.length; start += SEARCH_BATCH) {
        const part = todo.slice(start, start + SEARCH_BATCH);
        const hits = await store.searchBatch(collection, part.map((i) => ({ vector: vectors[i]!, k: k + 1, excludeIds: [ids[i]!] })));
        hits.forEach((list, x) => {
          const j: number[] = [];
          const sc: number[] = [];
          for (const h of list) {
            const idx = index.get(h.id);
            if (idx === undefined || j.length >= k) continue;
            j.push(idx); sc.push(h.score);
          }
          knn[part[x]!] = { j, s: sc };
        });
        await onProgress?.(Math.min(start + SEARCH_BATCH, todo.length), todo.length);
      }
    }
  } else await onProgress?.(0, 0);
  // A new text enters the lists of the reused texts it is a neighbour of (cosine is symmetric: a text
  // in the new one's top k is where it most likely belongs; a reused text whose k-th neighbour is
  // beaten by the new one takes it). Approximate: a reused text the new one does not list keeps its list.
  const changedIdx = new Set(todo);
  if (prior && todo.length < ids.length) {
    const fresh = new Set(todo);
    for (const i of todo) {
      knn[i]!.j.forEach((j, x) => {
        if (fresh.has(j)) return;
        const s = knn[i]!.s[x]!;
        const l = knn[j]!;
        if (l.j.includes(i) || (l.j.length >= k && s <= l.s[l.s.length - 1]!)) return;
        let at = l.s.findIndex((v) => s > v);
        if (at < 0) at = l.s.length;
        l.j.splice(at, 0, i); l.s.splice(at, 0, s);
        if (l.j.length > k) { l.j.length = k; l.s.length = k; }
        changedIdx.add(j);
      });
    }
  }
  // Lists whose neighbours were filtered (texts taken out) changed too.
  if (prior) for (let i = 0; i < ids.length; i++) if (!changedIdx.has(i) && prior.offsets[priorOf[i]! + 1]! - prior.offsets[priorOf[i]!]! !== knn[i]!.j.length) changedIdx.add(i);
  // Signatures: this run's index where it built one, else the kept ones (a run with nothing new builds none).
  const lshOf = sigs ?? ((i: number) => (priorOf[i]! >= 0 ? prior!.signature(priorOf[i]!) : undefined));
  return {
    ids, texts, vectors, knn, changed: [...changedIdx].sort((a, b) => a - b), reused: ids.length - todo.length, searched: todo.length,
    scanGraph: () => ScanGraph.fromIndexLists(ids, knn, lshOf),
  };
}

/**
 * The scan over a read collection (pure; `eval:audit` sweeps its thresholds over the same graph). Pair
 * similarities exact from the listed vectors; texts tokenized as groups need them. `anchors`: only groups
 * anchored at these texts (an incremental run: the texts whose lists changed).
 */
export function scanCollection(c: ScannedCollection, params: Partial<ClusterScanParams> = {}, anchors?: readonly number[]): ClusterScanResult {
  return clusterScan(c.knn, (i) => scanDoc(c.texts[i]!), params, c.vectors, anchors);
}

/** Neighbours per text the scan needs from the store: the group search and the topic neighbourhood. */
export function scanNeighbours(p: ClusterScanParams): number {
  return Math.max(p.searchNeighbours, p.contextNeighbours);
}

const PARAM_KEYS = Object.keys(DEFAULT_CLUSTER_SCAN_PARAMS) as (keyof ClusterScanParams)[];
const RUN_KEYS = ['k', 'knn', 'maxGroups', 'answerTracebacks', 'incremental'];

/** The run's params as scan parameters: numbers (strings of numbers too), answerLike true/false; unknown names refused by name. */
export function clusterScanParamsOf(raw: Readonly<Record<string, unknown>>): ClusterScanParams {
  const out: Partial<Record<keyof ClusterScanParams, unknown>> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (RUN_KEYS.includes(k)) continue;
    if (!PARAM_KEYS.includes(k as keyof ClusterScanParams)) throw new RangeError(`unknown cluster-scan parameter '${k}' (known: ${[...PARAM_KEYS, ...RUN_KEYS].join(', ')})`);
    if (k === 'answerLike') {
      if (v !== true && v !== false && v !== 'true' && v !== 'false') throw new RangeError('answerLike must be true or false');
      out.answerLike = v === true || v === 'true';
      continue;
    }
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (Number.isNaN(n)) throw new RangeError(`${k} must be a number`);
    out[k as keyof ClusterScanParams] = n;
  }
  return validateClusterScanParams(out as Partial<ClusterScanParams>);
}

/**
 * The `cluster-scan` audit (issue 12): corpus-wide, no report. Builds the k-NN graph of the served
 * texts with the store's own search, finds tight groups whose members all state a claim their topic
 * neighbourhood does not (see libs/forensics/src/cluster-scan), and sends each group to review
 * (NEEDS_REVIEW, kept in serving unless AUDIT_AUTO_QUARANTINE) with its evidence; hubs are reported.
 * Parameters: every ClusterScanParams field (groupSize, searchNeighbours, contextNeighbours,
 * minTightness, minCoverage, duplicateSim, copyRun, maxClaimShare, minTopicShare, minClaims, minTopics,
 * minTopicTexts, maxClaimGivenTopic, answerLike, maxLengthCv, minMargin, hubZ), k (neighbours per text,
 * default max(searchNeighbours, contextNeighbours)), knn ('auto' = the store's distance matrix where it has one (Qdrant similarityPairs), else the store's search below LSH_MIN_TEXTS texts, LSH above; 'store'; 'lsh'), maxGroups (default 200: a larger count means the threshold is wrong for
 * this corpus, and the run reports instead of flooding the review queue), answerTracebacks (default 3:
 * per flagged group, tracebacks started for the newest logged answers that served one of its texts;
 * 0 = off).
 *
 * Incremental (default; `incremental=false` rebuilds): the k-NN lists are kept in Postgres between runs
 * (ScanGraphPart); a run searches only for texts new since the last one (and texts whose stored list
 * lost too many neighbours to quarantine), merges each new text into the lists of the texts it lists,
 * and drops the lists of texts no longer served (the whole graph is written back). Candidate groups are then looked for around the texts
 * whose lists changed (groups elsewhere were looked at by an earlier run); after changing the scan's
 * parameters, run once with `incremental=false` to look at every group again.
 * Not resumable inside the graph phase: a killed run searches again for what it had not saved.
 */
export class ClusterScanAudit implements AuditKindHandler {
  static readonly inject: InjectMap<ClusterScanAuditDeps> = { store: VECTOR_STORE, answers: ANSWERS, submitFeedback: SubmitFeedbackUseCase, runs: AUDIT_RUNS };
  readonly kind = 'cluster-scan' as const;
  constructor(private readonly deps: ClusterScanAuditDeps) {}

  async execute(ctx: AuditContext): Promise<void> {
    const raw = ctx.run.params;
    const num = (k: string) => (raw[k] === undefined ? undefined : Number(raw[k]));
    const params = clusterScanParamsOf(raw);
    const kRaw = num('k');
    if (kRaw !== undefined && !(Number.isInteger(kRaw) && kRaw > 0 && kRaw <= 1000)) throw new RangeError('k must be an integer in [1, 1000]');
    const k = Math.max(scanNeighbours(params), kRaw ?? 0);
    const maxGroups = Math.floor(num('maxGroups') ?? 200);
    const answerTracebacks = num('answerTracebacks') ?? 3;
    if (!(Number.isInteger(answerTracebacks) && answerTracebacks >= 0 && answerTracebacks <= 100)) throw new RangeError('answerTracebacks must be an integer in [0, 100]');
    const started = Date.now();
    const mode = raw.knn === 'store' || raw.knn === 'lsh' ? raw.knn : 'auto';
    if (raw.incremental !== undefined && ![true, false, 'true', 'false'].includes(raw.incremental as never)) throw new RangeError('incremental must be true or false');
    const incremental = raw.incremental !== false && raw.incremental !== 'false';
    const prior = incremental ? await this.deps.runs.loadScanGraph(ctx.run.collection) : undefined;
    const graph = await readKnnGraph(this.deps.store, ctx.run.collection, k, (done, total) => ctx.checkpoint({ progress: { done, total, phase: prior?.size ? 'k-NN lists of new texts' : 'k-NN graph' } }), mode, prior);
    // Kept for the next run before anything is flagged: a run killed later still saved its search work.
    // Every served text's list is written: texts no longer served drop out with nothing to delete.
    await this.deps.runs.replaceScanGraph(ctx.run.collection, graph.scanGraph());
    const result = scanCollection(graph, params, prior?.size ? graph.changed : undefined);
    const counts = { textsScanned: graph.ids.length, textsSearched: graph.searched, reusedLists: graph.reused, groups: result.groups.length, hubs: result.hubs.length, flagged: 0, tracebacksStarted: 0, seconds: Math.round((Date.now() - started) / 100) / 10 };
    if (result.groups.length > maxGroups) {
      await ctx.finding({
        type: 'too-many-groups', action: 'reported', documentIds: [],
        detail: { groups: result.groups.length, maxGroups, note: 'more candidate groups than maxGroups: raise minTightness / minMargin or lower maxClaimShare for this corpus; nothing was sent to review' },
      });
    } else {
      for (const g of result.groups) {
        const documentIds = g.members.map((m) => graph.ids[m]!);
        // Locally specific claims: stated by every member (inside 1.0), by `around` of the texts around them.
        const claims = g.claims.slice(0, 20).map((t) => ({ token: t.token, inside: 1, around: t.share, answerLike: t.answerLike }));
        const evidence = {
          tightness: +g.tightness.toFixed(4), coverage: +g.coverage.toFixed(3), margin: +g.margin.toFixed(4), claims, topics: g.topics.slice(0, 20), size: g.members.length,
          params: { ...params, maxLengthCv: Number.isFinite(params.maxLengthCv) ? params.maxLengthCv : null },
          excerpts: g.members.slice(0, 8).map((m) => graph.texts[m]!.slice(0, EXCERPT)),
        };
        const said = g.claims.slice(0, 5).map((t) => `"${t.token}"`).join(', ');
        const reason = `${g.members.length} mutually close texts that all state ${said}, which at most ${Math.round(Math.max(...g.claims.slice(0, 5).map((t) => t.share)) * 100)}% of the texts around them state`;
        const { quarantineIds, state } = await ctx.review({ documentIds, reason, evidence });
        counts.flagged += documentIds.length;
        const tracebacks = await this.traceLoggedAnswers(ctx, documentIds, answerTracebacks);
        counts.tracebacksStarted += tracebacks.filter((t) => t.created).length;
        await ctx.finding({
          type: 'suspicious-group', action: state === 'QUARANTINED' ? 'quarantined' : 'review', documentIds, quarantineIds, score: g.score,
          detail: tracebacks.length ? { ...evidence, tracebacks } : evidence,
        });
      }
    }
    for (const h of result.hubs.slice(0, 50)) {
      await ctx.finding({
        type: 'hub', action: 'reported', documentIds: [graph.ids[h.node]!], score: null,
        detail: { inDegree: h.inDegree, z: h.z, excerpt: graph.texts[h.node]!.slice(0, EXCERPT), note: 'in far more texts\' nearest-neighbour lists than usual (HubScan): check whether it was written to be retrieved for many queries' },
      });
    }
    await ctx.checkpoint({ counts, progress: { done: graph.ids.length, total: graph.ids.length, phase: 'done' } });
  }

  /**
   * The answer log's part (issue 12): logged answers (POST /v1/answers, the built-in RAG) whose served
   * texts include a member of the flagged group are the questions the group reached. For each (newest
   * first, at most `limit`), a feedback event with the logged answer as the candidate wrong answer and
   * the served ids as round 0 — the traceback then asks the judge about the group's texts for that
   * question. Reported as `audit:cluster-scan` with ANONYMOUS trust: the logged answer may well be right,
   * so nothing it finds is quarantined on its own (the policy sends it to review, kept in serving).
   * One event per logged answer (Idempotency-Key `audit-answer:<id>`): a later run starts none again.
   */
  private async traceLoggedAnswers(ctx: AuditContext, documentIds: string[], limit: number): Promise<{ answerId: string; feedbackId: string; created: boolean; query: string; answer: string }[]> {
    if (limit === 0) return [];
    const out: { answerId: string; feedbackId: string; created: boolean; query: string; answer: string }[] = [];
    for (const a of await this.deps.answers.listServing(ctx.run.collection, documentIds, limit)) {
      if (!a.query.trim() || !a.answer.trim()) continue;
      const { event, created } = await this.deps.submitFeedback.execute({
        collection: ctx.run.collection, query: a.query.slice(0, 4000), wrongAnswer: a.answer.slice(0, 4000), correctAnswer: null, servedIds: a.servedIds.slice(0, 100),
        reporter: `audit:cluster-scan:${ctx.run.id}`, idempotencyKey: `audit-answer:${a.id}`, trust: 'anonymous', reporterSource: 'audit:cluster-scan',
      });
      out.push({ answerId: a.id, feedbackId: event.id, created, query: a.query.slice(0, 200), answer: a.answer.slice(0, 200) });
    }
    return out;
  }
}
