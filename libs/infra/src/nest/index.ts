export * from './adapters';
export * from './core.module';
export * from './infra.tokens';
export * from './infrastructure.module';
export * from './queue.module';
