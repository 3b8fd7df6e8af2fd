export * from './openai-client';
export * from './openai-embedder.adapter';
