/**
 * The worker process of bench/worker.bench.ts: the production worker (createWorkerApp, the same
 * modules as `npm run start:worker`) with timing wrappers put around its port instances after
 * start-up, so every call a traceback job makes is timed and attributed to the job's feedback event
 * (the job's AsyncLocalStorage log context carries feedbackId). Not a profiler guess: each event's
 * record lists the wall time its calls spent, per kind, as the union of their intervals
 * (concurrent judge calls count once):
 *   judge      Judge.judge
 *   retrieval  Embedder.embed + VectorStore.search (the traceback's top-K rounds)
 *   evidence   from the end of the last round to the evidence being stored (BiRD's batched
 *              backward retrievals, GRADA, the ProGRank probe: collectEvidence as a whole)
 *   postgres   every repository call (Prisma), outside the evidence stretch
 * and the job's total (first to last call). It also times the traceback's own steps (the collaborators of
 * libs/core/src/use-cases/traceback/run-traceback and the pipeline's verify and enhance use cases), each step's
 * self time (its wall time less the steps it called), so an event's time splits into
 *   load       RunTracebackUseCase.load: the event, its collection, the query's vector, earlier verdicts
 *   retrieve   TraceRounds.nextRound: the served round and each top-K round
 *   judge      JudgeBatch.judgeTexts: the round's texts read and judged, verdicts stored
 *   evidence   AttachEvidence.attachEvidence: BiRD / GRADA / ProGRank
 *   decide     ConsensusOf.readConsensus, Decisions.open and decideTrace: consensus, policy, quarantine
 *   topUp      TopUp.topUpServed: texts a withheld benign text let into the served top K
 *   persist    RecordOutcome.recordOutcome and the event's own writes (progress, pipeline steps, the final status)
 *   verify     VerifyTracebackUseCase.execute
 *   enhance    EnhanceAnswerUseCase.execute
 * with `other` the rest of the job's time (the job wrapper, the pipeline's reads). One JSON line per event goes to TIMINGS_FILE;
 * `judgeInFlightMax` is the most judge calls this process had in flight at once.
 * Started by the bench with the service's environment; prints "ready" when it takes jobs.
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import { EMBEDDER, EnhanceAnswerUseCase, GRADIENT_PROBE, JUDGE, RunTracebackUseCase, VECTOR_STORE, VerifyTracebackUseCase } from '@forensics/core';
import { AttachEvidence } from '../libs/core/src/use-cases/traceback/run-traceback/attach-evidence';
import { ConsensusOf } from '../libs/core/src/use-cases/traceback/run-traceback/consensus-of';
import { Decisions } from '../libs/core/src/use-cases/traceback/run-traceback/decisions';
import { JudgeBatch } from '../libs/core/src/use-cases/traceback/run-traceback/judge-batch';
import { RecordOutcome } from '../libs/core/src/use-cases/traceback/run-traceback/record-outcome';
import { TopUp } from '../libs/core/src/use-cases/traceback/run-traceback/top-up';
import { TraceRounds } from '../libs/core/src/use-cases/traceback/run-traceback/trace-rounds';
import { currentLogContext, loadConfig, REPOSITORIES } from '@forensics/infra';
import { createWorkerApp } from '../apps/worker/src/create-worker-app';

type Kind = 'judge' | 'retrieval' | 'evidence' | 'postgres';
const STEPS = ['load', 'retrieve', 'judge', 'evidence', 'decide', 'topUp', 'persist', 'verify', 'enhance'] as const;
type Step = (typeof STEPS)[number];
interface EventTimes {
  start: number; end: number; intervals: Record<Kind, [number, number][]>; steps: [Step, number, number][];
  lastLoopEnd: number; calls: Record<string, [number, number]>; verdictLists: number; judgeCalls: number; judgeInFlightMax: number; judgeInFlight: number;
}

const file = process.env.TIMINGS_FILE;
if (!file) throw new Error('TIMINGS_FILE is required');
const events = new Map<string, EventTimes>();
let judgeInFlight = 0;
let judgeInFlightMax = 0;

function times(): EventTimes | null {
  const id = currentLogContext().feedbackId;
  if (typeof id !== 'string') return null;
  let t = events.get(id);
  if (!t) {
    t = { start: performance.now(), end: 0, intervals: { judge: [], retrieval: [], evidence: [], postgres: [] }, steps: [], lastLoopEnd: performance.now(), calls: {}, verdictLists: 0, judgeCalls: 0, judgeInFlightMax: 0, judgeInFlight: 0 };
    events.set(id, t);
  }
  return t;
}

/** Replaces obj[name] by a timed version; `before`/`after` see the event's record. */
function wrap(obj: Record<string, unknown>, name: string, kind: Kind | null, hooks: { before?: (t: EventTimes) => void; after?: (t: EventTimes, t0: number, t1: number) => void } = {}): void {
  const fn = obj[name];
  if (typeof fn !== 'function') return;
  const label = (obj.constructor as { name?: string } | undefined)?.name ?? 'port';
  obj[name] = async function timed(this: unknown, ...args: unknown[]) {
    const t = times();
    if (t) hooks.before?.(t);
    const t0 = performance.now();
    try {
      return await (fn as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
    } finally {
      const t1 = performance.now();
      if (t) {
        t.end = t1;
        const c = (t.calls[`${label}.${name}`] ??= [0, 0]);
        c[0]++; c[1] += t1 - t0;
        if (kind) t.intervals[kind].push([t0, t1]);
        hooks.after?.(t, t0, t1);
      }
    }
  };
}

function union(iv: [number, number][]): number {
  const s = [...iv].sort((a, b) => a[0] - b[0]);
  let total = 0; let cur: [number, number] | null = null;
  for (const [a, b] of s) {
    if (!cur || a > cur[1]) { if (cur) total += cur[1] - cur[0]; cur = [a, b]; } else cur[1] = Math.max(cur[1], b);
  }
  if (cur) total += cur[1] - cur[0];
  return total;
}

/** Replaces a method of a class (its prototype, or the class itself for a static one) by one that records a step interval. */
function wrapStep(target: object, name: string, step: Step): void {
  const obj = target as Record<string, unknown>;
  const fn = obj[name];
  if (typeof fn !== 'function') throw new Error(`no method ${name} to time as step ${step}: the traceback's steps were renamed`);
  obj[name] = async function timedStep(this: unknown, ...args: unknown[]) {
    const t = times();
    const t0 = performance.now();
    try {
      return await (fn as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } finally {
      if (t) t.steps.push([step, t0, performance.now()]);
    }
  };
}

/** Each step's self time: its intervals' wall time less the union of the step intervals inside them. */
function stepSelfTimes(t: EventTimes): Record<Step, number> {
  const out = Object.fromEntries(STEPS.map((s) => [s, 0])) as Record<Step, number>;
  for (const [i, [step, a, b]] of t.steps.entries()) {
    const inner = t.steps.filter(([, x, y], j) => j !== i && x >= a && y <= b && (x > a || y < b || j < i)).map(([, x, y]) => [x, y] as [number, number]);
    out[step] += b - a - union(inner);
  }
  return out;
}

/** Wall time of a kind's calls outside the evidence stretch (which is counted as evidence). */
function outside(t: EventTimes, kind: Kind): number {
  const ev = t.intervals.evidence;
  return union(t.intervals[kind].filter(([a, b]) => !ev.some(([x, y]) => a >= x && b <= y)));
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const app = await createWorkerApp(config, { logger: false });
  // The end of the rounds: the last top-K search, judge call or progress write before the evidence.
  const loopEnd = (t: EventTimes, _t0: number, t1: number) => { if (t.verdictLists < 2) t.lastLoopEnd = t1; };

  wrapStep(RunTracebackUseCase.prototype, 'load', 'load');
  wrapStep(TraceRounds.prototype, 'nextRound', 'retrieve');
  wrapStep(JudgeBatch.prototype, 'judgeTexts', 'judge');
  wrapStep(AttachEvidence.prototype, 'attachEvidence', 'evidence');
  wrapStep(ConsensusOf.prototype, 'readConsensus', 'decide');
  wrapStep(Decisions, 'open', 'decide');
  wrapStep(Decisions.prototype, 'decideTrace', 'decide');
  wrapStep(TopUp.prototype, 'topUpServed', 'topUp');
  wrapStep(RecordOutcome.prototype, 'recordOutcome', 'persist');
  wrapStep(VerifyTracebackUseCase.prototype, 'execute', 'verify');
  wrapStep(EnhanceAnswerUseCase.prototype, 'execute', 'enhance');

  const judge = app.get(JUDGE) as unknown as Record<string, unknown>;
  wrap(judge, 'judge', 'judge', {
    before: (t) => { t.judgeCalls++; t.judgeInFlight++; t.judgeInFlightMax = Math.max(t.judgeInFlightMax, t.judgeInFlight); judgeInFlightMax = Math.max(judgeInFlightMax, ++judgeInFlight); },
    after: (t, t0, t1) => { t.judgeInFlight--; judgeInFlight--; loopEnd(t, t0, t1); },
  });
  const store = app.get(VECTOR_STORE) as unknown as Record<string, unknown>;
  wrap(store, 'search', 'retrieval', { after: loopEnd });
  for (const m of ['searchBatch', 'fetch', 'setQuarantined', 'upsert', 'count', 'revision']) wrap(store, m, 'retrieval');
  wrap(app.get(EMBEDDER) as unknown as Record<string, unknown>, 'embed', 'retrieval');
  const probe = (app.get(GRADIENT_PROBE) as { probe?: Record<string, unknown> }).probe;
  if (probe) for (const m of Object.getOwnPropertyNames(Object.getPrototypeOf(probe))) if (m !== 'constructor') wrap(probe, m, null);
  const repos = app.get(REPOSITORIES) as unknown as Record<string, Record<string, unknown>>;
  for (const [name, repo] of Object.entries(repos)) {
    const methods = new Set<string>();
    for (let p = Object.getPrototypeOf(repo); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) for (const m of Object.getOwnPropertyNames(p)) if (m !== 'constructor') methods.add(m);
    for (const m of methods) {
      if (name === 'verdicts' && m === 'list') {
        // RunTraceback lists the event's verdicts twice: before the rounds, and right after collectEvidence.
        wrap(repo, m, 'postgres', {
          before: (t) => {
            t.verdictLists++;
            if (t.verdictLists === 2) t.intervals.evidence.push([t.lastLoopEnd, performance.now()]);
          },
        });
      } else if (name === 'feedback' && m === 'update') {
        wrap(repo, m, 'postgres', { after: loopEnd });
        wrapStep(repo, m, 'persist');
      } else wrap(repo, m, 'postgres');
    }
  }
  // A job is over when its event reaches a terminal status: its record is written then.
  const feedback = repos.feedback;
  const transition = feedback.transition as (id: string, change: { to: string }) => Promise<unknown>;
  feedback.transition = async (id: string, change: { to: string }) => {
    const s0 = performance.now();
    const out = await transition.call(feedback, id, change);
    const t = events.get(id);
    if (t) t.steps.push(['persist', s0, performance.now()]);
    if (t && out && ['TRACED', 'BOUNDED', 'FAILED'].includes(change.to)) {
      const end = performance.now();
      appendFileSync(file!, `${JSON.stringify({
        feedbackId: id, pid: process.pid, status: change.to, totalMs: +(end - t.start).toFixed(1),
        ms: { judge: +outside(t, 'judge').toFixed(1), retrieval: +outside(t, 'retrieval').toFixed(1), evidence: +union(t.intervals.evidence).toFixed(1), postgres: +outside(t, 'postgres').toFixed(1) },
        calls: Object.fromEntries(Object.entries(t.calls).map(([k, [n, ms]]) => [k, [n, +ms.toFixed(1)]])),
        steps: Object.fromEntries(Object.entries(stepSelfTimes(t)).map(([k, v]) => [k, +v.toFixed(1)])),
        judgeCalls: t.judgeCalls, judgeInFlightMaxEvent: t.judgeInFlightMax, judgeInFlightMaxProcess: judgeInFlightMax,
      })}\n`);
      events.delete(id);
    }
    return out;
  };
  process.stdout.write('ready\n');
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await app.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack ?? e.message : String(e));
  process.exit(1);
});
