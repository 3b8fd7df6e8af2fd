import type { Label } from '@forensics/algorithms';
import { PermanentError } from '../../../domain/errors';
import type { Judge } from '../../../ports/judge.port';
import type { DocumentRepository, VerdictRepository } from '../../../ports/repositories';
import { mapPool } from '../../../util/pool';
import type { TraceRun } from './trace-run';
import { cachedVerdict } from './verdict-cache';

export interface JudgeBatchDeps {
  documents: DocumentRepository;
  verdicts: VerdictRepository;
  judge: Judge;
  /** Texts of one batch judged at once (JUDGE_CONCURRENCY). */
  concurrency: number;
}

/**
 * Judges one batch of a traceback's candidates (a round of Algorithm 1, or the top-up's new texts) and persists every
 * verdict as soon as it is known, so a rerun of the event judges nothing twice. Per text, the first of: this event's
 * verdict from an earlier run (replayed, not saved again); the shared verdict cache (saved as a cached copy for this
 * event); the judge (saved with its cache key). Each request carries the round's other texts as `peers` and the texts
 * the user was served as `context`.
 */
export class JudgeBatch {
  constructor(private readonly deps: JudgeBatchDeps) {}

  async judgeTexts(run: TraceRun, ids: readonly string[], round: number): Promise<Record<string, Label>> {
    const { documents, verdicts, judge } = this.deps;
    const { ev } = run;
    const docs = new Map((await documents.get(ids)).map((d) => [d.id, d]));
    for (const d of docs.values()) run.docs.set(d.id, d);
    const peers = ids.map((id) => docs.get(id)?.text).filter((t): t is string => !!t);
    run.servedContext ??= peers;
    const labels: Record<string, Label> = {};
    // mapPool settles every call in flight before it throws: an aborted batch writes no verdict after it returns.
    await mapPool(ids, this.deps.concurrency, async (id) => {
      run.signal?.throwIfAborted();
      const doc = docs.get(id);
      if (!doc) throw new PermanentError(`document ${id} is in the vector store but not registered`);
      const done = run.prior.get(id);
      if (done) { labels[id] = done.label; return; }
      const { key, hit: cached } = await cachedVerdict(verdicts, judge, { textHash: doc.textHash, query: ev.query, wrongAnswer: ev.wrongAnswer });
      const hit = run.ranks.get(id);
      const retrieval = { retrievalRank: hit?.rank ?? null, retrievalScore: hit?.score ?? null };
      if (cached) {
        run.cachedVerdicts++;
        labels[id] = cached.label;
        const { id: _id, createdAt: _c, ...reuse } = cached;
        await verdicts.save({ ...reuse, feedbackId: ev.id, documentId: id, round, cached: true, latencyMs: 0, ...retrieval });
        return;
      }
      run.judgeCalls++;
      const v = await judge.judge({ query: ev.query, wrongAnswer: ev.wrongAnswer, text: doc.text, peers: peers.filter((p) => p !== doc.text), context: run.servedContext, signal: run.signal });
      // An aborted call's reply (if the judge returned one anyway) is not saved: the run stops here.
      run.signal?.throwIfAborted();
      labels[id] = v.label;
      await verdicts.save({
        feedbackId: ev.id, documentId: id, round, label: v.label, judgeKind: judge.kind, judgeModel: judge.model,
        promptVersion: judge.promptVersion, reply: v.reply, attempts: v.attempts, latencyMs: Math.round(v.latencyMs),
        cacheKey: key, cached: false, signals: v.signals ?? null, spans: v.spans?.length ? v.spans : null, evidence: null, ...retrieval,
      });
    });
    return labels;
  }
}
