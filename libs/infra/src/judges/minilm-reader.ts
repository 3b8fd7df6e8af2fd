import { READER_FEATURES, readerFeatures, type ReaderFeatures, type ReaderVectors } from '@forensics/algorithms';
import type { OnnxEmbedder, OnnxForwardResult } from '../embedders/onnx-embedder.adapter';

/** What the reader reads for one judged text: the rule judge's reading of the answer and of where it is stated. */
export interface ReaderInput {
  query: string;
  /** The answer as the rule judge read it (its claim, or the quoted span). */
  answer: string;
  text: string;
  /** Sentences stating the answer (the rule judge's claim sentences); empty when it found none. */
  claims: readonly string[];
  /** Every sentence of the text as the rule judge split it. */
  sentences: readonly string[];
}

/** What the reader judge needs of a reader: its encoder's id and the features of one text (MiniLmReader, or a cache of it). */
export interface TextReader {
  readonly id: string;
  read(input: ReaderInput): Promise<ReaderFeatures>;
}

/** Sentences read per text beside the claims (the longest texts are cut here, not at the encoder). */
const MAX_OTHER_SENTENCES = 8;
const MAX_CLAIMS = 3;

/**
 * The reader's encoder half (issue 59): runs all-MiniLM-L6-v2 (through the project's `OnnxEmbedder`, onnxruntime-node)
 * over the question, "question answer", the text, its claim sentences and its other sentences — one session run per
 * judged text plus one per event's question — and keeps the token states of the answer inside the claim sentences
 * and inside "question answer" (mean of its tokens, `answerState`): the contextual reading the features compare.
 * The arithmetic on the vectors is `readerFeatures` (@forensics/algorithms); the weights are fitted with the rule
 * judge's features (apps/eval/src/judge-fit).
 */
export class MiniLmReader implements TextReader {
  private readonly questionCache = new Map<string, { query: Float32Array; queryAnswer: Float32Array; answerInQuery: Float32Array | null }>();
  private readonly answerIdCache = new Map<string, number[]>();

  constructor(private readonly encoder: OnnxEmbedder, private readonly cacheSize = 256) {}

  get id(): string { return this.encoder.id; }

  async init(): Promise<void> { await this.encoder.init(); }

  async close(): Promise<void> { await this.encoder.close(); }

  async read(input: ReaderInput): Promise<ReaderFeatures> {
    return readerFeatures(await this.vectors(input));
  }

  async vectors(input: ReaderInput): Promise<ReaderVectors> {
    const q = await this.question(input.query, input.answer);
    const answerIds = await this.answerIds(input.answer);
    const claimSet = new Set(input.claims);
    const claims = input.claims.slice(0, MAX_CLAIMS);
    const others = input.sentences.filter((s) => !claimSet.has(s) && s.trim()).slice(0, MAX_OTHER_SENTENCES);
    const r = await this.encoder.forward([input.text, ...claims, ...others]);
    return {
      ...q,
      text: r.embeddings[0],
      claims: claims.map((_, i) => ({ sentence: r.embeddings[1 + i], answerTokens: answerState(r, 1 + i, answerIds, false) })),
      others: others.map((_, i) => r.embeddings[1 + claims.length + i]),
    };
  }

  private async question(query: string, answer: string) {
    const key = `${query}\u0000${answer}`;
    const hit = this.questionCache.get(key);
    if (hit) return hit;
    const answerIds = await this.answerIds(answer);
    const r = await this.encoder.forward([query, questionAnswer(query, answer)]);
    const v = { query: r.embeddings[0], queryAnswer: r.embeddings[1], answerInQuery: answerState(r, 1, answerIds, true) };
    if (this.questionCache.size >= this.cacheSize) this.questionCache.delete(this.questionCache.keys().next().value!);
    this.questionCache.set(key, v);
    return v;
  }

  /** The answer's word-piece ids without the special tokens. */
  private async answerIds(answer: string): Promise<number[]> {
    const hit = this.answerIdCache.get(answer);
    if (hit) return hit;
    const enc = await this.encoder.encode([answer]);
    const ids = Array.from(enc.inputIds.slice(1, enc.lengths[0] - 1), Number);
    if (this.answerIdCache.size >= this.cacheSize) this.answerIdCache.delete(this.answerIdCache.keys().next().value!);
    this.answerIdCache.set(answer, ids);
    return ids;
  }
}

export { READER_FEATURES };

/** "question? answer": the question answered with the reported answer, as one sentence for the encoder. */
export function questionAnswer(query: string, answer: string): string {
  const q = query.trim().replace(/[?.!\s]+$/, '');
  return `${q}? ${answer.trim()}`;
}

/**
 * Mean token state (unit length) of the answer's word pieces in row `b`: the first contiguous run of its ids (the
 * last one when `fromEnd`, as in "question? answer"), else every token whose id is one of the answer's. Null when
 * none of its pieces is there.
 */
export function answerState(r: OnnxForwardResult, b: number, answerIds: readonly number[], fromEnd: boolean): Float32Array | null {
  if (!answerIds.length || r.hidden.dims.length !== 3) return null;
  const seq = r.seqLength;
  const dim = r.hidden.dims[2];
  const ids: number[] = [];
  for (let t = 0; t < seq; t++) if (r.attentionMask[b * seq + t] === 1n) ids.push(Number(r.inputIds[b * seq + t]));
  let positions: number[] = [];
  const n = answerIds.length;
  const starts: number[] = [];
  for (let s = 0; s + n <= ids.length; s++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) ok = ids[s + k] === answerIds[k];
    if (ok) starts.push(s);
  }
  if (starts.length) {
    const s = fromEnd ? starts[starts.length - 1] : starts[0];
    positions = Array.from({ length: n }, (_, k) => s + k);
  } else {
    const want = new Set(answerIds);
    positions = ids.map((id, t) => (want.has(id) && t > 0 && t < ids.length - 1 ? t : -1)).filter((t) => t >= 0);
  }
  if (!positions.length) return null;
  const v = new Float32Array(dim);
  for (const t of positions) {
    const off = (b * seq + t) * dim;
    for (let d = 0; d < dim; d++) v[d] += r.hidden.data[off + d];
  }
  let norm = 0;
  for (let d = 0; d < dim; d++) norm += v[d] * v[d];
  const inv = 1 / Math.max(Math.sqrt(norm), 1e-12);
  for (let d = 0; d < dim; d++) v[d] *= inv;
  return v;
}
