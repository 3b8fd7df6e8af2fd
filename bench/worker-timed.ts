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
 * and the job's total (first to last call). One JSON line per event goes to TIMINGS_FILE;
 * `judgeInFlightMax` is the most judge calls this process had in flight at once.
 * Started by the bench with the service's environment; prints "ready" when it takes jobs.
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import { EMBEDDER, GRADIENT_PROBE, JUDGE, VECTOR_STORE } from '@forensics/core';
import { currentLogContext, loadConfig, REPOSITORIES } from '@forensics/infra';
import { createWorkerApp } from '../apps/worker/src/create-worker-app';

type Kind = 'judge' | 'retrieval' | 'evidence' | 'postgres';
interface EventTimes {
  start: number; end: number; intervals: Record<Kind, [number, number][]>;
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
    t = { start: performance.now(), end: 0, intervals: { judge: [], retrieval: [], evidence: [], postgres: [] }, lastLoopEnd: performance.now(), calls: {}, verdictLists: 0, judgeCalls: 0, judgeInFlightMax: 0, judgeInFlight: 0 };
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
      } else if (name === 'feedback' && m === 'update') wrap(repo, m, 'postgres', { after: loopEnd });
      else wrap(repo, m, 'postgres');
    }
  }
  // A job is over when its event reaches a terminal status: its record is written then.
  const feedback = repos.feedback;
  const transition = feedback.transition as (id: string, change: { to: string }) => Promise<unknown>;
  feedback.transition = async (id: string, change: { to: string }) => {
    const out = await transition.call(feedback, id, change);
    const t = events.get(id);
    if (t && out && ['TRACED', 'BOUNDED', 'FAILED'].includes(change.to)) {
      const end = performance.now();
      appendFileSync(file!, `${JSON.stringify({
        feedbackId: id, pid: process.pid, status: change.to, totalMs: +(end - t.start).toFixed(1),
        ms: { judge: +outside(t, 'judge').toFixed(1), retrieval: +outside(t, 'retrieval').toFixed(1), evidence: +union(t.intervals.evidence).toFixed(1), postgres: +outside(t, 'postgres').toFixed(1) },
        calls: Object.fromEntries(Object.entries(t.calls).map(([k, [n, ms]]) => [k, [n, +ms.toFixed(1)]])),
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
