/**
 * Group commit for one kind of write: callers submit one item each and get their own result, while
 * the items that arrive while earlier batches are being written go out together as the next batch.
 *
 * Adaptive, with no timer to tune: an idle service flushes every item on the next turn of the event
 * loop (setImmediate: whatever arrived in the same turn goes along), so a lone request waits for
 * nothing; under load at most `maxConcurrent` batches are in flight and everything that arrives
 * meanwhile waits for the next free slot, so the batches grow with the load (up to `maxBatch`).
 * Each caller's promise settles only after its batch's write did: a batch that fails rejects every
 * one of its items; `ItemFailure` rejects one item of an otherwise successful batch.
 *
 * Hand-written because the npm package for this (dataloader) is not among the installed
 * dependencies, and it would still need this scheduling (it batches one tick only, with no limit
 * on batches in flight); it is forty lines.
 */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

export interface MicroBatcherOptions {
  /** Largest batch (default 500). */
  maxBatch?: number;
  /** Batches written at the same time (default 2). */
  maxConcurrent?: number;
}

interface Pending<I, O> { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }

export class MicroBatcher<I, O> {
  private pending: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly maxConcurrent: number;

  /** `write` gets the items of one batch and returns one result (or ItemFailure) per item, in order. */
  constructor(private readonly write: (items: I[]) => Promise<(O | ItemFailure)[]>, opts: MicroBatcherOptions = {}) {
    this.maxBatch = Math.max(1, opts.maxBatch ?? 500);
    this.maxConcurrent = Math.max(1, opts.maxConcurrent ?? 2);
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxConcurrent || !this.pending.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxConcurrent && this.pending.length) {
      const batch = this.pending.splice(0, this.maxBatch);
      this.inFlight++;
      let run: Promise<(O | ItemFailure)[]>;
      try {
        run = this.write(batch.map((p) => p.item));
      } catch (e) {
        run = Promise.reject(e);
      }
      run
        .then((out) => {
          if (out.length !== batch.length) throw new Error(`batch write returned ${out.length} results for ${batch.length} items`);
          batch.forEach((p, i) => {
            const r = out[i];
            if (r instanceof ItemFailure) p.reject(r.error);
            else p.resolve(r);
          });
        })
        .catch((e) => batch.forEach((p) => p.reject(e)))
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
