export * from './rag-prompts';
export * from './openai-generator.adapter';
export * from './offline-generator.adapter';
export * from './generator.factory';
