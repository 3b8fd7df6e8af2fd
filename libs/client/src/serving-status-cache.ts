import type { ForensicsClient } from './forensics-client.js';
import type { ServingStatusEntry } from './types.js';
import type { WebhookEvent } from './webhooks.js';

export interface ServingStatusCacheOptions {
  /** Only `servingStatus` is called. */
  client: Pick<ForensicsClient, 'servingStatus'>;
  /** The service's collection holding the same texts as the app's store. */
  collection: string;
  /** How long a looked-up status is trusted; default 30 s. Webhook events clear it sooner (`handleWebhookEvent`). */
  ttlMs?: number;
  /** Clock in ms (tests pass their own); default `Date.now`. */
  now?: () => number;
}

/** The service answers at most this many texts per serving-status call. */
export const SERVING_STATUS_BATCH = 1000;

/** Webhook events after which a cached status may be stale. */
export const SERVING_STATUS_INVALIDATING_EVENTS: readonly string[] = ['quarantine.created', 'review.needed', 'review.decided'];

/**
 * The serving status of an app's texts, as the forensics service sees them, with a short-TTL cache:
 * one batched `POST /v1/collections/:name/serving-status` per `lookup` for the texts not cached
 * (split into calls of ≤ 1000 texts). Used by the framework integrations' filters (LangChain's
 * retriever, LlamaIndex's node postprocessor) so that an app keeping its own store stops serving a
 * text the service has taken out. The service's webhook events clear the cache
 * (`handleWebhookEvent`), so a quarantine is seen before the TTL runs out when the app receives them.
 */
export class ServingStatusCache {
  private readonly client: Pick<ForensicsClient, 'servingStatus'>;
  private readonly collection: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, { entry: ServingStatusEntry; at: number }>();
  /** Lookups made (one per `lookup` that had uncached texts); for tests and metrics. */
  lookups = 0;

  constructor(opts: ServingStatusCacheOptions) {
    if (opts.ttlMs !== undefined && !(opts.ttlMs >= 0)) throw new RangeError(`ttlMs must be ≥ 0, got ${opts.ttlMs}`);
    this.client = opts.client;
    this.collection = opts.collection;
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  /** `result[i]` is the status of `texts[i]`. Throws what the client throws (the caller picks fail-open or closed). */
  async lookup(texts: string[]): Promise<ServingStatusEntry[]> {
    const now = this.now();
    const fresh = (t: string) => {
      const c = this.entries.get(t);
      return c && now - c.at < this.ttlMs ? c.entry : undefined;
    };
    const missing = [...new Set(texts.filter((t) => !fresh(t)))];
    const got = new Map<string, ServingStatusEntry>();
    if (missing.length) {
      this.lookups++;
      for (let i = 0; i < missing.length; i += SERVING_STATUS_BATCH) {
        const batch = missing.slice(i, i + SERVING_STATUS_BATCH);
        const r = await this.client.servingStatus(this.collection, { texts: batch });
        batch.forEach((t, j) => got.set(t, r.texts[j]!));
      }
      for (const [t, entry] of got) this.entries.set(t, { entry, at: now });
    }
    return texts.map((t) => got.get(t) ?? fresh(t)!);
  }

  /** A verified webhook event from the service (`readWebhookEvent`): clears the cache when serving may have changed. */
  handleWebhookEvent(event: Pick<WebhookEvent, 'type'>): boolean {
    if (!SERVING_STATUS_INVALIDATING_EVENTS.includes(event.type)) return false;
    this.entries.clear();
    return true;
  }

  clear(): void {
    this.entries.clear();
  }
}
