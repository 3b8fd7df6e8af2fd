import { bm25Score, buildBm25Index, tokenize, type Bm25Index } from '@forensics/algorithms';
import type { Embedder, ScoredHit, SearchRequest, StoredRecord, VectorRecord, VectorStore } from '@forensics/core';

/**
 * BM25 retrieval behind the Embedder / VectorStore ports, so `RunTracebackUseCase` runs unchanged
 * with a lexical retriever (the setting of the offline judge's development numbers and of the data
 * README's trivial baseline).
 *
 * The ports pass only a vector from the embedder to the store, and BM25 needs the query's words.
 * So the two halves share a `TextHandles` table and the "vector" is a HANDLE, not an embedding:
 * `Bm25HandleEmbedder.embed(text)` interns the text and returns the 1-d vector [handle]; the store
 * maps the handle back to the text and ranks the collection by Okapi BM25 (k1 = 1.2, b = 0.75,
 * stopword-free, lightly stemmed tokens). Handles are exact in float32 up to 2^24 texts. The pair
 * only works together (the store rejects a vector that is not one of its handles), and `score` in
 * hits is the BM25 score, not a cosine. IDF is computed over the whole collection, quarantined
 * records included (quarantine only takes a text out of serving).
 */
export class TextHandles {
  private readonly ids = new Map<string, number>();
  private readonly texts: string[] = [];

  intern(text: string): number {
    let h = this.ids.get(text);
    if (h === undefined) {
      h = this.texts.length;
      if (h >= 2 ** 24) throw new RangeError('TextHandles: more than 2^24 texts cannot be represented exactly in float32');
      this.texts.push(text);
      this.ids.set(text, h);
    }
    return h;
  }

  text(handle: number): string | undefined {
    return Number.isInteger(handle) ? this.texts[handle] : undefined;
  }
}

export const BM25_EMBEDDER_ID = 'bm25-handle';

export class Bm25HandleEmbedder implements Embedder {
  readonly id = BM25_EMBEDDER_ID;
  readonly dimension = 1;

  constructor(readonly handles: TextHandles) {}

  async init(): Promise<void> {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => Float32Array.of(this.handles.intern(t)));
  }

  async close(): Promise<void> {}
}

const bm25Tokens = (s: string) => tokenize(s, { removeStopwords: true, stem: true });

interface Collection {
  rows: Map<string, { id: string; vector: Float32Array; text: string; payload: Record<string, unknown>; quarantined: boolean; tokens: string[] }>;
  index: { order: string[]; bm25: Bm25Index } | null;
}

export class Bm25RetrievalStore implements VectorStore {
  readonly kind = 'bm25';
  private readonly collections = new Map<string, Collection>();

  constructor(private readonly handles: TextHandles) {}

  async ensureCollection(collection: string, dimension: number): Promise<void> {
    if (dimension !== 1) throw new Error(`Bm25RetrievalStore stores 1-d text handles, not ${dimension}-d vectors: pair it with Bm25HandleEmbedder`);
    if (!this.collections.has(collection)) this.collections.set(collection, { rows: new Map(), index: null });
  }

  async upsert(collection: string, records: readonly VectorRecord[]): Promise<void> {
    const c = this.need(collection);
    for (const r of records) {
      const prev = c.rows.get(r.id);
      c.rows.set(r.id, { id: r.id, vector: Float32Array.from(r.vector), text: r.text, payload: { ...(r.payload ?? {}) }, quarantined: prev?.quarantined ?? false, tokens: bm25Tokens(r.text) });
    }
    c.index = null;
  }

  async search(collection: string, request: SearchRequest): Promise<ScoredHit[]> {
    const c = this.collections.get(collection);
    if (!c) return [];
    const query = this.handles.text(request.vector[0]);
    if (request.vector.length !== 1 || query === undefined) throw new Error('Bm25RetrievalStore: the query vector is not a text handle from Bm25HandleEmbedder');
    if (!c.index) {
      const order = [...c.rows.keys()];
      c.index = { order, bm25: buildBm25Index(order.map((id) => c.rows.get(id)!.tokens)) };
    }
    const { order, bm25 } = c.index;
    const q = bm25Tokens(query);
    const exclude = new Set(request.excludeIds ?? []);
    const hits: ScoredHit[] = [];
    order.forEach((id, i) => {
      const row = c.rows.get(id)!;
      if (exclude.has(id) || (row.quarantined && !request.includeQuarantined)) return;
      hits.push({ id, score: bm25Score(bm25, q, i), text: row.text, payload: { ...row.payload } });
    });
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return hits.slice(0, Math.max(0, request.k));
  }

  async searchBatch(collection: string, requests: readonly SearchRequest[]): Promise<ScoredHit[][]> {
    return Promise.all(requests.map((r) => this.search(collection, r)));
  }

  async fetch(collection: string, ids: readonly string[]): Promise<StoredRecord[]> {
    const c = this.collections.get(collection);
    return ids.flatMap((id) => {
      const r = c?.rows.get(id);
      return r ? [{ id: r.id, vector: r.vector.slice(), text: r.text, payload: { ...r.payload }, quarantined: r.quarantined }] : [];
    });
  }

  async setQuarantined(collection: string, ids: readonly string[], quarantined: boolean): Promise<void> {
    const c = this.collections.get(collection);
    for (const id of ids) {
      const r = c?.rows.get(id);
      if (r) r.quarantined = quarantined;
    }
  }

  async delete(collection: string, ids: readonly string[]): Promise<void> {
    const c = this.collections.get(collection);
    if (!c) return;
    for (const id of ids) c.rows.delete(id);
    c.index = null;
  }

  async count(collection: string): Promise<number> {
    return this.collections.get(collection)?.rows.size ?? 0;
  }

  async health(): Promise<void> {}

  async close(): Promise<void> {}

  private need(collection: string): Collection {
    const c = this.collections.get(collection);
    if (!c) throw new Error(`collection '${collection}' does not exist: call ensureCollection first`);
    return c;
  }
}
