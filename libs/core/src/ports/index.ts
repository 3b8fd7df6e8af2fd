export * from './vector-store.port';
export * from './embedder.port';
export * from './judge.port';
export * from './forensics-repository.port';
export * from './traceback-queue.port';
