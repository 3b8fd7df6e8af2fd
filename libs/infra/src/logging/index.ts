export * from './log-context';
export * from './logger';
