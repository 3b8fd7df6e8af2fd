/** Queue port: schedules the traceback of one feedback event (payload: its id only). */
export interface TracebackQueue {
  /**
   * Deterministic job id per event: enqueueing twice yields one job. Bounded in time by the adapter:
   * when the queue cannot be reached it rejects (the event then stays RECEIVED for the reconciler).
   */
  enqueueTraceback(feedbackId: string): Promise<void>;
  /**
   * Makes sure the event has a live job (waiting, delayed or active): none → added; one in the
   * failed set (its attempts spent during an outage) → retried; a completed one (its run ended
   * without a terminal status) → replaced. Returns what it did. Optional: without it the
   * reconciler calls `enqueueTraceback`.
   */
  redriveTraceback?(feedbackId: string): Promise<RedriveOutcome>;
  /**
   * The ids among `feedbackIds` whose job is live (exists, neither failed nor completed), for many
   * events in one round trip, so the reconciler re-drives only the others. Optional: without it the
   * reconciler asks `redriveTraceback` for every pending event (one or more round trips each; with
   * BullMQ also a state lookup that scans the wait list).
   */
  liveJobs?(feedbackIds: readonly string[]): Promise<Set<string>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type RedriveOutcome = 'live' | 'added' | 'retried' | 'replaced';
