export * from './vector-store.port';
export * from './embedder.port';
export * from './judge.port';
