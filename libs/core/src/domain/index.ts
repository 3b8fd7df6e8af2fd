export * from './text-identity';
export * from './errors';
