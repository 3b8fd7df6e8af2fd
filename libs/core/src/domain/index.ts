export * from './text-identity';
export * from './errors';
export * from './feedback-token';
export * from './feedback-status';
export * from './evidence-record';
export * from './scan-graph';
export * from './redaction';
export * from './store-point';
