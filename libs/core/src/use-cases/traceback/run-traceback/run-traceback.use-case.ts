import {
  acceptRetrieval, acceptServed, acceptVerdicts, capOrder, consensusAnswer, consensusCheck, containsAnswer, decide, initTrace, loneClearYes, nextRetrieval, plantedSiblings, restatesQuestion, sourceOf, summarizeTrace,
  validateConsensusParams, validateDecisionPolicy, type ConsensusResult, type Label, type SiblingMatch, type TraceState,
} from '@forensics/algorithms';
import { PermanentError } from '../../../domain/errors';
import { documentOfStorePoint } from '../../../domain/store-point';
import { textHash } from '../../../domain/text-identity';
import type { CandidateEvidence } from '../../../domain/evidence-record';
import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type {
  AuditLogRepository, DocumentRepository, DocumentRow, EnhancementRepository, FeedbackEventRepository, FeedbackRow, VerdictRepository, VerdictRow,
} from '../../../ports/repositories';
import type { Failpoints, NeighbourLists } from '../../../ports/runtime.port';
import {
  AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FAILPOINTS, FEEDBACK_EVENTS, GRADIENT_PROBE, JUDGE, NEIGHBOUR_LISTS, VECTOR_STORE, VERDICTS,
  type GradientProbeProvision,
} from '../../../ports/tokens';
import type { ScoredHit, VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { mapPool } from '../../../util/pool';
import { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';
import { SyncQuarantinesUseCase } from '../../quarantine/sync-quarantines/sync-quarantines.use-case';
import { collectEvidence, DEFAULT_EVIDENCE_SETTINGS, type EvidenceSettings } from './collect-evidence';
import { cachedVerdict } from './verdict-cache';
import { isRetrievalProxy } from '../../serving/serving-view/serving-view';

export interface RunTracebackCommand {
  feedbackId: string;
  /** Called at each persisted step (progress reporting only: the rows are the source of truth). */
  onProgress?: (step: string, detail?: Record<string, unknown>) => Promise<void> | void;
  /** Aborted: stop at the next safe point (ProcessFeedbackEventCommand.signal); judge calls in flight are aborted too. */
  signal?: AbortSignal;
}

export interface TracebackOutcome {
  feedbackId: string;
  status: 'TRACED' | 'BOUNDED';
  poisoned: string[];
  benign: string[];
  undetermined: string[];
  quarantined: string[];
  /** Texts sent to review by the decision policy (NEEDS_REVIEW records). */
  review: string[];
  judgeCalls: number;
  cachedVerdicts: number;
  rounds: number;
  traceStatus: TraceState['status'];
  boundReason?: string;
  /** The consensus check marked the report a suspected false flag: nothing was auto-quarantined. */
  suspectedFalseFlag?: boolean;
}

export interface RunTracebackDeps {
  feedback: FeedbackEventRepository;
  documents: DocumentRepository;
  verdicts: VerdictRepository;
  enhancements: EnhancementRepository;
  audit: AuditLogRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  probe: GradientProbeProvision;
  neighbours: NeighbourLists;
  settings: CoreSettings;
  quarantineText: QuarantineTextUseCase;
  syncQuarantines: SyncQuarantinesUseCase;
  failpoints: Failpoints;
}

/**
 * RAGForensics traceback for one feedback event (RAGForensics, arXiv 2504.21668, §4, Algorithm 1),
 * driving the pure state machine of @forensics/algorithms over the ports, then the retriever-side
 * evidence and the decision policy. The one code path used by the worker (through
 * ProcessFeedbackEventUseCase) and by the evaluation harness.
 *
 * Resumable: every verdict is persisted as soon as it is known; a rerun replays the loop with
 * those verdicts (no judge call is repeated) and completes the quarantine of anything judged
 * poisoned (Postgres record first, then the vector store). It records its outcome on the event's
 * `trace`; moving the event's status is the pipeline's job.
 */
export class RunTracebackUseCase {
  static readonly inject: InjectMap<RunTracebackDeps> = {
    feedback: FEEDBACK_EVENTS, documents: DOCUMENTS, verdicts: VERDICTS, enhancements: ENHANCEMENTS, audit: AUDIT_LOG,
    store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, probe: GRADIENT_PROBE, neighbours: NEIGHBOUR_LISTS, settings: CORE_SETTINGS,
    quarantineText: QuarantineTextUseCase, syncQuarantines: SyncQuarantinesUseCase, failpoints: FAILPOINTS,
  };
  constructor(private readonly deps: RunTracebackDeps) {}

  async execute(cmd: RunTracebackCommand): Promise<TracebackOutcome> {
    const { feedback, documents, verdicts, enhancements, store, embedder, judge, settings } = this.deps;
    const signal = cmd.signal;
    const ev = await feedback.get(cmd.feedbackId);
    if (!ev) throw new PermanentError(`feedback event ${cmd.feedbackId} does not exist`);
    const collection = await documents.getCollection(ev.collection);
    if (!collection) throw new PermanentError(`collection '${ev.collection}' is unknown: ingest texts into it first`);
    let state: TraceState;
    try {
      state = initTrace({ k: ev.k, maxRounds: settings.trace.maxRounds, maxJudgeCalls: settings.trace.maxJudgeCalls });
    } catch (e) {
      // Misconfiguration (e.g. k above the judge-call cap): retrying cannot fix it.
      throw new PermanentError(`cannot trace feedback ${ev.id}: ${(e as Error).message}`);
    }
    await embedder.init();
    if (collection.embedder !== embedder.id) {
      throw new PermanentError(`collection '${ev.collection}' was embedded with '${collection.embedder}' but this worker uses '${embedder.id}'`);
    }
    await cmd.onProgress?.('tracing', { attempt: ev.attempts });

    const [qvec] = await embedder.embed([ev.query]);
    // Retrieval proxies of benign-text enhancements are ours, not knowledge-base texts: never judged, never registered.
    // Every enhancement's proxy is excluded (a deleted one's may linger in the store), and a hit whose payload marks it
    // a proxy is dropped too (one created after this list was read).
    const proxyIds = (await enhancements.list({ collection: ev.collection })).map((e) => e.proxyId);
    const prior = new Map<string, VerdictRow>((await verdicts.list(ev.id)).map((v) => [v.documentId, v]));
    let cachedVerdicts = 0;
    let judgeCalls = 0;
    const hitInfo = new Map<string, { rank: number; score: number }>();

    /** The candidates' registry rows read so far (judged, or fetched for the decisions), by document id. */
    const docOf = new Map<string, DocumentRow>();
    const docsOf = async (ids: readonly string[]): Promise<DocumentRow[]> => {
      const missing = ids.filter((id) => !docOf.has(id));
      if (missing.length) for (const d of await documents.get(missing)) docOf.set(d.id, d);
      return ids.flatMap((id) => (docOf.has(id) ? [docOf.get(id)!] : []));
    };
    const textsOf = async (ids: readonly string[]): Promise<Map<string, string>> => new Map((await docsOf(ids)).map((d) => [d.id, d.text]));
    let servedContext: string[] | undefined;
    const judgeBatch = async (ids: string[], round: number): Promise<Record<string, Label>> => {
      const docs = new Map((await documents.get(ids)).map((d) => [d.id, d]));
      for (const d of docs.values()) docOf.set(d.id, d);
      const peers = ids.map((id) => docs.get(id)?.text).filter((t): t is string => !!t);
      // The first batch judged is what the user was served (round 0, or the first top K): a served answer was quoted
      // from it, and every later round reads the answer against it.
      servedContext ??= peers;
      const context = servedContext;
      const labels: Record<string, Label> = {};
      // mapPool settles every call in flight before it throws: an aborted batch writes no verdict after it returns.
      await mapPool(ids, settings.trace.judgeConcurrency, async (id) => {
        signal?.throwIfAborted();
        const doc = docs.get(id);
        if (!doc) throw new PermanentError(`document ${id} is in the vector store but not registered`);
        const done = prior.get(id);
        if (done) { labels[id] = done.label; return; }
        const { key, hit: cached } = await cachedVerdict(verdicts, judge, { textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer });
        const hit = hitInfo.get(id);
        if (cached) {
          cachedVerdicts++;
          labels[id] = cached.label;
          const { id: _id, createdAt: _c, ...reuse } = cached;
          await verdicts.save({ ...reuse, feedbackId: ev.id, documentId: id, round, cached: true, latencyMs: 0, retrievalRank: hit?.rank ?? null, retrievalScore: hit?.score ?? null });
          return;
        }
        judgeCalls++;
        const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: doc.text, peers: peers.filter((p) => p !== doc.text), context, signal });
        // An aborted call's reply (if the judge returned one anyway) is not saved: the run stops here.
        signal?.throwIfAborted();
        labels[id] = v.label;
        await verdicts.save({
          feedbackId: ev.id, documentId: id, round, label: v.label, judgeKind: judge.kind, judgeModel: judge.model,
          promptVersion: judge.promptVersion, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs),
          cacheKey: key, cached: false, signals: v.signals ?? null, spans: v.spans?.length ? v.spans : null, evidence: null, retrievalRank: hit?.rank ?? null, retrievalScore: hit?.score ?? null,
        });
      });
      return labels;
    };

    // Round 0: the texts the user was actually served, when the feedback carries them.
    if (ev.servedIds.length) {
      const known = (await documents.get(ev.servedIds)).filter((d) => d.collection === ev.collection).map((d) => d.id);
      // Keep the served order (documents.get does not promise one).
      const served = acceptServed(state, ev.servedIds.filter((id) => known.includes(id)));
      state = served.state;
      if (served.toJudge.length) state = acceptVerdicts(state, await judgeBatch(served.toJudge, 0));
    }

    for (;;) {
      signal?.throwIfAborted();
      const req = nextRetrieval(state);
      if (!req) break;
      const search = async () => (await store.search(ev.collection, { vector: qvec, k: req.k, excludeIds: [...req.excludeIds, ...proxyIds] })).filter((h) => !isRetrievalProxy(h));
      let hits = await search();
      // A duplicate vector folded into its registered text changes the ranking: search again (bounded).
      for (let again = 0; again < 3 && (await this.registerUnknown(ev, hits)); again++) hits = await search();
      hits.forEach((h, i) => { if (!hitInfo.has(h.id)) hitInfo.set(h.id, { rank: i + 1, score: h.score }); });
      const r = acceptRetrieval(state, hits.map((h) => h.id));
      state = r.state;
      if (!r.toJudge.length) continue;
      state = acceptVerdicts(state, await judgeBatch(r.toJudge, state.round + 1));
      this.deps.failpoints.hit('traceback.after-round');
      await feedback.update(ev.id, { trace: { state: summarizeTrace(state), inProgress: true } });
      await cmd.onProgress?.('round', { round: state.round, poisoned: state.poisoned.length, benign: state.benign.length });
    }

    // Retriever-side evidence on every judged candidate, then the decision policy.
    const evidenceSettings: EvidenceSettings = { ...DEFAULT_EVIDENCE_SETTINGS, ...settings.evidence };
    const judgedIds = [...state.poisoned, ...state.benign, ...state.undetermined];
    const evidence: Record<string, CandidateEvidence> = {};
    let evidenceError: string | null = null;
    const finalVerdicts = new Map<string, VerdictRow>();
    /** Evidence for judged texts, stored on their verdicts (also for the texts a top-up judges, below). */
    const attachEvidence = async (ids: readonly string[]) => {
      let got: Record<string, CandidateEvidence> = {};
      let error: string | null = null;
      if (evidenceSettings.enabled && ids.length) {
        try {
          got = await collectEvidence({
            store, probe: this.deps.probe.probe, probeUnavailableReason: this.deps.probe.reason, cache: this.deps.neighbours,
            collection: ev.collection, query: ev.query, queryVector: qvec, retrieverId: embedder.id, k: ev.k, judgedIds: [...ids], excludeIds: proxyIds, settings: evidenceSettings,
          });
        } catch (e) {
          // Evidence corroborates; it never blocks the traceback. The failure is recorded.
          error = (e as Error).message;
          evidenceError ??= error;
        }
      }
      Object.assign(evidence, got);
      const wanted = new Set(ids);
      for (const v of await verdicts.list(ev.id)) if (wanted.has(v.documentId)) finalVerdicts.set(v.documentId, v);
      for (const id of ids) {
        const v = finalVerdicts.get(id);
        if (v && (got[id] || error)) {
          const { id: _id, createdAt: _c, ...row } = v;
          await verdicts.save({ ...row, evidence: got[id] ?? { error: error! } });
        }
      }
    };
    signal?.throwIfAborted();
    await attachEvidence(judgedIds);
    await cmd.onProgress?.('evidence', { candidates: Object.keys(evidence).length });

    // Consensus check (issue 13): before any text is taken out of serving, is the reported answer what
    // many independent texts of the question's wider pool state? Then nothing is auto-quarantined.
    let consensus: (ConsensusResult & { error?: undefined }) | { error: string } | null = null;
    if (state.poisoned.length) {
      try {
        consensus = await this.consensusOf(ev, qvec!, proxyIds, state.poisoned);
      } catch (e) {
        consensus = { error: (e as Error).message }; // like evidence: recorded, never blocks the traceback
      }
    }
    const suspected = consensus !== null && !('error' in consensus && consensus.error) && (consensus as ConsensusResult).suspected;
    // Per text (issue 33): only the suspects the consensus protects are held; the others are decided as usual.
    const protectedIds = new Set(suspected ? (consensus as ConsensusResult).protectedIds : []);

    const quarantined: string[] = [];
    const review: string[] = [];
    const actor = settings.workerActor;
    // YES verdicts meet the per-event cap most confident first (capOrder), not in retrieval order.
    const scoreOf = (id: string) => { const s = finalVerdicts.get(id)?.signals?.score; return typeof s === 'number' ? s : null; };
    // A band YES is withheld only in an event with a clear YES (bandWithhold, issue 33).
    const clearYes = state.poisoned.filter((id) => finalVerdicts.get(id)?.signals?.confidence !== 'band');
    const eventHasClearYes = clearYes.length > 0;
    // A lone clear YES that does not restate the question does not make the report an attack (loneYes, issue 33).
    const coverageOf = (id: string) => { const w = finalVerdicts.get(id)?.signals?.windowCoverage; return typeof w === 'number' ? w : undefined; };
    const eventLoneYes = loneClearYes(clearYes.map(coverageOf));
    // Planted siblings (siblingWithhold, issue 33): in a report with two or more clear YES the consensus check
    // did not protect, a NO text reworded from them (closer to them than to the report's other NO texts) is
    // withheld for review. Computed for the trace's benign texts here and for the top-up's below.
    // Only for a judge that scores its verdicts (the offline judge, whose paraphrase misses this compensates and
    // with which it was measured); an LLM reads a reworded claim itself.
    const seedIds = validateDecisionPolicy(settings.policy).siblingWithhold === 'on'
      ? clearYes.filter((id) => !protectedIds.has(id) && typeof finalVerdicts.get(id)?.signals?.score === 'number') : [];
    const siblingSeeds = [...(await textsOf(seedIds)).values()];
    const siblings = new Map<string, SiblingMatch>();
    const noIds: string[] = [];
    const findSiblings = async (ids: readonly string[]) => {
      noIds.push(...ids);
      if (!siblingSeeds.length || !ids.length) return;
      const wanted = new Set(ids);
      for (const [id, m] of plantedSiblings(ev.query, ev.wrongAnswer, siblingSeeds, await textsOf(noIds))) if (wanted.has(id)) siblings.set(id, m);
    };
    await findSiblings(state.benign);
    // The collection's vetted baseline (issue 33, decision 0320): texts registered before its cutoff never leave serving by a decision.
    const vettedBefore = collection.vettedBefore ? new Date(collection.vettedBefore).getTime() : null;
    const isVetted = async (id: string): Promise<boolean> => {
      if (vettedBefore === null) return false;
      const [d] = await docsOf([id]);
      return d !== undefined && new Date(d.createdAt).getTime() < vettedBefore;
    };
    /** Decides one judged text and applies it; true when the text left serving (quarantined or withheld). */
    const decideOne = async (id: string): Promise<boolean> => {
      // Between two texts' decisions, never inside one (QuarantineText writes Postgres, then the store).
      signal?.throwIfAborted();
      const v = finalVerdicts.get(id);
      const label = (state.verdicts[id] ?? v?.label) as Label;
      const e = evidence[id];
      const confidence = v?.signals?.confidence === 'band' ? 'band' as const : undefined;
      const sibling = label === 'NO' ? siblings.get(id) : undefined;
      let outcome = decide({ label, ...(confidence ? { confidence } : {}), eventHasClearYes, eventLoneYes, restatesQuestion: restatesQuestion(coverageOf(id)), ...(sibling ? { plantedSibling: sibling } : {}), ...((await isVetted(id)) ? { vetted: true } : {}), evidence: e ? { available: e.combined.available, suspicion: e.combined.suspicion, agrees: e.combined.agrees } : { available: false } }, settings.policy);
      if (outcome.decision === 'KEEP') return false;
      if (consensus) outcome = { ...outcome, inputs: { ...outcome.inputs, consensus: consensus as unknown as Record<string, unknown> } } as typeof outcome;
      if (protectedIds.has(id)) {
        // A suspected false flag for this text: its YES goes to review and it stays served (a good text must not leave on a false report).
        outcome = { ...outcome, decision: 'NEEDS_REVIEW', withhold: false, reason: `${outcome.reason}; but ${(consensus as ConsensusResult).reason}: needs review (kept in serving)` } as typeof outcome;
      }
      const res = await this.deps.quarantineText.execute({
        documentId: id, feedbackId: ev.id, collection: ev.collection, policy: outcome.policy,
        state: outcome.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW', servedDuringReview: !outcome.withhold,
        reason: `${outcome.reason} — query "${ev.query}", wrong answer "${ev.wrongAnswer}", judge ${judge.kind}:${judge.model}`,
        evidence: {
          policy: { name: outcome.policy, decision: outcome.decision, withhold: outcome.withhold, reason: outcome.reason, inputs: { ...outcome.inputs } },
          judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion, label: v?.label, reply: v?.reply, signals: v?.signals ?? null, spans: v?.spans ?? null },
          retrieval: hitInfo.get(id) ?? null,
          retrieverEvidence: e ?? (evidenceError ? { error: evidenceError } : null),
        },
        actor,
      });
      // By the record's state: trust, caps and remembered decisions (QuarantineText) may have sent a QUARANTINE to review.
      // A held low-trust review this decision approved (`promoted`) is this event's quarantine.
      if (res.created) (res.record.state === 'QUARANTINED' ? quarantined : review).push(id);
      else if (res.promoted) quarantined.push(id);
      return res.record.state === 'QUARANTINED' || (res.record.state === 'NEEDS_REVIEW' && !res.record.servedDuringReview);
    };
    let benignWithheld = false;
    for (const id of capOrder(state.poisoned, scoreOf)) await decideOne(id);
    for (const id of state.benign) if (await decideOne(id)) benignWithheld = true;
    for (const id of state.undetermined) await decideOne(id);

    // Top-up (issue 33): the trace stopped with K texts judged benign, so whatever is served for the
    // question was judged — unless a decision then withheld one of those benign texts (a band NO in a
    // report with a clear YES, BAND_WITHHOLD=event). Then a text the trace never saw moves into the
    // served top-K: judge the served top-K's new texts and decide them the same way, until every text
    // served for the question was judged (bounded by the trace's round and judge-call limits).
    const topUp = { rounds: 0, judged: 0 };
    const extra = { poisoned: [] as string[], benign: [] as string[], undetermined: [] as string[] };
    const seen = new Set([...judgedIds, ...proxyIds]);
    while (benignWithheld && topUp.rounds < state.params.maxRounds) {
      signal?.throwIfAborted();
      const hits = (await store.search(ev.collection, { vector: qvec!, k: ev.k, excludeIds: proxyIds })).filter((h) => !isRetrievalProxy(h));
      const fresh = hits.map((h) => h.id).filter((id) => !seen.has(id));
      if (!fresh.length || judgeCalls + fresh.length > state.params.maxJudgeCalls) break;
      topUp.rounds += 1;
      topUp.judged += fresh.length;
      hits.forEach((h, i) => { if (!hitInfo.has(h.id)) hitInfo.set(h.id, { rank: i + 1, score: h.score }); });
      const labels = await judgeBatch(fresh, state.round + topUp.rounds);
      await attachEvidence(fresh);
      await findSiblings(fresh.filter((id) => labels[id] === 'NO'));
      benignWithheld = false;
      for (const id of fresh) {
        seen.add(id);
        const label = labels[id]!;
        (label === 'YES' ? extra.poisoned : label === 'NO' ? extra.benign : extra.undetermined).push(id);
        if ((await decideOne(id)) && label === 'NO') benignWithheld = true;
      }
    }
    // Complete any quarantine of this event left half-done by a crash (Postgres written, store not).
    signal?.throwIfAborted();
    await this.deps.syncQuarantines.execute({ feedbackId: ev.id });
    await cmd.onProgress?.('quarantined', { count: state.poisoned.length });

    const status: 'TRACED' | 'BOUNDED' = state.status === 'BOUNDED' ? 'BOUNDED' : 'TRACED';
    // The last safe point of the trace: its outcome and its audit entry are written together.
    signal?.throwIfAborted();
    await feedback.update(ev.id, {
      trace: {
        state: summarizeTrace(state), rounds: state.rounds, boundReason: state.boundReason ?? null, outcome: status,
        judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion }, lastRun: { judgeCalls, cachedVerdicts },
        policy: validateDecisionPolicy(settings.policy).name, evidenceError,
        consensus: consensus as unknown as Record<string, unknown> | null, suspectedFalseFlag: suspected,
        ...(topUp.rounds ? { topUp } : {}),
      },
    });
    await this.deps.audit.append({ actor, action: `traceback.${status.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { poisoned: state.poisoned.length, benign: state.benign.length, undetermined: state.undetermined.length, boundReason: state.boundReason ?? null } });
    return {
      feedbackId: ev.id, status, poisoned: [...state.poisoned, ...extra.poisoned], benign: [...state.benign, ...extra.benign], undetermined: [...state.undetermined, ...extra.undetermined],
      quarantined, review, judgeCalls, cachedVerdicts, rounds: state.round, traceStatus: state.status, boundReason: state.boundReason,
      suspectedFalseFlag: suspected,
    };
  }

  /**
   * The consensus check's pool: the question's dense top-N (serving texts, enhancement proxies
   * excluded; the texts the judge found inducing the answer too when CONSENSUS_SUSPECTS=exclude, so a
   * planted group reworded past the near-duplicate rule cannot vouch for itself); the texts that
   * state the reported answer are embedded (stored vectors are not returned by search) so
   * near-duplicates are grouped by cosine as well as by shared terms.
   */
  private async consensusOf(ev: FeedbackRow, qvec: ArrayLike<number>, proxyIds: readonly string[], suspects: readonly string[]): Promise<ConsensusResult> {
    const p = validateConsensusParams(this.deps.settings.consensus);
    const excludeIds = p.suspects === 'include' ? proxyIds : [...proxyIds, ...suspects];
    const hits = p.enabled ? await this.deps.store.search(ev.collection, { vector: qvec, k: p.pool, excludeIds }) : [];
    // The texts stating the answer as the check reads it (a framed or quoted answer is stated by no text word for word).
    const read = consensusAnswer(ev.wrongAnswer, hits.map((h) => h.text), ev.query);
    const sup = hits.filter((h) => containsAnswer(h.text, read));
    const vectors = sup.length >= p.minClusters ? await this.deps.embedder.embed(sup.map((h) => h.text)) : [];
    const byId = new Map(sup.map((h, i) => [h.id, vectors[i]]));
    return consensusCheck(ev.wrongAnswer, hits.map((h) => ({ id: h.id, text: h.text, vector: byId.get(h.id), source: sourceOf(h.payload, p.sourceKey) })), p, ev.query, suspects);
  }

  /**
   * Texts found in the store but unknown to Postgres (a collection filled by another pipeline, or
   * vectors left by older versions) are registered on the fly. A store text whose hash is already
   * registered under another id (one text, two vectors: Postgres allows one row per text) is
   * folded into the registered document: its vector is written under the document's id when the
   * document has none in the store (flagged quarantined unless the document is ACTIVE; a PURGED
   * text gets none back), then the duplicate point is deleted — the store never serves a text
   * Postgres does not know. (On an attached Qdrant collection the adapter's delete hides the app's
   * point with the quarantine flag instead of deleting it, and the upsert goes to our own
   * collection: the app's data is never removed.) Returns true when it changed the store (the
   * caller searches again).
   */
  private async registerUnknown(ev: FeedbackRow, hits: ScoredHit[]): Promise<boolean> {
    if (!hits.length) return false;
    const { documents, store } = this.deps;
    const known = new Set((await documents.get(hits.map((h) => h.id))).map((d) => d.id));
    const missing = hits.filter((h) => !known.has(h.id)).map((h) => ({ hit: h, hash: textHash(h.text) }));
    if (!missing.length) return false;
    const registered = new Map((await documents.findByHashes(ev.collection, [...new Set(missing.map((m) => m.hash))])).map((d) => [d.textHash, d]));
    const fresh = missing.filter((m) => !registered.has(m.hash));
    // Two unknown points with one text: the first is registered, the other is a duplicate of it.
    const firstByHash = new Map<string, string>();
    for (const m of fresh) if (!firstByHash.has(m.hash)) firstByHash.set(m.hash, m.hit.id);
    const toRegister = fresh.filter((m) => firstByHash.get(m.hash) === m.hit.id);
    if (toRegister.length) {
      await documents.insert(toRegister.map(({ hit }) => documentOfStorePoint(ev.collection, hit)));
    }
    // Whatever is still unregistered by id (a duplicate of a registered text, or a concurrent
    // registration of the same text under another id) is folded into the registered document.
    const stillUnknown = new Set(missing.map((m) => m.hit.id));
    for (const d of await documents.get([...stillUnknown])) stillUnknown.delete(d.id);
    if (!stillUnknown.size) return false;
    const owners = new Map((await documents.findByHashes(ev.collection, [...new Set(missing.filter((m) => stillUnknown.has(m.hit.id)).map((m) => m.hash))])).map((d) => [d.textHash, d]));
    const dups = missing.filter((m) => stillUnknown.has(m.hit.id) && owners.has(m.hash)).map((m) => ({ ...m, owner: owners.get(m.hash)! }));
    if (!dups.length) return false;
    const ownerIds = [...new Set(dups.map((d) => d.owner.id))];
    const present = new Set((await store.fetch(ev.collection, ownerIds)).map((r) => r.id));
    const needVector = new Map<string, (typeof dups)[number]>();
    for (const d of dups) if (!present.has(d.owner.id) && d.owner.status !== 'PURGED' && !needVector.has(d.owner.id)) needVector.set(d.owner.id, d);
    if (needVector.size) {
      const vectors = new Map((await store.fetch(ev.collection, [...needVector.values()].map((d) => d.hit.id))).map((r) => [r.id, r]));
      const records = [...needVector.values()].filter((d) => vectors.has(d.hit.id)).map((d) => ({
        id: d.owner.id, vector: vectors.get(d.hit.id)!.vector, text: d.owner.text, payload: { externalId: d.owner.externalId, metadata: d.owner.metadata },
      }));
      if (records.length) {
        await store.upsert(ev.collection, records);
        const flagged = records.filter((r) => needVector.get(r.id)!.owner.status !== 'ACTIVE').map((r) => r.id);
        if (flagged.length) await store.setQuarantined(ev.collection, flagged, true);
      }
    }
    await store.delete(ev.collection, dups.map((d) => d.hit.id));
    await this.deps.audit.append({
      actor: this.deps.settings.workerActor, action: 'store.duplicates-folded', entityType: 'Collection', entityId: ev.collection,
      details: { feedbackId: ev.id, folded: dups.map((d) => ({ storeId: d.hit.id, documentId: d.owner.id })) },
    });
    return true;
  }
}
