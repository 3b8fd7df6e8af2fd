import { GeneratorError, stripReservedMarkers, type BenignTextRequest, type BenignTextResult, type GenerateRequest, type GenerateResult, type Generator } from '@forensics/core';
import { classifyOpenAiError, createOpenAiClient, type OpenAiClient } from '../openai/openai-client';
import { BTE_V1, RAG_BTE_V1, RAG_V1, renderBteV1, renderRagBteV1, renderRagV1 } from './rag-prompts';

export interface OpenAiGeneratorConfig {
  /** Base URL including `/v1` (OpenAI or any OpenAI-compatible server). */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request timeout in ms. Default 60000. */
  timeoutMs?: number;
  /** Transport retries done by the `openai` package itself. Default 2. */
  maxRetries?: number;
}

/**
 * The RAG's answering LLM over an OpenAI chat completion, temperature 0. The filled prompt is sent
 * as a single user message (as the paper's reference code does): `rag-v1` (RAGForensics,
 * arXiv 2504.21668, App. 8.1) normally, `rag-bte-v1` (App. 8.3) when a benign text is among the
 * contexts. `benignText` uses `bte-v1`. Failures surviving the client's retries become
 * `GeneratorError` (transient for 408/409/429/5xx/timeouts/connection errors).
 */
export class OpenAiGenerator implements Generator {
  readonly kind = 'openai';
  readonly model: string;
  private readonly client: OpenAiClient;

  constructor(config: OpenAiGeneratorConfig) {
    if (!config.model) throw new Error('OpenAiGenerator: model is required');
    this.model = config.model;
    this.client = createOpenAiClient({ baseURL: config.baseURL, apiKey: config.apiKey, timeoutMs: config.timeoutMs, maxRetries: config.maxRetries });
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const promptVersion = request.enhanced ? RAG_BTE_V1 : RAG_V1;
    const prompt = request.enhanced ? renderRagBteV1(request.query, request.contexts) : renderRagV1(request.query, request.contexts);
    const started = performance.now();
    const answer = await this.complete(prompt, promptVersion);
    return { answer: answer.trim(), promptVersion, latencyMs: Math.round(performance.now() - started) };
  }

  async benignText(request: BenignTextRequest): Promise<BenignTextResult> {
    const reply = await this.complete(renderBteV1(request.query, request.correctAnswer), BTE_V1);
    // Only BTE may create [LATEST] markers: the model's own are removed before the caller wraps.
    const text = stripReservedMarkers(reply).trim();
    if (!text) throw new GeneratorError(`OpenAI generator (${this.model}) returned an empty benign text`, false);
    return { text, promptVersion: BTE_V1 };
  }

  private async complete(prompt: string, promptVersion: string): Promise<string> {
    let completion;
    try {
      completion = await this.client.chat.completions.create({ model: this.model, messages: [{ role: 'user', content: prompt }], temperature: 0 });
    } catch (error) {
      const failure = classifyOpenAiError(error);
      const status = failure.status === undefined ? 'no HTTP response' : `HTTP ${failure.status}`;
      throw new GeneratorError(`OpenAI generator (${this.model}, ${promptVersion}) request failed (${status}): ${failure.message}`, failure.transient, { cause: error });
    }
    const choice = completion.choices?.[0];
    const content = choice?.message?.content;
    if (typeof content !== 'string') {
      throw new GeneratorError(`OpenAI generator (${this.model}, ${promptVersion}) returned no content (finish reason ${choice?.finish_reason ?? 'unknown'})`, false);
    }
    return content;
  }
}
