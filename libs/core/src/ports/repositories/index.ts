export * from './records';
export * from './repositories.port';
export * from './review.port';
export * from './webhook.port';
export * from './reporter-activity.port';
