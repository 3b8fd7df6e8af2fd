export * from './ports';
export * from './domain';
export * from './settings';
export * from './use-case';
export * from './util/pool';
export * from './use-cases';
export * from './schemas';
