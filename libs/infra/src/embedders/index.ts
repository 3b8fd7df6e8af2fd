export * from './use-lite-embedder.adapter';
export * from './onnx-embedder.adapter';
export * from './wordpiece-tokenizer';
export * from './pooling';
export * from './embedder.factory';
