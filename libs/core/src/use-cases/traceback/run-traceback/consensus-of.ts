import { consensusAnswer, consensusCheck, containsAnswer, sourceOf, validateConsensusParams, type ConsensusParams, type ConsensusResult } from '@forensics/algorithms';
import type { Embedder } from '../../../ports/embedder.port';
import type { ScoredHit, VectorStore } from '../../../ports/vector-store.port';
import type { TraceRun } from './trace-run';

/** The check's result as the event records it: null when nothing was judged YES, `{ error }` when it failed. */
export type ConsensusRecord = ConsensusResult | { error: string } | null;

export interface ConsensusReading {
  consensus: ConsensusRecord;
  /** The report is a suspected false flag: the texts in `protectedIds` are not auto-quarantined. */
  suspected: boolean;
  protectedIds: ReadonlySet<string>;
}

export interface ConsensusOfDeps {
  store: VectorStore;
  embedder: Embedder;
  /** CONSENSUS_* (the library's defaults where absent). */
  params?: Partial<ConsensusParams>;
}

/**
 * The consensus check (issue 13) before any text is taken out of serving: is the reported answer what many independent
 * texts of the question's wider pool state? Then the report is a suspected false flag, and (per text, issue 33) the
 * suspects the consensus protects are held for review, served. Like evidence, a failure is recorded and never blocks
 * the traceback.
 */
export class ConsensusOf {
  constructor(private readonly deps: ConsensusOfDeps) {}

  async readConsensus(run: TraceRun): Promise<ConsensusReading> {
    let consensus: ConsensusRecord = null;
    if (run.state.poisoned.length) {
      try {
        consensus = await this.check(run, run.state.poisoned);
      } catch (e) {
        consensus = { error: (e as Error).message };
      }
    }
    const suspected = consensus !== null && !('error' in consensus && consensus.error) && (consensus as ConsensusResult).suspected;
    return { consensus, suspected, protectedIds: new Set(suspected ? (consensus as ConsensusResult).protectedIds : []) };
  }

  /**
   * The check's pool: the question's dense top-N (serving texts, enhancement proxies excluded; the texts the judge
   * found inducing the answer too when CONSENSUS_SUSPECTS=exclude, so a planted group reworded past the
   * near-duplicate rule cannot vouch for itself); the vectors of the texts that state the reported answer are read
   * back from the store (search returns none) so near-duplicates are grouped by cosine as well as by shared terms.
   * They are the vectors the collection's embedder wrote (`load` refuses a worker with another embedder); a text
   * whose vector the store lacks is embedded. Embedding them all again cost the production shape ~1.3 s an event
   * with USE-lite on 2 cores (bench:worker --shape production), a third of its time.
   */
  private async check(run: TraceRun, suspects: readonly string[]): Promise<ConsensusResult> {
    const { ev, proxyIds } = run;
    const p = validateConsensusParams(this.deps.params);
    const excludeIds = p.suspects === 'include' ? proxyIds : [...proxyIds, ...suspects];
    const hits = p.enabled ? await this.deps.store.search(ev.collection, { vector: run.queryVector, k: p.pool, excludeIds }) : [];
    // The texts stating the answer as the check reads it (a framed or quoted answer is stated by no text word for word).
    const read = consensusAnswer(ev.wrongAnswer, hits.map((h) => h.text), ev.query);
    const sup = hits.filter((h) => containsAnswer(h.text, read));
    const byId = sup.length >= p.minClusters ? await this.vectorsOf(ev.collection, sup) : new Map<string, Float32Array>();
    return consensusCheck(ev.wrongAnswer, hits.map((h) => ({ id: h.id, text: h.text, vector: byId.get(h.id), source: sourceOf(h.payload, p.sourceKey) })), p, ev.query, suspects);
  }

  /** The stored vectors of `hits` by id; those the store does not hold, embedded. */
  private async vectorsOf(collection: string, hits: readonly ScoredHit[]): Promise<Map<string, Float32Array>> {
    const byId = new Map((await this.deps.store.fetch(collection, hits.map((h) => h.id))).map((r) => [r.id, r.vector]));
    const missing = hits.filter((h) => !(byId.get(h.id)?.length === this.deps.embedder.dimension));
    if (missing.length) {
      const vectors = await this.deps.embedder.embed(missing.map((h) => h.text));
      missing.forEach((h, i) => byId.set(h.id, vectors[i]!));
    }
    return byId;
  }
}
