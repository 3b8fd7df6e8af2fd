export * from './sessions.use-case';
