import type { CandidateEvidence } from '../../../domain/evidence-record';
import type { Embedder } from '../../../ports/embedder.port';
import type { VerdictRepository } from '../../../ports/repositories';
import type { NeighbourLists } from '../../../ports/runtime.port';
import type { GradientProbeProvision } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import { collectEvidence, DEFAULT_EVIDENCE_SETTINGS, type EvidenceSettings } from './collect-evidence';
import type { TraceRun } from './trace-run';

export interface AttachEvidenceDeps {
  store: VectorStore;
  verdicts: VerdictRepository;
  probe: GradientProbeProvision;
  neighbours: NeighbourLists;
  /** The retriever's encoder: a probe of the same encoder (Embedder.id) is white-box. */
  embedder: Pick<Embedder, 'id'>;
  settings: Partial<EvidenceSettings>;
}

/**
 * Retriever-side evidence (BiRD, GRADA, ProGRank: collect-evidence.ts) on judged texts, stored on their verdicts, and
 * kept on the run with the verdict rows as stored (what the decisions read). Evidence corroborates; it never blocks
 * the traceback: a failure is recorded on the verdicts it was for, and the run keeps the first one.
 */
export class AttachEvidence {
  private readonly settings: EvidenceSettings;
  constructor(private readonly deps: AttachEvidenceDeps) {
    this.settings = { ...DEFAULT_EVIDENCE_SETTINGS, ...deps.settings };
  }

  async attachEvidence(run: TraceRun, ids: readonly string[]): Promise<void> {
    const { verdicts } = this.deps;
    const { got, error } = await this.collect(run, ids);
    Object.assign(run.evidence, got);
    const wanted = new Set(ids);
    for (const v of await verdicts.list(run.ev.id)) if (wanted.has(v.documentId)) run.verdictRows.set(v.documentId, v);
    for (const id of ids) {
      const v = run.verdictRows.get(id);
      if (v && (got[id] || error)) {
        const { id: _id, createdAt: _c, ...row } = v;
        await verdicts.save({ ...row, evidence: got[id] ?? { error: error! } });
      }
    }
  }

  private async collect(run: TraceRun, ids: readonly string[]): Promise<{ got: Record<string, CandidateEvidence>; error: string | null }> {
    if (!this.settings.enabled || !ids.length) return { got: {}, error: null };
    const { store, probe, neighbours, embedder } = this.deps;
    const { ev } = run;
    try {
      const got = await collectEvidence({
        store, probe: probe.probe, probeUnavailableReason: probe.reason, cache: neighbours,
        collection: ev.collection, query: ev.query, queryVector: run.queryVector, retrieverId: embedder.id, k: ev.k, judgedIds: [...ids], excludeIds: run.proxyIds, settings: this.settings,
      });
      return { got, error: null };
    } catch (e) {
      const error = (e as Error).message;
      run.evidenceError ??= error;
      return { got: {}, error };
    }
  }
}
