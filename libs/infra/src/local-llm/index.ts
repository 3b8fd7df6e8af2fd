export * from './local-llm.params';
export * from './chat-completions-server';
export * from './llama-chat-engine';
