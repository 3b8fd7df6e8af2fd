import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';

export interface RecurringJobSpec {
  /** The job scheduler's id: one per kind of recurring work, so restarts and other workers update it instead of adding one. */
  schedulerId: string;
  /** Name of the job the scheduler adds. */
  jobName: string;
  /** Either a fixed interval … */
  everyMs?: number;
  /** … or a cron pattern (UTC), e.g. scheduled audits. */
  cron?: string;
  /** Data of every job the scheduler adds. */
  data?: Record<string, unknown>;
  /** What the scheduler does, for the warning when it cannot be registered (e.g. "the reconciler"). */
  what: string;
}

/**
 * A BullMQ job scheduler (`upsertJobScheduler`, idempotent by id: one run per tick whatever the number
 * of workers) that is registered again whenever the Redis connection becomes ready, so a Redis that
 * came back empty (no persistence) gets it back. Registration failures are logged, never thrown: the
 * next `ready` retries.
 */
export class RecurringJob {
  private readonly onReady = () => void this.register();
  private closed = false;

  constructor(
    private readonly queue: Queue,
    private readonly redis: IORedis,
    private readonly spec: RecurringJobSpec,
    private readonly warn: (message: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.register();
    this.redis.on('ready', this.onReady);
  }

  stop(): void {
    this.closed = true;
    this.redis.off('ready', this.onReady);
  }

  private async register(): Promise<void> {
    if (this.closed) return;
    try {
      const repeat = this.spec.cron ? { pattern: this.spec.cron, tz: 'UTC' } : { every: this.spec.everyMs ?? 60_000 };
      await this.queue.upsertJobScheduler(this.spec.schedulerId, repeat, {
        name: this.spec.jobName, data: this.spec.data ?? {}, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 50 } },
      });
    } catch (e) {
      this.warn(`could not register ${this.spec.what}'s scheduler (registered again when Redis is ready): ${(e as Error).message}`);
    }
  }
}
