import { reportKey } from '@forensics/algorithms';
import { stripReservedMarkers } from '../../../domain/text-identity';
import type { Embedder } from '../../../ports/embedder.port';
import type { EnhancementRepository } from '../../../ports/repositories';
import type { ScoredHit, VectorStore } from '../../../ports/vector-store.port';

/** Payload `kind` of a retrieval proxy (benign-text enhancement, RAGForensics arXiv 2504.21668, App. 8.3): served as its enhancement's benign text. */
export const BTE_PROXY_KIND = 'bte-proxy';

export function isRetrievalProxy(hit: { payload?: Record<string, unknown> | null }): boolean {
  return hit.payload?.kind === BTE_PROXY_KIND;
}

export interface ServedContext {
  /** Vector store id (a document id, or a retrieval proxy's id for a benign text). */
  id: string;
  text: string;
  score: number;
  /** The app's own id of the text and its metadata, as given at ingest (from the store's payload; null when none). Absent for an enhancement's text. */
  externalId?: string | null;
  metadata?: Record<string, unknown> | null;
  /** Present (true) when this is a benign text served in place of its retrieval proxy. */
  enhancement?: true;
  enhancementId?: string;
}

/**
 * How close an asked question must be to an enhancement's own question for its benign text to be
 * served (cosine of the two questions' embeddings; the proxy's vector is its question's). An
 * enhancement answers one question: served for another one, it puts the wrong fact in front of the
 * generator ("who designed canberra" was answered from the enhancement of "what is the capital of
 * australia"). Measured with `apps/eval/src/enhancement-probe.ts` per encoder, over the questions of
 * every development file: near-duplicates (case, a question mark, spacing, a trailing period) against
 * every other question of the same file (docs/results.md). An encoder not listed gets the strictest.
 */
export const ENHANCEMENT_QUERY_SIMILARITY: Readonly<Record<string, number>> = Object.freeze({ 'use-lite': 0.9, 'all-MiniLM-L6-v2': 0.8 });
export const STRICTEST_QUERY_SIMILARITY = 0.95;

export function defaultQuerySimilarity(embedderId: string): number {
  return ENHANCEMENT_QUERY_SIMILARITY[embedderId] ?? STRICTEST_QUERY_SIMILARITY;
}

/** The question as compared for an exact match: a report's folding (`reportKey`: NFKC, lower case, whitespace runs), punctuation and symbols as spaces. */
export function foldQuestion(q: string): string {
  return reportKey(q.normalize('NFKC').replace(/[\p{P}\p{S}]+/gu, ' '));
}

/** Which enhancements may be served for `query`: its own question (folded equal), or one at least `minSimilarity` close. */
export interface ProxyFilter { query: string; minSimilarity: number }

/** externalId and metadata of a store payload (ingest writes both; a point registered from an attached store may have neither). */
function payloadNames(payload: Record<string, unknown> | null | undefined): { externalId: string | null; metadata: Record<string, unknown> | null } {
  const e = payload?.externalId;
  const m = payload?.metadata;
  return { externalId: typeof e === 'string' ? e : null, metadata: m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : null };
}

/**
 * Proxies → their active enhancement's benign text (already `[LATEST]`-wrapped); proxies with no
 * active enhancement, or whose question is not the asked one (`filter`), are dropped. Every other
 * text has reserved markers removed, so only BTE's own texts can carry `[LATEST]` into the prompt,
 * even for texts that reached the store directly.
 */
export async function substituteProxies(enhancements: EnhancementRepository, collection: string, hits: readonly ScoredHit[], filter?: ProxyFilter): Promise<ServedContext[]> {
  const proxyIds = hits.filter(isRetrievalProxy).map((h) => h.id);
  const asked = filter ? foldQuestion(filter.query) : '';
  const scoreOf = new Map(hits.map((h) => [h.id, h.score]));
  const byProxy = new Map(
    (proxyIds.length ? await enhancements.findActiveByProxyIds(proxyIds) : [])
      .filter((e) => e.state === 'ACTIVE' && e.collection === collection)
      .filter((e) => !filter || foldQuestion(e.query) === asked || (scoreOf.get(e.proxyId) ?? -1) >= filter.minSimilarity)
      .map((e) => [e.proxyId, e]),
  );
  const out: ServedContext[] = [];
  for (const h of hits) {
    if (!isRetrievalProxy(h)) {
      out.push({ id: h.id, text: stripReservedMarkers(h.text), score: h.score, ...payloadNames(h.payload) });
      continue;
    }
    const e = byProxy.get(h.id);
    if (e) out.push({ id: h.id, text: e.benignText, score: h.score, enhancement: true, enhancementId: e.id });
  }
  return out;
}

/**
 * The top-k the RAG serves for `query`: the store's search (quarantined texts excluded there), proxies substituted;
 * a proxy dropped (another question's, or no active enhancement) leaves its place to the next text (one search more).
 */
export async function servedTopK(
  deps: { enhancements: EnhancementRepository; store: VectorStore },
  collection: string, query: string, vector: ArrayLike<number>, k: number, minSimilarity: number,
): Promise<ServedContext[]> {
  const filter = { query, minSimilarity };
  const hits = await deps.store.search(collection, { vector, k });
  const contexts = await substituteProxies(deps.enhancements, collection, hits, filter);
  if (contexts.length === hits.length) return contexts;
  const kept = new Set(contexts.map((c) => c.id));
  const dropped = hits.filter((h) => !kept.has(h.id)).map((h) => h.id);
  return substituteProxies(deps.enhancements, collection, await deps.store.search(collection, { vector, k, excludeIds: dropped }), filter);
}

/** What the RAG serves for q now: top-k from the store (quarantined texts excluded there), proxies substituted. */
export async function servingView(
  deps: { enhancements: EnhancementRepository; store: VectorStore; embedder: Embedder },
  collection: string, query: string, k: number, minSimilarity: number = defaultQuerySimilarity(deps.embedder.id),
): Promise<{ contexts: ServedContext[]; enhanced: boolean }> {
  await deps.embedder.init();
  const [qv] = await deps.embedder.embed([query]);
  const contexts = await servedTopK(deps, collection, query, qv, k, minSimilarity);
  return { contexts, enhanced: contexts.some((c) => c.enhancement) };
}
