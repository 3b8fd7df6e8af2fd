export * from './vector-store.port';
export * from './embedder.port';
export * from './judge.port';
export * from './forensics-repository.port';
export * from './traceback-queue.port';
export * from './generator.port';
export * from './gradient-probe.port';
