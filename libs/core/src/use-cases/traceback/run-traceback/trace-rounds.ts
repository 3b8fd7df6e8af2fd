import { acceptRetrieval, acceptServed, nextRetrieval } from '@forensics/algorithms';
import type { ScoredHit } from '../../../ports/vector-store.port';
import { isRetrievalProxy } from '../../serving/serving-view/serving-view';
import { registerUnknown, type RegisterUnknownDeps } from './register-unknown';
import type { TraceRun } from './trace-run';

/** One round's texts to judge: 0 = what the user was served, 1.. = Algorithm 1's retrieval rounds. */
export interface TraceRoundBatch {
  round: number;
  toJudge: string[];
}

/**
 * The retrieval side of Algorithm 1 (RAGForensics, arXiv 2504.21668, §4): which texts each round judges. First, once,
 * the texts the report says the user was served (round 0); then the top K of the query over the knowledge base
 * without what the trace set aside (Cp and the undetermined: `nextRetrieval`), until the pure trace state says it is
 * over (K benign, a bound, or nothing new to judge). It moves `run.state` through the round's retrieval; the caller
 * judges the batch and records the verdicts (`acceptVerdicts`).
 */
export class TraceRounds {
  constructor(private readonly deps: RegisterUnknownDeps) {}

  /** The next round with texts to judge, or null when the trace is over. */
  async nextRound(run: TraceRun): Promise<TraceRoundBatch | null> {
    if (run.state.rounds.length === 0 && run.ev.servedIds.length) {
      const served = acceptServed(run.state, await this.served(run));
      run.state = served.state;
      if (served.toJudge.length) return { round: 0, toJudge: served.toJudge };
    }
    for (let req = nextRetrieval(run.state); req; req = nextRetrieval(run.state)) {
      const r = acceptRetrieval(run.state, (await this.topK(run, req.k, req.excludeIds)).map((h) => h.id));
      run.state = r.state;
      // Nothing new to judge: the state is now DONE or EXHAUSTED, and nextRetrieval says so.
      if (r.toJudge.length) return { round: run.state.round + 1, toJudge: r.toJudge };
    }
    return null;
  }

  /** The served ids registered in the event's collection, in the served order (documents.get does not promise one). */
  private async served(run: TraceRun): Promise<string[]> {
    const { ev } = run;
    const known = (await this.deps.documents.get(ev.servedIds)).filter((d) => d.collection === ev.collection).map((d) => d.id);
    return ev.servedIds.filter((id) => known.includes(id));
  }

  /** The query's top k without `excludeIds` and the enhancements' proxies; store texts Postgres does not know are registered first. */
  private async topK(run: TraceRun, k: number, excludeIds: readonly string[]): Promise<ScoredHit[]> {
    const { ev } = run;
    const search = async () => (await this.deps.store.search(ev.collection, { vector: run.queryVector, k, excludeIds: [...excludeIds, ...run.proxyIds] })).filter((h) => !isRetrievalProxy(h));
    let hits = await search();
    // A duplicate vector folded into its registered text changes the ranking: search again (bounded).
    for (let again = 0; again < 3 && (await registerUnknown(this.deps, ev, hits)); again++) hits = await search();
    // A text keeps the rank it was first retrieved at.
    hits.forEach((h, i) => { if (!run.ranks.has(h.id)) run.ranks.set(h.id, { rank: i + 1, score: h.score }); });
    return hits;
  }
}
