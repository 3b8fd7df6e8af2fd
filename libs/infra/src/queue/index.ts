export * from './queue.constants';
export * from './bullmq-traceback-queue';
export * from './batching-traceback-queue';
export * from './transient-failure';
