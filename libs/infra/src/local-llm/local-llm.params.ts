/**
 * Settings of the local LLM (issue 60): one GGUF served on loopback as the OpenAI chat-completions subset the
 * service's adapters use (./chat-completions-server.ts), so the same OpenAI judge and generator talk to a hosted or
 * a local model. Plain data; `validateLocalLlmParams` throws a RangeError naming the setting.
 */
export interface LocalLlmParams {
  /** The model's name: what requests must send as `model` and what verdicts record. */
  model: string;
  /** Path of the GGUF file. */
  modelPath: string;
  /** CPU threads for llama.cpp; 0 = llama.cpp's own choice (the machine's cores). */
  threads: number;
  /** Context size in tokens (prompt + reply of one request). */
  contextSize: number;
  /** Budget of one request in ms, from its arrival (queue wait included) to its reply; past it the reply is 504. */
  requestTimeoutMs: number;
  /** Reply tokens when a request names no max_tokens. */
  defaultMaxTokens: number;
  /** Requests waiting at most (beyond the one running); more are answered 429, which the client retries. */
  maxQueue: number;
}

export const LOCAL_LLM_DEFAULTS = {
  threads: 0,
  contextSize: 4096,
  requestTimeoutMs: 120_000,
  defaultMaxTokens: 256,
  maxQueue: 64,
} as const satisfies Partial<LocalLlmParams>;

export function validateLocalLlmParams(p: LocalLlmParams): LocalLlmParams {
  const int = (name: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`local LLM: ${name} must be an integer in [${min}, ${max}], got ${v}`);
  };
  if (!p.model) throw new RangeError('local LLM: model is required');
  if (!p.modelPath) throw new RangeError('local LLM: modelPath is required');
  int('threads', p.threads, 0, 256);
  int('contextSize', p.contextSize, 256, 131_072);
  int('requestTimeoutMs', p.requestTimeoutMs, 100, 3_600_000);
  int('defaultMaxTokens', p.defaultMaxTokens, 1, 32_768);
  int('maxQueue', p.maxQueue, 0, 10_000);
  return p;
}
