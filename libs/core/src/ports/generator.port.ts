/**
 * Generator port: the RAG's answering LLM (RAGForensics, arXiv 2504.21668, §2.1 and App. 8.1) and the writer of
 * benign texts for benign-text enhancement (App. 8.3). Implemented by an OpenAI-compatible adapter
 * and by a clearly labelled offline adapter (no LLM: extractive answers, template benign texts).
 */
export interface GenerateRequest {
  /** The user's query q (markers already stripped by the caller). */
  query: string;
  /** The served context texts, best first. Benign texts arrive wrapped in `[LATEST] … [/LATEST]`. */
  contexts: string[];
  /** True when a benign text (a substituted retrieval proxy) is among the contexts: use the BTE prompt. */
  enhanced: boolean;
}

export interface GenerateResult {
  answer: string;
  /** 'rag-v1' | 'rag-bte-v1' for the LLM adapter; the offline adapter's own versions otherwise. */
  promptVersion: string;
  latencyMs: number;
}

export interface BenignTextRequest {
  query: string;
  /** The correct answer c the benign text must convey. */
  correctAnswer: string;
}

export interface BenignTextResult {
  /**
   * The benign text b, NOT yet wrapped in `[LATEST] … [/LATEST]` (the caller wraps it) and with
   * any reserved markers the model may have produced removed.
   */
  text: string;
  /** 'bte-v1' for the LLM adapter. */
  promptVersion: string;
}

export interface Generator {
  /** 'openai' | 'offline' | … — recorded with every logged answer and every enhancement. */
  readonly kind: string;
  readonly model: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  benignText(request: BenignTextRequest): Promise<BenignTextResult>;
}

/** Thrown by adapters. `transient` failures (timeouts, 429, 5xx) may be retried. */
export class GeneratorError extends Error {
  constructor(message: string, readonly transient: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GeneratorError';
  }
}
