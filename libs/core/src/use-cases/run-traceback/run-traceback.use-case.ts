import {
  acceptRetrieval, acceptServed, acceptVerdicts, decide, initTrace, nextRetrieval, summarizeTrace,
  type DecisionPolicyParams, type Label, type TraceParams, type TraceState,
} from '@forensics/algorithms';
import type { GradientProbe } from '../../ports/gradient-probe.port';
import { collectEvidence, DEFAULT_EVIDENCE_SETTINGS, type CandidateEvidence, type EvidenceSettings, type NeighbourCache } from './collect-evidence';
import { PermanentError } from '../../domain/errors';
import { textHash, verdictCacheKey } from '../../domain/text-identity';
import type { Embedder } from '../../ports/embedder.port';
import type { DocumentRow, FeedbackRow, ForensicsRepository, VerdictRow } from '../../ports/forensics-repository.port';
import type { Judge } from '../../ports/judge.port';
import type { ScoredHit, VectorStore } from '../../ports/vector-store.port';
import { mapPool } from '../../util/pool';
import { QuarantineTextsUseCase } from '../reconcile-quarantine/quarantine-texts.use-case';

export interface RunTracebackCommand {
  feedbackId: string;
  /** Called at each persisted step (the queue stores it so a retried job can report where it resumed). */
  onProgress?: (step: string, detail?: Record<string, unknown>) => Promise<void> | void;
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
}

export interface RunTracebackDeps {
  repo: ForensicsRepository;
  store: VectorStore;
  embedder: Embedder;
  judge: Judge;
  trace: Omit<TraceParams, 'k'> & { judgeConcurrency: number };
  /** Who quarantines (recorded in the audit log). */
  actor?: string;
  /** Failpoint hook for crash-safety tests: called at named points (e.g. 'quarantine.after-db'). */
  failpoint?: (name: string) => void;
  /** Retriever-side evidence (BiRD, GRADA, ProGRank); default on, ProGRank only with a probe. */
  evidence?: Partial<EvidenceSettings>;
  probe?: GradientProbe | null;
  probeUnavailableReason?: string;
  neighbourCache?: NeighbourCache;
  /** Decision policy over judge verdict + evidence; default judge-only (the paper). */
  policy?: Partial<DecisionPolicyParams>;
}

/**
 * RAGForensics traceback for one feedback event (ragforensics.md §4, Algorithm 1), driving the
 * pure state machine of @forensics/algorithms over the ports. This is the one code path used by
 * the worker, the CLI and the evaluation harness.
 *
 * Resumable: every verdict is persisted as soon as it is known; a retried run replays the loop
 * with those verdicts (no judge call is repeated) and completes the quarantine of anything judged
 * poisoned (Postgres record first, then the vector store; see QuarantineTextsUseCase).
 */
export class RunTracebackUseCase {
  private readonly quarantine: QuarantineTextsUseCase;

  constructor(private readonly deps: RunTracebackDeps) {
    this.quarantine = new QuarantineTextsUseCase({ repo: deps.repo, store: deps.store, failpoint: deps.failpoint });
  }

