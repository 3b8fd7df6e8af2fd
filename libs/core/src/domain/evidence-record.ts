import type { BirdResult, combineEvidence, GradaResult, ProgrankResult } from '@forensics/algorithms';

/**
 * Retriever-side evidence stored per judged candidate (on its verdict) and shown by
 * GET /v1/feedback/:id: raw values and a suspicion in [0, 1] from BiRD (arXiv 2605.20123),
 * GRADA (arXiv 2505.07546) and ProGRank (arXiv 2603.22934), or why one was skipped.
 */
export interface CandidateEvidence {
  bird: ({ suspicion: number } & Omit<BirdResult, 'id'>) | { skipped: string };
  grada: ({ suspicion: number; n: number } & Omit<GradaResult, 'id'>) | { skipped: string };
  progrank: ({ suspicion: number; encoder: string; layer: string; exact: boolean; querySide?: string; runs: number } & Omit<ProgrankResult, 'id'>)
    | { skipped: string; encoder?: string; layer?: string; score?: number; gateWeight?: number; defendedScore?: number };
  combined: ReturnType<typeof combineEvidence>;
  ms: { bird: number; grada: number; progrank: number };
}
