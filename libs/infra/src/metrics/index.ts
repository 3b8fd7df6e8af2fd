export * from './metrics';
export * from './metered-judge';
export * from './collectors';
export * from './metrics-access';
