import type { VectorStore } from '../../../ports/vector-store.port';
import { isRetrievalProxy } from '../../serving/serving-view/serving-view';
import type { AttachEvidence } from './attach-evidence';
import type { Decisions } from './decisions';
import type { JudgeBatch } from './judge-batch';
import type { TraceRun } from './trace-run';

export interface TopUpResult {
  /** Top-up rounds run and texts they judged (both 0 when none was needed). */
  rounds: number;
  judged: number;
  /** The texts the top-up judged, by label. */
  poisoned: string[];
  benign: string[];
  undetermined: string[];
}

export interface TopUpDeps {
  store: VectorStore;
  judging: JudgeBatch;
  evidence: AttachEvidence;
}

/**
 * Top-up (issue 33): the trace stopped with K texts judged benign, so whatever is served for the question was judged —
 * unless a decision then withheld one of those benign texts (a band NO in a report with a clear YES, or a planted
 * sibling). Then a text the trace never saw moves into the served top K: judge the served top K's new texts and decide
 * them the same way (evidence, siblings, policy), until every text served for the question was judged (bounded by the
 * trace's round and judge-call limits).
 */
export class TopUp {
  constructor(private readonly deps: TopUpDeps) {}

  async topUpServed(run: TraceRun, decisions: Decisions, benignWithheld: boolean): Promise<TopUpResult> {
    const { ev, state } = run;
    const out: TopUpResult = { rounds: 0, judged: 0, poisoned: [], benign: [], undetermined: [] };
    const seen = new Set([...state.poisoned, ...state.benign, ...state.undetermined, ...run.proxyIds]);
    while (benignWithheld && out.rounds < state.params.maxRounds) {
      run.signal?.throwIfAborted();
      const hits = (await this.deps.store.search(ev.collection, { vector: run.queryVector, k: ev.k, excludeIds: run.proxyIds })).filter((h) => !isRetrievalProxy(h));
      const fresh = hits.map((h) => h.id).filter((id) => !seen.has(id));
      if (!fresh.length || run.judgeCalls + fresh.length > state.params.maxJudgeCalls) break;
      out.rounds += 1;
      out.judged += fresh.length;
      hits.forEach((h, i) => { if (!run.ranks.has(h.id)) run.ranks.set(h.id, { rank: i + 1, score: h.score }); });
      const labels = await this.deps.judging.judgeTexts(run, fresh, state.round + out.rounds);
      await this.deps.evidence.attachEvidence(run, fresh);
      await decisions.findSiblings(fresh.filter((id) => labels[id] === 'NO'));
      benignWithheld = false;
      for (const id of fresh) {
        seen.add(id);
        const label = labels[id]!;
        (label === 'YES' ? out.poisoned : label === 'NO' ? out.benign : out.undetermined).push(id);
        if ((await decisions.decideText(id)) && label === 'NO') benignWithheld = true;
      }
    }
    return out;
  }
}
