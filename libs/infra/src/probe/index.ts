export * from './onnx-gradient-probe';
export * from './layernorm-gradient';
export * from './onnx-graph-reader';
export * from './use-lite';
