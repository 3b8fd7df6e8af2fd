/** Public API of the pure algorithms library (`@forensics/algorithms`). No Nest, no I/O. */
export * from './ragforensics';
export * from './text';
export * from './bm25';
export * from './offline-judge';
export * from './metrics';
export * from './bird';
export * from './grada';
export * from './policy';
export * from './progrank';
export * from './gradient';
export * from './evidence';
export * from './cluster-scan';
export * from './seed-paraphrase';
export * from './reader';
