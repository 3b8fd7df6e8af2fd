export * from './offline-judge.adapter';
export * from './openai-judge.adapter';
export * from './rf-prompts';
export * from './minilm-reader';
export * from './reader-judge.adapter';
