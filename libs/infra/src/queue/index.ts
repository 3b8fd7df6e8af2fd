export * from './queue.constants';
export * from './bullmq-traceback-queue';