  async execute(cmd: RunTracebackCommand): Promise<TracebackOutcome> {
    const { repo, store, embedder, judge } = this.deps;
    const ev = await repo.getFeedback(cmd.feedbackId);
    if (!ev) throw new PermanentError(`feedback event ${cmd.feedbackId} does not exist`);
    const collection = await repo.getCollection(ev.collection);
    if (!collection) throw new PermanentError(`collection '${ev.collection}' is unknown: ingest texts into it first`);
    await embedder.init();
    if (collection.embedder !== embedder.id) {
      throw new PermanentError(
        `collection '${ev.collection}' was embedded with '${collection.embedder}' but this worker uses '${embedder.id}'`,
      );
    }
    await repo.updateFeedback(ev.id, { status: 'TRACING', attempts: ev.attempts + 1 });
    await cmd.onProgress?.('tracing', { attempt: ev.attempts + 1 });

    const [qvec] = await embedder.embed([ev.query]);
    // Retrieval proxies of benign-text enhancements are ours, not knowledge-base texts: never judged.
    const proxyIds = (await repo.listEnhancements({ collection: ev.collection, state: 'ACTIVE' })).map((e) => e.proxyId);
    const prior = new Map<string, VerdictRow>((await repo.listVerdicts(ev.id)).map((v) => [v.documentId, v]));
    let state = initTrace({ k: ev.k, maxRounds: this.deps.trace.maxRounds, maxJudgeCalls: this.deps.trace.maxJudgeCalls });
    let cachedVerdicts = 0;
    let judgeCalls = 0;
    const hitInfo = new Map<string, { rank: number; score: number }>();

    const judgeBatch = async (ids: string[], round: number): Promise<Record<string, Label>> => {
      const docs = new Map((await repo.getDocuments(ids)).map((d) => [d.id, d]));
      const peers = ids.map((id) => docs.get(id)?.text).filter((t): t is string => !!t);
      const labels: Record<string, Label> = {};
      await mapPool(ids, this.deps.trace.judgeConcurrency, async (id) => {
        const doc = docs.get(id);
        if (!doc) throw new PermanentError(`document ${id} is in the vector store but not registered`);
        const done = prior.get(id);
        if (done) { labels[id] = done.label; return; }
        const key = verdictCacheKey({ textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer, judgeModel: judge.model, promptVersion: judge.promptVersion });
        const hit = hitInfo.get(id);
        const cached = await repo.findVerdictByCacheKey(key);
        if (cached && cached.judgeKind === judge.kind) {
          cachedVerdicts++;
          labels[id] = cached.label;
          await repo.saveVerdict({ ...stripVerdict(cached), feedbackId: ev.id, documentId: id, round, cached: true, latencyMs: 0, retrievalRank: hit?.rank ?? null, retrievalScore: hit?.score ?? null });
          return;
        }
        judgeCalls++;
        const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: doc.text, peers: peers.filter((p) => p !== doc.text) });
        labels[id] = v.label;
        await repo.saveVerdict({
          feedbackId: ev.id, documentId: id, round, label: v.label, judgeKind: judge.kind, judgeModel: judge.model,
          promptVersion: judge.promptVersion, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs),
          cacheKey: key, cached: false, signals: (v.signals ?? null) as unknown, evidence: null, retrievalRank: hit?.rank ?? null, retrievalScore: hit?.score ?? null,
        });
      });
      return labels;
    };

    // Round 0: the texts the user was actually served, when the feedback carries them.
    if (ev.servedIds.length) {
      const known = (await repo.getDocuments(ev.servedIds)).filter((d) => d.collection === ev.collection).map((d) => d.id);
      const served = acceptServed(state, known);
      state = served.state;
      if (served.toJudge.length) state = acceptVerdicts(state, await judgeBatch(served.toJudge, 0));
    }

    for (;;) {
      const req = nextRetrieval(state);
      if (!req) break;
      const hits = await store.search(ev.collection, { vector: qvec, k: req.k, excludeIds: [...req.excludeIds, ...proxyIds] });
      await this.registerUnknown(ev, hits);
      hits.forEach((h, i) => { if (!hitInfo.has(h.id)) hitInfo.set(h.id, { rank: i + 1, score: h.score }); });
      const r = acceptRetrieval(state, hits.map((h) => h.id));
      state = r.state;
      if (!r.toJudge.length) continue;
      state = acceptVerdicts(state, await judgeBatch(r.toJudge, state.round + 1));
      this.deps.failpoint?.('traceback.after-round');
      await repo.updateFeedback(ev.id, { trace: { state: summarizeTrace(state), inProgress: true } as unknown });
      await cmd.onProgress?.('round', { round: state.round, poisoned: state.poisoned.length, benign: state.benign.length });
    }

    // Retriever-side evidence on every judged candidate, then the decision policy.
    const settings: EvidenceSettings = { ...DEFAULT_EVIDENCE_SETTINGS, ...(this.deps.evidence ?? {}) };
    const judgedIds = [...state.poisoned, ...state.benign, ...state.undetermined];
    let evidence: Record<string, CandidateEvidence> = {};
    let evidenceError: string | null = null;
    if (settings.enabled && judgedIds.length) {
      try {
        evidence = await collectEvidence({
          store, probe: this.deps.probe, probeUnavailableReason: this.deps.probeUnavailableReason, cache: this.deps.neighbourCache,
          collection: ev.collection, query: ev.query, queryVector: qvec, retrieverId: embedder.id, k: ev.k, judgedIds, excludeIds: proxyIds, settings,
        });
      } catch (e) {
        // Evidence corroborates; it never blocks the traceback. The failure is recorded.
        evidenceError = (e as Error).message;
      }
    }
    const finalVerdicts = new Map((await repo.listVerdicts(ev.id)).map((x) => [x.documentId, x]));
    for (const id of judgedIds) {
      const v = finalVerdicts.get(id);
      if (v && (evidence[id] || evidenceError)) {
        const { id: _id, createdAt: _c, ...row } = v;
        await repo.saveVerdict({ ...row, evidence: evidence[id] ?? { error: evidenceError } });
      }
    }
    await cmd.onProgress?.('evidence', { candidates: Object.keys(evidence).length });

    const quarantined: string[] = [];
    const review: string[] = [];
    for (const id of judgedIds) {
      const v = finalVerdicts.get(id);
      const label = (state.verdicts[id] ?? v?.label) as Label;
      const e = evidence[id];
      const outcome = decide({ label, evidence: e ? { available: e.combined.available, suspicion: e.combined.suspicion, agrees: e.combined.agrees } : { available: false } }, this.deps.policy);
      if (outcome.decision === 'KEEP') continue;
      const res = await this.quarantine.execute({
        documentId: id, feedbackId: ev.id, collection: ev.collection, policy: outcome.policy,
        state: outcome.decision === 'QUARANTINE' ? 'QUARANTINED' : 'NEEDS_REVIEW', servedDuringReview: !outcome.withhold,
        reason: `${outcome.reason} — query "${ev.query}", wrong answer "${ev.wrongAnswer}", judge ${judge.kind}:${judge.model}`,
        evidence: {
          policy: { name: outcome.policy, decision: outcome.decision, withhold: outcome.withhold, reason: outcome.reason, inputs: outcome.inputs },
          judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion, label: v?.label, reply: v?.reply, signals: v?.signals ?? null },
          retrieval: hitInfo.get(id) ?? null,
          retrieverEvidence: e ?? (evidenceError ? { error: evidenceError } : null),
        },
        actor: this.deps.actor ?? 'traceback-worker',
      });
      if (res.created) (outcome.decision === 'QUARANTINE' ? quarantined : review).push(id);
    }
    // Complete any quarantine of this event left half-done by a crash (Postgres written, store not).
    await this.quarantine.syncPending({ feedbackId: ev.id });
    await cmd.onProgress?.('quarantined', { count: state.poisoned.length });

    const status: 'TRACED' | 'BOUNDED' = state.status === 'BOUNDED' ? 'BOUNDED' : 'TRACED';
    const outcome: TracebackOutcome = {
      feedbackId: ev.id, status, poisoned: state.poisoned, benign: state.benign, undetermined: state.undetermined,
      quarantined, review, judgeCalls, cachedVerdicts, rounds: state.round, traceStatus: state.status, boundReason: state.boundReason,
    };
    await repo.updateFeedback(ev.id, {
      status, tracedAt: new Date(), failureReason: null,
      trace: { state: summarizeTrace(state), rounds: state.rounds, boundReason: state.boundReason ?? null, judge: { kind: judge.kind, model: judge.model, promptVersion: judge.promptVersion }, lastRun: { judgeCalls, cachedVerdicts }, policy: this.deps.policy?.name ?? 'judge-only', evidenceError } as unknown,
    });
    await repo.audit({ actor: this.deps.actor ?? 'traceback-worker', action: `traceback.${status.toLowerCase()}`, entityType: 'FeedbackEvent', entityId: ev.id, details: { poisoned: state.poisoned.length, benign: state.benign.length, undetermined: state.undetermined.length, boundReason: state.boundReason ?? null } });
    return outcome;
  }

  /** Texts found in the store but unknown to Postgres (a collection filled by another pipeline) are registered on the fly. */
  private async registerUnknown(ev: FeedbackRow, hits: ScoredHit[]): Promise<void> {
    if (!hits.length) return;
    const known = new Set((await this.deps.repo.getDocuments(hits.map((h) => h.id))).map((d) => d.id));
    const missing = hits.filter((h) => !known.has(h.id));
    if (!missing.length) return;
    await this.deps.repo.insertDocuments(missing.map((h): Omit<DocumentRow, 'status'> => {
      const hash = textHash(h.text);
      return { id: h.id, collection: ev.collection, externalId: typeof h.payload?.externalId === 'string' ? h.payload.externalId : null, textHash: hash, text: h.text, metadata: null };
    }));
  }
}

function stripVerdict(v: VerdictRow) {
  const { id: _id, createdAt: _c, ...rest } = v;
  return rest;
}
