export * from './use-lite-gradient-probe';
export * from './use-lite-graph';
