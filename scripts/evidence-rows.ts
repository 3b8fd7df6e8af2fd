/**
 * Raw retriever-side evidence (BiRD, GRADA, ProGRank) of the candidates a traceback judges, on one
 * development record — shared by scripts/fit-evidence.ts (calibration) and test/evidence-auroc.test.ts.
 *
 * The setting is the evaluation harness's: the knowledge base of one event is the record's
 * clean_texts ∪ poisoned_texts in its own collection; the feedback event is (question,
 * incorrect_answer). The candidates are the top-`judged` texts for the question (default 2K: the
 * K texts of the first round and about what later rounds reveal). `collectEvidence` — the
 * service's own function — computes the evidence, so the raw values are exactly what a verdict
 * stores. Only raw values are kept here (the suspicion scales are what the fit produces).
 */
import { collectEvidence, DEFAULT_EVIDENCE_SETTINGS, type Embedder, type GradientProbe, type VectorStore } from '@forensics/core';
import { InMemoryVectorStore } from '@forensics/core/testing';

export interface EvidenceRecordInput {
  id: string;
  question: string;
  poisoned_texts: string[];
  clean_texts: string[];
}

/** The raw evidence of one judged candidate. */
export interface EvidenceRow {
  file: string;
  question: string;
  /** 1-based retrieval rank for the question. */
  rank: number;
  poisoned: boolean;
  /** BiRD composite score S (Eq. 9); null = not computed; 'Infinity' when r_cc = 1. */
  birdS: number | 'Infinity' | null;
  grada: { score: number; rankBefore: number; rankAfter: number; poolSize: number } | null;
  /** ProGRank: applied penalty w·(P_rep + P_dr) of a probed text; penalty 0 + probed false outside the gated tail; null without a probe. */
  progrank: { penalty: number; probed: boolean; gateWeight: number } | null;
}

export interface EvidenceRowOptions {
  file: string;
  embedder: Embedder;
  probe?: GradientProbe | null;
  /** Traceback K (default 5). */
  k?: number;
  /** Candidates per record (default 2K). */
  judged?: number;
  /** ProGRank runs R (default the service's, 20). */
  runs?: number;
  /** The vector store (default: a fresh in-memory one); each record gets its own collection in it. */
  store?: VectorStore;
}

export async function evidenceRowsFor(r: EvidenceRecordInput, o: EvidenceRowOptions): Promise<EvidenceRow[]> {
  const k = o.k ?? 5;
  const texts = [...r.clean_texts, ...r.poisoned_texts];
  // A text given both as clean and as poisoned is the attacker's (the harness's rule).
  const poisonedSet = new Set(r.poisoned_texts);
  const ids = new Map<string, string>();
  for (const t of texts) if (!ids.has(t)) ids.set(t, `t${ids.size}`);
  const unique = [...ids.keys()];
  const vectors = await o.embedder.embed(unique);
  const [qv] = await o.embedder.embed([r.question]);
  const store = o.store ?? new InMemoryVectorStore();
  const collection = `kb_${r.id.replace(/[^A-Za-z0-9_]/g, '_')}`;
  await store.ensureCollection(collection, vectors[0].length);
  await store.upsert(collection, unique.map((text, i) => ({ id: ids.get(text)!, vector: vectors[i], text })));
  const top = await store.search(collection, { vector: qv, k: o.judged ?? 2 * k });
  const evidence = await collectEvidence({
    store, probe: o.probe ?? null, probeUnavailableReason: 'no probe', collection, query: r.question, queryVector: qv,
    retrieverId: o.embedder.id, k, judgedIds: top.map((h) => h.id),
    settings: { ...DEFAULT_EVIDENCE_SETTINGS, ...(o.runs ? { progrankRuns: o.runs } : {}) },
  });
  return top.map((h, i) => {
    const e = evidence[h.id] as unknown as {
      bird: { score?: number }; grada: { score?: number; rankBefore?: number; rankAfter?: number; poolSize?: number };
      progrank: { penalty?: number; probed?: boolean; gateWeight?: number; skipped?: string };
    };
    const s = e.bird.score;
    return {
      file: o.file,
      question: r.id,
      rank: i + 1,
      poisoned: poisonedSet.has(h.text),
      birdS: s === undefined ? null : s === Number.POSITIVE_INFINITY ? 'Infinity' : s,
      grada: e.grada.score === undefined ? null : { score: e.grada.score, rankBefore: e.grada.rankBefore!, rankAfter: e.grada.rankAfter!, poolSize: e.grada.poolSize! },
      progrank: e.progrank.gateWeight === undefined ? null : { penalty: e.progrank.penalty ?? 0, probed: e.progrank.probed === true, gateWeight: e.progrank.gateWeight },
    };
  });
}

/** A record qualifies when its clean pool is at least `minClean` texts (a top-20 pool with the poisons inside it, as in PoisonedRAG's setting). */
export function qualifies(r: EvidenceRecordInput, minClean = 20): boolean {
  return r.clean_texts.length >= minClean && r.poisoned_texts.length > 0;
}
