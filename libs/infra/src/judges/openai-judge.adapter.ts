import { locateSentences } from '@forensics/algorithms';
import { JudgeError, type Judge, type JudgeRequest, type JudgeVerdict, type VerdictLabel } from '@forensics/core';
import { classifyOpenAiError, createOpenAiClient, type OpenAiClient } from '../openai/openai-client';
import { parseRfLabel, parseRfQuotes, renderRf, RF_PROMPT_VERSIONS, RF_V1, type RfPromptVersion } from './rf-prompts';

export interface OpenAiJudgeConfig {
  /** Base URL including `/v1` (OpenAI or any OpenAI-compatible server). */
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request timeout in ms. Default 60000. */
  timeoutMs?: number;
  /** Extra requests after a reply without a usable label. Default 2 (so at most 3 requests). */
  maxReasks?: number;
  /** Transport retries done by the `openai` package itself (429, 5xx, timeouts). Default 2. */
  maxRetries?: number;
  /** 'rf-v1' (default: the paper's prompt verbatim), 'rf-v1-quote' (also asks for the claim's sentences: claim spans, issue 35) or 'rf-v2' (rf-v1-quote with the untrusted values kept as data, issue 60). */
  prompt?: RfPromptVersion;
}

export const OPENAI_JUDGE_DEFAULT_MAX_REASKS = 2;

/**
 * Joins the replies of one verdict for storage: a single reply is stored unchanged; re-asked
 * replies are separated by a header naming the attempt, so an admin can read each one.
 */
export function joinJudgeReplies(replies: readonly string[]): string {
  return replies.map((reply, i) => (i === 0 ? reply : `\n\n--- attempt ${i + 1} ---\n\n${reply}`)).join('');
}

/**
 * RAGForensics judge (RAGForensics, arXiv 2504.21668, §4.2, Algorithm 1 line 9,
 * `LLM(q_i, C_j, t_i)`) over an OpenAI chat completion: prompt `rf-v1` as a single user message,
 * temperature 0 (our choice, for repeatable verdicts; the paper does not state its sampling
 * settings).
 *
 * A reply with no label, or with both labels, is re-asked with the same prompt up to `maxReasks`
 * times and then returned as UNDETERMINED — never as benign. Transport failures surviving the
 * client's own retries become `JudgeError` (transient for 408/409/429/5xx/timeouts/connection,
 * permanent otherwise), so the queue decides whether to retry.
 */
export class OpenAiJudge implements Judge {
  readonly kind = 'openai';
  readonly promptVersion: RfPromptVersion;
  readonly model: string;
  private readonly client: OpenAiClient;
  private readonly maxReasks: number;

  constructor(config: OpenAiJudgeConfig) {
    if (!config.model) throw new Error('OpenAiJudge: model is required');
    const maxReasks = config.maxReasks ?? OPENAI_JUDGE_DEFAULT_MAX_REASKS;
    if (!Number.isInteger(maxReasks) || maxReasks < 0) throw new RangeError(`OpenAiJudge: maxReasks must be a non-negative integer, got ${maxReasks}`);
    if (config.prompt !== undefined && !RF_PROMPT_VERSIONS.includes(config.prompt)) throw new RangeError(`OpenAiJudge: prompt must be one of ${RF_PROMPT_VERSIONS.join(', ')}, got ${String(config.prompt)}`);
    this.model = config.model;
    this.promptVersion = config.prompt ?? RF_V1;
    this.maxReasks = maxReasks;
    this.client = createOpenAiClient({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
    });
  }

  async judge(request: JudgeRequest): Promise<JudgeVerdict> {
    const prompt = renderRf(this.promptVersion, { query: request.query, text: request.text, wrongAnswer: request.wrongAnswer });
    const started = performance.now();
    const replies: string[] = [];
    const finishReasons: (string | null)[] = [];
    let promptTokens = 0;
    let completionTokens = 0;
    let label: VerdictLabel = 'UNDETERMINED';

    for (let attempt = 1; attempt <= 1 + this.maxReasks; attempt++) {
      const completion = await this.complete(prompt, attempt, request.signal);
      const choice = completion.choices?.[0];
      // A null content (refusal, content filter) is an unusable reply like any other.
      replies.push(choice?.message?.content ?? '');
      finishReasons.push(choice?.finish_reason ?? null);
      promptTokens += completion.usage?.prompt_tokens ?? 0;
      completionTokens += completion.usage?.completion_tokens ?? 0;
      label = parseRfLabel(replies[replies.length - 1]);
      if (label !== 'UNDETERMINED') break;
    }

    // Claim spans: the labelled reply's quotes that are found in the text (a quote not found gives no span; none is guessed).
    const quotes = label === 'YES' && this.promptVersion !== RF_V1 ? parseRfQuotes(replies[replies.length - 1]) : [];
    const spans = locateSentences(request.text, quotes);
    return {
      label,
      reply: joinJudgeReplies(replies),
      attempts: replies.length,
      latencyMs: Math.round(performance.now() - started),
      signals: { finishReasons, promptTokens, completionTokens, ...(quotes.length ? { quotes: quotes.length, quotesFound: spans.length } : {}) },
      ...(spans.length ? { spans } : {}),
    };
  }

  private async complete(prompt: string, attempt: number, signal?: AbortSignal) {
    try {
      return await this.client.chat.completions.create({
        model: this.model,
        messages: [{ role: 'user', content: prompt }],
        temperature: 0,
      }, { signal });
    } catch (error) {
      const failure = classifyOpenAiError(error);
      const status = failure.status === undefined ? 'no HTTP response' : `HTTP ${failure.status}`;
      throw new JudgeError(
        `OpenAI judge (${this.model}) request ${attempt} failed (${status}): ${failure.message}`,
        failure.transient,
        { cause: error },
      );
    }
  }
}
