import type { TracebackQueue } from '../ports/traceback-queue.port';

/** Records enqueued feedback ids (deterministic: enqueueing twice yields one entry), runs nothing. */
export class InMemoryTracebackQueue implements TracebackQueue {
  readonly enqueued: string[] = [];

  async enqueueTraceback(feedbackId: string): Promise<void> {
    if (!this.enqueued.includes(feedbackId)) this.enqueued.push(feedbackId);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
