export * from './identity';
export * from './identity.schema';
export * from './manage-keys.use-case';
