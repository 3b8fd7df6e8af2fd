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
  /** Present (true) when this is a benign text served in place of its retrieval proxy. */
  enhancement?: true;
  enhancementId?: string;
}

/**
 * Proxies → their active enhancement's benign text (already `[LATEST]`-wrapped); proxies with no
 * active enhancement are dropped. Every other text has reserved markers removed, so only BTE's
 * own texts can carry `[LATEST]` into the prompt, even for texts that reached the store directly.
 */
export async function substituteProxies(enhancements: EnhancementRepository, collection: string, hits: readonly ScoredHit[]): Promise<ServedContext[]> {
  const proxyIds = hits.filter(isRetrievalProxy).map((h) => h.id);
  const byProxy = new Map(
    (proxyIds.length ? await enhancements.findActiveByProxyIds(proxyIds) : [])
      .filter((e) => e.state === 'ACTIVE' && e.collection === collection)
      .map((e) => [e.proxyId, e]),
  );
  const out: ServedContext[] = [];
  for (const h of hits) {
    if (!isRetrievalProxy(h)) {
      out.push({ id: h.id, text: stripReservedMarkers(h.text), score: h.score });
      continue;
    }
    const e = byProxy.get(h.id);
    if (e) out.push({ id: h.id, text: e.benignText, score: h.score, enhancement: true, enhancementId: e.id });
  }
  return out;
}

/** What the RAG serves for q now: top-k from the store (quarantined texts excluded there), proxies substituted. */
export async function servingView(
  deps: { enhancements: EnhancementRepository; store: VectorStore; embedder: Embedder },
  collection: string, query: string, k: number,
): Promise<{ contexts: ServedContext[]; enhanced: boolean }> {
  await deps.embedder.init();
  const [qv] = await deps.embedder.embed([query]);
  const contexts = await substituteProxies(deps.enhancements, collection, await deps.store.search(collection, { vector: qv, k }));
  return { contexts, enhanced: contexts.some((c) => c.enhancement) };
}
