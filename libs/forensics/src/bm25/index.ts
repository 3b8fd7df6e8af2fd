export { buildBm25Index, bm25Idf, bm25Score, bm25Scores, bm25TopK } from './bm25';
export type { Bm25Index } from './bm25';
export { DEFAULT_BM25_PARAMS, validateBm25Params } from './bm25.params';
export type { Bm25Params } from './bm25.params';
