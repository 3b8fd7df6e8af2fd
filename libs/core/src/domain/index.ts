export * from './text-identity';
export * from './errors';
export * from './feedback-token';
