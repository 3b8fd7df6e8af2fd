export * from './onnx-gradient-probe';
export * from './onnx-graph-reader';
export * from './use-lite';
