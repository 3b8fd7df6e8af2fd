import { acceptVerdicts, initTrace, summarizeTrace, type TraceState } from '@forensics/algorithms';
import { PermanentError } from '../../../domain/errors';
import type { Embedder } from '../../../ports/embedder.port';
import type { Judge } from '../../../ports/judge.port';
import type { AuditLogRepository, DocumentRepository, EnhancementRepository, FeedbackEventRepository, VerdictRepository, VerdictRow } from '../../../ports/repositories';
import type { Failpoints, NeighbourLists } from '../../../ports/runtime.port';
import {
  AUDIT_LOG, CORE_SETTINGS, DOCUMENTS, EMBEDDER, ENHANCEMENTS, FAILPOINTS, FEEDBACK_EVENTS, GRADIENT_PROBE, JUDGE, NEIGHBOUR_LISTS, VECTOR_STORE, VERDICTS,
  type GradientProbeProvision,
} from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { CoreSettings } from '../../../settings';
import type { InjectMap } from '../../../use-case';
import { QuarantineTextUseCase } from '../../quarantine/quarantine-text/quarantine-text.use-case';
import { SyncQuarantinesUseCase } from '../../quarantine/sync-quarantines/sync-quarantines.use-case';
import { AttachEvidence } from './attach-evidence';
import { ConsensusOf } from './consensus-of';
import { Decisions, type DecisionsDeps } from './decisions';
import { JudgeBatch } from './judge-batch';
import { RecordOutcome, type TracebackOutcome } from './record-outcome';
import { TopUp } from './top-up';
import { TraceRounds } from './trace-rounds';
import { newTraceRun, type TraceRun } from './trace-run';

export type { TracebackOutcome } from './record-outcome';

export interface RunTracebackCommand {
  feedbackId: string;
  /** Called at each persisted step (progress reporting only: the rows are the source of truth). */
  onProgress?: (step: string, detail?: Record<string, unknown>) => Promise<void> | void;
  /** Aborted: stop at the next safe point (ProcessFeedbackEventCommand.signal); judge calls in flight are aborted too. */
  signal?: AbortSignal;
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
 * RAGForensics traceback for one feedback event (RAGForensics, arXiv 2504.21668, §4, Algorithm 1), driving the pure
 * state machine of @forensics/algorithms over the ports, then the retriever-side evidence and the decision policy. The
 * one code path used by the worker (through ProcessFeedbackEventUseCase, which then verifies and enhances) and by the
 * evaluation harness. `execute` reads as the algorithm: load the event, trace it over rounds (retrieve, judge, set
 * aside), decide, persist; each step is a collaborator of this folder, and what lives across them is one TraceRun.
 *
 * Resumable: every verdict is persisted as soon as it is known; a rerun replays the loop with those verdicts (no
 * judge call is repeated) and completes the quarantine of anything judged poisoned (Postgres record first, then the
 * vector store). It records its outcome on the event's `trace` last; moving the event's status is the pipeline's job.
 */
export class RunTracebackUseCase {
  static readonly inject: InjectMap<RunTracebackDeps> = {
    feedback: FEEDBACK_EVENTS, documents: DOCUMENTS, verdicts: VERDICTS, enhancements: ENHANCEMENTS, audit: AUDIT_LOG,
    store: VECTOR_STORE, embedder: EMBEDDER, judge: JUDGE, probe: GRADIENT_PROBE, neighbours: NEIGHBOUR_LISTS, settings: CORE_SETTINGS,
    quarantineText: QuarantineTextUseCase, syncQuarantines: SyncQuarantinesUseCase, failpoints: FAILPOINTS,
  };
  private readonly rounds: TraceRounds;
  private readonly judging: JudgeBatch;
  private readonly evidence: AttachEvidence;
  private readonly consensus: ConsensusOf;
  private readonly decisionDeps: DecisionsDeps;
  private readonly topUp: TopUp;
  private readonly outcome: RecordOutcome;

  constructor(private readonly deps: RunTracebackDeps) {
    const { documents, verdicts, store, embedder, judge, settings } = deps;
    this.rounds = new TraceRounds({ documents, store, audit: deps.audit, actor: settings.workerActor });
    this.judging = new JudgeBatch({ documents, verdicts, judge, concurrency: settings.trace.judgeConcurrency });
    this.evidence = new AttachEvidence({ store, verdicts, probe: deps.probe, neighbours: deps.neighbours, embedder, settings: settings.evidence });
    this.consensus = new ConsensusOf({ store, embedder, params: settings.consensus });
    this.decisionDeps = { documents, quarantineText: deps.quarantineText, judge, policy: settings.policy, actor: settings.workerActor };
    this.topUp = new TopUp({ store, judging: this.judging, evidence: this.evidence });
    this.outcome = new RecordOutcome({ feedback: deps.feedback, audit: deps.audit, syncQuarantines: deps.syncQuarantines, judge, policy: settings.policy, actor: settings.workerActor });
  }

  async execute(cmd: RunTracebackCommand): Promise<TracebackOutcome> {
    const run = await this.load(cmd);
    // Algorithm 1: retrieve the top K minus what was set aside, judge each, set aside the YES ones, repeat until K
    // texts are benign (or a bound is hit, or nothing new is left to judge). Round 0 is what the user was served.
    for (;;) {
      run.signal?.throwIfAborted();
      const round = await this.rounds.nextRound(run);
      if (!round) break;
      run.state = acceptVerdicts(run.state, await this.judging.judgeTexts(run, round.toJudge, round.round));
      if (round.round === 0) continue;
      this.deps.failpoints.hit('traceback.after-round');
      await this.deps.feedback.update(run.ev.id, { trace: { state: summarizeTrace(run.state), inProgress: true } });
      await cmd.onProgress?.('round', { round: run.state.round, poisoned: run.state.poisoned.length, benign: run.state.benign.length });
    }
    // The product's additions: retriever-side evidence on every judged text, the consensus check, the decision policy
    // (caps, siblings, the vetted baseline), then the top-up of texts a withheld benign text let into the served top K.
    const { poisoned, benign, undetermined } = run.state;
    run.signal?.throwIfAborted();
    await this.evidence.attachEvidence(run, [...poisoned, ...benign, ...undetermined]);
    await cmd.onProgress?.('evidence', { candidates: Object.keys(run.evidence).length });
    const decisions = await Decisions.open(this.decisionDeps, run, await this.consensus.readConsensus(run));
    const topUp = await this.topUp.topUpServed(run, decisions, await decisions.decideTrace());
    return this.outcome.recordOutcome(run, decisions, topUp, cmd.onProgress);
  }

  /** The event, its collection and the trace's bounds, checked; the query's vector, the proxies to skip, this event's earlier verdicts. */
  private async load(cmd: RunTracebackCommand): Promise<TraceRun> {
    const { feedback, documents, verdicts, enhancements, embedder, settings } = this.deps;
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
    const [queryVector] = await embedder.embed([ev.query]);
    const proxyIds = (await enhancements.list({ collection: ev.collection })).map((e) => e.proxyId);
    const prior = new Map<string, VerdictRow>((await verdicts.list(ev.id)).map((v) => [v.documentId, v]));
    return newTraceRun({ ev, collection, queryVector: queryVector!, proxyIds, prior, state, signal: cmd.signal });
  }
}
