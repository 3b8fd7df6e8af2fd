/** Queue port: schedules the traceback of one feedback event (payload: its id only). */
export interface TracebackQueue {
  /** Deterministic job id per event: enqueueing twice yields one job. */
  enqueueTraceback(feedbackId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
