export * from './vector-store';
export * from './embedders';
export * from './judges';
