import { Bm25Params, validateBm25Params } from './bm25.params';

/** A BM25 index over pre-tokenised documents. Plain data (JSON-serialisable). */
export interface Bm25Index {
  params: Bm25Params;
  /** Number of documents N. */
  docCount: number;
  /** Mean document length avgdl (in tokens); 0 for an empty corpus. */
  avgDocLength: number;
  docLengths: number[];
  /** Per document: term → frequency f(t, d). */
  termFreqs: Record<string, number>[];
  /** Document frequency n(t): how many documents contain t. */
  docFreq: Record<string, number>;
}

/**
 * Build an Okapi BM25 index. Tokenisation is the caller's choice (e.g. `tokenize(text,
 * { removeStopwords: true, stem: true })`), so the same index serves queries and documents.
 */
export function buildBm25Index(docs: readonly (readonly string[])[], params: Partial<Bm25Params> = {}): Bm25Index {
  const p = validateBm25Params(params);
  const termFreqs: Record<string, number>[] = [];
  const docFreq: Record<string, number> = Object.create(null);
  const docLengths: number[] = [];
  for (const doc of docs) {
    const tf: Record<string, number> = Object.create(null);
    for (const t of doc) tf[t] = (tf[t] ?? 0) + 1;
    for (const t of Object.keys(tf)) docFreq[t] = (docFreq[t] ?? 0) + 1;
    termFreqs.push(tf);
    docLengths.push(doc.length);
  }
  const total = docLengths.reduce((a, b) => a + b, 0);
  return { params: p, docCount: docs.length, avgDocLength: docs.length ? total / docs.length : 0, docLengths, termFreqs, docFreq };
}

/**
 * Inverse document frequency, the non-negative (Lucene) form
 *   IDF(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5)),
 * which avoids the negative weights of the classic Robertson–Spärck Jones form for terms in more
 * than half of the documents.
 */
export function bm25Idf(index: Bm25Index, term: string): number {
  const n = index.docFreq[term] ?? 0;
  return Math.log(1 + (index.docCount - n + 0.5) / (n + 0.5));
}

/**
 * Okapi BM25 score of document `docIndex` for a tokenised query:
 *   score(D, Q) = Σ_{t ∈ Q} IDF(t) · f(t,D)·(k1 + 1) / (f(t,D) + k1·(1 − b + b·|D|/avgdl)).
 * A query term repeated in Q counts once per occurrence (the classic formulation).
 */
export function bm25Score(index: Bm25Index, query: readonly string[], docIndex: number): number {
  const tf = index.termFreqs[docIndex];
  if (tf === undefined) throw new RangeError(`docIndex ${docIndex} out of range [0, ${index.docCount})`);
  const { k1, b } = index.params;
  const lenNorm = index.avgDocLength > 0 ? index.docLengths[docIndex] / index.avgDocLength : 0;
  let score = 0;
  for (const t of query) {
    const f = tf[t];
    if (!f) continue;
    score += (bm25Idf(index, t) * f * (k1 + 1)) / (f + k1 * (1 - b + b * lenNorm));
  }
  return score;
}

/** Scores of every document for the query, in document order. */
export function bm25Scores(index: Bm25Index, query: readonly string[]): number[] {
  return index.termFreqs.map((_, i) => bm25Score(index, query, i));
}

/**
 * The `k` best documents for the query, skipping indices in `exclude`. Ties break on the lower
 * document index so results are deterministic. Documents scoring 0 are still returned (a
 * retriever always fills its top-K while the corpus lasts).
 */
export function bm25TopK(index: Bm25Index, query: readonly string[], k: number, exclude: ReadonlySet<number> = new Set()): { index: number; score: number }[] {
  return bm25Scores(index, query)
    .map((score, i) => ({ index: i, score }))
    .filter((r) => !exclude.has(r.index))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, Math.max(0, k));
}
