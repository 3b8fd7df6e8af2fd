export * from './use-lite-embedder.adapter';
export * from './onnx-embedder.adapter';
export * from './hf-tokenizer';
export * from './pooling';
export * from './embedder.factory';
