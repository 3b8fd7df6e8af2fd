import type { Generator } from '@forensics/core';
import { OfflineGenerator } from './offline-generator.adapter';
import { OpenAiGenerator } from './openai-generator.adapter';

export const DEFAULT_GENERATOR_MODEL = 'gpt-4o-mini';

/**
 * The part of the app config the factory reads (AppConfig satisfies it). `generator` is optional
 * until AppConfig grows such a section; without it the judge's model and timeout are used.
 */
export interface GeneratorFactoryConfig {
  openai: { baseURL?: string; apiKey?: string };
  generator?: { kind?: 'offline' | 'openai'; model?: string; timeoutMs?: number };
  judge?: { model?: string; timeoutMs?: number };
}

/** OpenAI-compatible generator when an OpenAI base URL or key is configured (or kind says so), else offline. */
export function createGenerator(config: GeneratorFactoryConfig): Generator {
  const kind = config.generator?.kind ?? (config.openai.baseURL || config.openai.apiKey ? 'openai' : 'offline');
  if (kind === 'offline') return new OfflineGenerator();
  return new OpenAiGenerator({
    baseURL: config.openai.baseURL ?? 'https://api.openai.com/v1',
    apiKey: config.openai.apiKey || 'not-needed',
    model: config.generator?.model ?? config.judge?.model ?? DEFAULT_GENERATOR_MODEL,
    timeoutMs: config.generator?.timeoutMs ?? config.judge?.timeoutMs,
  });
}
