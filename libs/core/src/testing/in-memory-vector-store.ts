import type { PointPage, ScoredHit, SearchRequest, StoredRecord, VectorRecord, VectorStore } from '../ports/vector-store.port';

interface Row { id: string; vector: Float32Array; norm: number; text: string; payload: Record<string, unknown>; quarantined: boolean }

/**
 * Exact in-memory VectorStore: brute-force cosine similarity over every record, best first, ties
 * broken by id (the port's contract). For unit tests of use cases and for the evaluation harness
 * (one store per question, no I/O). Vectors are copied on write and on fetch.
 */
export class InMemoryVectorStore implements VectorStore {
  readonly kind: string = 'memory';
  private readonly collections = new Map<string, { dimension: number; rows: Map<string, Row> }>();

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
    const c = this.collections.get(collection);
    if (c && c.dimension !== dimension) throw new Error(`collection '${collection}' has dimension ${c.dimension}, not ${dimension}`);
    if (!c) this.collections.set(collection, { dimension, rows: new Map() });
  }

  async upsert(collection: string, records: readonly VectorRecord[]): Promise<void> {
    const c = this.need(collection);
    for (const r of records) {
      if (r.vector.length !== c.dimension) throw new Error(`record ${r.id}: vector has ${r.vector.length} dimensions, collection '${collection}' has ${c.dimension}`);
      const vector = Float32Array.from(r.vector);
      const prev = c.rows.get(r.id);
      c.rows.set(r.id, { id: r.id, vector, norm: l2(vector), text: r.text, payload: { ...(r.payload ?? {}) }, quarantined: r.quarantined ?? prev?.quarantined ?? false });
    }
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const c = this.collections.get(collection);
    if (!c) return [];
    if (request.vector.length !== c.dimension) throw new Error(`query vector has ${request.vector.length} dimensions, collection '${collection}' has ${c.dimension}`);
    const exclude = new Set(request.excludeIds ?? []);
    let qNorm = 0;
    for (let i = 0; i < request.vector.length; i++) qNorm += request.vector[i] * request.vector[i];
    qNorm = Math.sqrt(qNorm);
    const scored: ScoredHit[] = [];
    for (const row of c.rows.values()) {
      if (exclude.has(row.id) || (row.quarantined && !request.includeQuarantined)) continue;
      let dot = 0;
      for (let i = 0; i < row.vector.length; i++) dot += row.vector[i] * request.vector[i];
      const den = row.norm * qNorm;
      scored.push({ id: row.id, score: den > 0 ? dot / den : 0, text: row.text, payload: { ...row.payload } });
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, Math.max(0, request.k));
  }

  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    return Promise.all(requests.map((r) => this.search(collection, r)));
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    const c = this.collections.get(collection);
    if (!c) return [];
    return ids.flatMap((id) => {
      const r = c.rows.get(id);
      return r ? [{ id: r.id, vector: r.vector.slice(), text: r.text, payload: { ...r.payload }, quarantined: r.quarantined }] : [];
    });
  }

  async listPage(collection: string, opts: { after?: string | null; limit: number; withVectors?: boolean; withText?: boolean }): Promise<PointPage> {
    const c = this.collections.get(collection);
    if (!c) return { records: [], next: null };
    const ids = [...c.rows.keys()].filter((id) => opts.after == null || id > opts.after).sort();
    const page = ids.slice(0, Math.max(1, opts.limit));
    const records = page.map((id) => {
      const r = c.rows.get(id)!;
      return {
        id, quarantined: r.quarantined, payload: { ...r.payload },
        ...(opts.withText ? { text: r.text } : {}), ...(opts.withVectors ? { vector: r.vector.slice() } : {}),
      };
    });
    return { records, next: ids.length > page.length ? page[page.length - 1]! : null };
  }

  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    const c = this.collections.get(collection);
    if (!c) return;
    for (const id of ids) {
      const r = c.rows.get(id);
      if (r) r.quarantined = quarantined;
    }
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    const c = this.collections.get(collection);
    for (const id of ids) c?.rows.delete(id);
  }

  async count(collection: string): Promise<number> {
    return this.collections.get(collection)?.rows.size ?? 0;
  }

  async health(): Promise<void> {}

  async close(): Promise<void> {}

  private need(collection: string) {
    const c = this.collections.get(collection);
    if (!c) throw new Error(`collection '${collection}' does not exist: call ensureCollection first`);
    return c;
  }
}

function l2(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}
