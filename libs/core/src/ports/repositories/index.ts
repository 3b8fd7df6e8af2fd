export * from './records';
export * from './repositories.port';
