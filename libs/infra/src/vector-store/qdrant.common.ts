/**
 * What the two Qdrant adapters share (qdrant-vector-store.adapter.ts: our own collections;
 * qdrant-attached-vector-store.adapter.ts: an app's existing collection): the client, HTTP status
 * reading, id chunking, the search filter (flag key + excluded point ids) and the batched query that
 * skips k = 0 requests. Each adapter keeps only what differs: names, payload layout, id mapping.
 */
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type { ScoredHit, SearchRequest } from '@forensics/core';

export type QdrantFilter = Schemas['Filter'];
export type QdrantCondition = Schemas['Condition'];
export type QdrantPointId = string | number;
type QueryRequest = Schemas['QueryRequest'];
type ScoredPoint = Schemas['ScoredPoint'];

/** Point ids per request of a write or read by id. */
export const QDRANT_ID_CHUNK = 1000;

export function qdrantClient(options: { url: string; apiKey?: string; timeoutMs?: number }): QdrantClient {
  return new QdrantClient({ url: options.url, apiKey: options.apiKey, timeout: options.timeoutMs ?? 30_000, checkCompatibility: false });
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The HTTP status of a Qdrant client error, if it has one. */
export function statusOf(error: unknown): number | undefined {
  if (error && typeof error === 'object' && 'status' in error) {
    const status = (error as { status: unknown }).status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

/** `must_not`: the quarantine flag (unless the request includes quarantined texts) and the excluded points. */
export function searchFilter(r: SearchRequest, flagKey: string, excluded: readonly QdrantPointId[]): QdrantFilter | undefined {
  const mustNot: QdrantCondition[] = [];
  if (!r.includeQuarantined) mustNot.push({ key: flagKey, match: { value: true } });
  if (excluded.length > 0) mustNot.push({ has_id: [...excluded] });
  return mustNot.length > 0 ? { must_not: mustNot } : undefined;
}

/**
 * One `query/batch` request for the requests with k > 0 (the others get no hits); `toHits` turns each
 * answer's points into hits for its request.
 */
export async function queryBatchHits(
  requests: readonly SearchRequest[],
  query: (searches: QueryRequest[]) => Promise<{ points: ScoredPoint[] }[]>,
  search: (r: SearchRequest) => QueryRequest,
  toHits: (points: ScoredPoint[], r: SearchRequest) => ScoredHit[],
): Promise<ScoredHit[][]> {
  const live = requests.map((r, i) => ({ r, i })).filter(({ r }) => r.k > 0);
  const results: ScoredHit[][] = requests.map(() => []);
  if (live.length === 0) return results;
  const responses = await query(live.map(({ r }) => search(r)));
  live.forEach(({ r, i }, n) => {
    results[i] = toHits(responses[n]?.points ?? [], r);
  });
  return results;
}
