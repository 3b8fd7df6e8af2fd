export * from './queue.constants';
export * from './bullmq-traceback-queue';
export * from './redis-connection';
export * from './batching-traceback-queue';
export * from './transient-failure';
export * from './queue-registry';
export * from './dead-letters';
export * from './recurring-job';
export { NOT_A_CONNECTION_LOG } from './queue-error-logs';
