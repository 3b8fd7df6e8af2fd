export * from './use-lite-embedder.adapter';
export * from './onnx-embedder.adapter';
export * from './wordpiece-tokenizer';
export * from './random-bert-onnx';
export * from './onnx-model-writer';
export * from './pooling';
export * from './embedder.factory';
