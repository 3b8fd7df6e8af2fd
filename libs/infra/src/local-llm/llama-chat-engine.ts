import type { ChatHistoryItem, Llama, LlamaChat, LlamaContext, LlamaModel } from 'node-llama-cpp';
import type { LocalLlmParams } from './local-llm.params';

/** One chat message of the OpenAI subset: the roles the service's adapters send. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatCompletionOptions {
  maxTokens: number;
  /** 0 = greedy (what the adapters send: repeatable verdicts). */
  temperature: number;
  /** Aborts the generation (request timeout, client gone). */
  signal?: AbortSignal;
}

export interface ChatCompletionResult {
  text: string;
  /** OpenAI's finish_reason: 'length' when max_tokens cut the reply, else 'stop'. */
  finishReason: 'stop' | 'length';
  /** Tokens of the whole templated prompt (the part reused from the previous request's cache included). */
  promptTokens: number;
  completionTokens: number;
}

/** The model behind the endpoint; ./chat-completions-server.ts runs one request at a time on it. */
export interface ChatEngine {
  readonly model: string;
  complete(messages: readonly ChatMessage[], options: ChatCompletionOptions): Promise<ChatCompletionResult>;
  close(): Promise<void>;
}

/**
 * A GGUF through node-llama-cpp (the only file that imports it): its prebuilt CPU binary, never a build at run time
 * (`build: 'never'`; no GPU probing), one context with one sequence. Each request is formatted by the model's own
 * chat template (read from the GGUF); message texts are tokenized as plain text, so a text holding a template's
 * control string (`<|im_end|>`) stays text. A request's prompt prefix shared with the previous one (the judge's prompt
 * head) is reused from the sequence's KV cache, not evaluated again.
 *
 * node-llama-cpp is ESM with top-level await: it is loaded with a real `import()` in the process that serves the
 * model (./local-llm.main.ts, run by tsx), never `require`d.
 */
export class LlamaChatEngine implements ChatEngine {
  private constructor(
    readonly model: string,
    private readonly llama: Llama,
    private readonly gguf: LlamaModel,
    private readonly context: LlamaContext,
    private readonly chat: LlamaChat,
  ) {}

  static async load(params: LocalLlmParams): Promise<LlamaChatEngine> {
    const nlc = await import('node-llama-cpp');
    const llama = await nlc.getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: nlc.LlamaLogLevel.error });
    const gguf = await llama.loadModel({ modelPath: params.modelPath, gpuLayers: 0 });
    const context = await gguf.createContext({ contextSize: params.contextSize, sequences: 1, ...(params.threads ? { threads: params.threads } : {}) });
    const chat = new nlc.LlamaChat({ contextSequence: context.getSequence() });
    return new LlamaChatEngine(params.model, llama, gguf, context, chat);
  }

  async complete(messages: readonly ChatMessage[], options: ChatCompletionOptions): Promise<ChatCompletionResult> {
    const history: ChatHistoryItem[] = messages.map((m): ChatHistoryItem =>
      m.role === 'assistant' ? { type: 'model', response: [m.content] } : m.role === 'system' ? { type: 'system', text: m.content } : { type: 'user', text: m.content });
    // The reply is generated as the continuation of an empty model turn.
    history.push({ type: 'model', response: [] });
    const sequence = this.chat.sequence;
    const before = sequence.tokenMeter.getState();
    const reply = await this.chat.generateResponse(history, {
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      signal: options.signal,
    });
    const used = sequence.tokenMeter.diff(before);
    return {
      text: reply.response,
      finishReason: reply.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
      promptTokens: sequence.contextTokens.length - used.usedOutputTokens,
      completionTokens: used.usedOutputTokens,
    };
  }

  async close(): Promise<void> {
    this.chat.dispose();
    await this.context.dispose();
    await this.gguf.dispose();
    await this.llama.dispose();
  }
}
