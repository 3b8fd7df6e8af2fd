export * from './use-lite-gradient-probe';
export * from './use-lite-graph';
export * from './use-lite-tail';
