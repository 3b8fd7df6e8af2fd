import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields added to every log line of a unit of work (e.g. a job: feedbackId, jobId). */
export type LogContext = Readonly<Record<string, string | number | undefined>>;

const storage = new AsyncLocalStorage<LogContext>();

/**
 * Runs `fn` with `fields` added to every log line written inside it, however deep (the JSON
 * logger's mixin reads them). Nested calls add to the outer fields.
 */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...(storage.getStore() ?? {}), ...fields }, fn);
}

/** The fields of the current unit of work ({} outside one). */
export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}
