export * from './records';
export * from './repositories.port';
export * from './webhook.port';
