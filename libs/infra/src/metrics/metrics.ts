import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds buckets for HTTP requests and judge calls (5 ms … 60 s). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds buckets for queue waits and job runs (10 ms … 1 h): a traceback takes seconds to minutes. */
const QUEUE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/**
 * The process's Prometheus series, on a registry of its own (one per InfrastructureModule, so
 * several apps in one process — tests — never share or clash). Names follow the Prometheus
 * conventions: `forensics_` prefix, base units in the name (`_seconds`, `_total`), bounded labels.
 * Series read from Redis or Postgres (queue counts, quarantine counts) are collected on scrape by
 * the collectors in `collectors.ts`.
 */
export class ForensicsMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'forensics_http_requests_total',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'forensics_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly judgeCalls = new Counter({
    name: 'forensics_judge_calls_total',
    help: 'Judge calls made by this process, by judge kind, verdict label (none on error) and outcome (ok | error)',
    labelNames: ['judge', 'label', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly judgeDuration = new Histogram({
    name: 'forensics_judge_call_duration_seconds',
    help: 'Judge call latency by judge kind and outcome',
    labelNames: ['judge', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly judgeTokens = new Counter({
    name: 'forensics_judge_tokens_total',
    help: 'Tokens the judge API reported (usage) for the calls of this process, by judge kind and type (prompt | completion); judges that report none (offline) add nothing',
    labelNames: ['judge', 'type'] as const,
    registers: [this.registry],
  });

  readonly queueWait = new Histogram({
    name: 'forensics_queue_wait_seconds',
    help: 'Time a job waited before its (last) attempt started: processedOn - (timestamp + delay), by queue and the attempt\'s outcome (completed | failed); observed by the worker that ran it',
    labelNames: ['queue', 'outcome'] as const,
    buckets: QUEUE_BUCKETS,
    registers: [this.registry],
  });

  readonly queueProcessing = new Histogram({
    name: 'forensics_queue_processing_seconds',
    help: 'Time one attempt of a job ran: finishedOn - processedOn, by queue and outcome (completed | failed); observed by the worker that ran it',
    labelNames: ['queue', 'outcome'] as const,
    buckets: QUEUE_BUCKETS,
    registers: [this.registry],
  });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    // Process metrics (CPU, memory, event loop lag) with the same prefix.
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'forensics_' });
  }

  /** Adds a gauge whose value is read on every scrape. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (g: Gauge<L>) => Promise<void>): Gauge<L> {
    return new Gauge<L>({
      name, help, labelNames, registers: [this.registry],
      async collect() { await collect(this); },
    });
  }

  /**
   * Adds a counter whose total is read on every scrape from a monotonic source (e.g. an
   * append-only log): `collect` returns the current totals per label set.
   */
  collectedCounter<L extends string>(name: string, help: string, labelNames: readonly L[], collect: () => Promise<Array<[Partial<Record<L, string>>, number]>>): Counter<L> {
    return new Counter<L>({
      name, help, labelNames, registers: [this.registry],
      async collect() {
        const totals = await collect();
        this.reset();
        for (const [labels, value] of totals) this.inc(labels as never, value);
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
