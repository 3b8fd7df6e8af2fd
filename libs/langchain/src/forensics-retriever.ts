import { BaseRetriever, type BaseRetrieverInput, type BaseRetrieverInterface } from '@langchain/core/retrievers';
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import type { DocumentInterface } from '@langchain/core/documents';
import type { ForensicsClient, ServingStatusEntry, WebhookEvent } from '@forensics/client';

/** Metadata key the filter writes: the service's id of a text it knows (the answer logger sends these as servedIds). */
export const FORENSICS_ID = 'forensicsId';

export interface ForensicsRetrieverInput extends BaseRetrieverInput {
  client: ForensicsClient;
  /** The service's collection holding the same texts as the app's store. */
  collection: string;
  /** Any LangChain retriever (for a vector store: `store.asRetriever(k)`). */
  retriever: BaseRetrieverInterface;
  /** How long a looked-up status is trusted; default 30 s. Webhook events clear it sooner (`handleWebhookEvent`). */
  ttlMs?: number;
  /** The text the service ingested for a document; default `doc.pageContent`. */
  textOf?: (doc: DocumentInterface) => string;
  /** Service unreachable: 'open' serves the documents unfiltered (default), 'closed' throws. */
  onLookupError?: 'open' | 'closed';
}

/** Webhook events after which a cached status may be stale. */
const INVALIDATING = new Set(['quarantine.created', 'review.needed', 'review.decided']);

/**
 * Wraps an app's own retriever and drops the texts the forensics service withholds from serving
 * (quarantined, withheld for review, purged) — so an app that keeps its own store stops serving a
 * poisoned text as soon as the service takes it out. One batched lookup per call
 * (`POST /v1/collections/:name/serving-status`) for the texts not cached; statuses are cached for
 * `ttlMs` and cleared by the service's webhook events (`handleWebhookEvent`). Each surviving
 * document the service knows gets `metadata.forensicsId`, the id the answer log needs.
 */
export class ForensicsRetriever extends BaseRetriever {
  lc_namespace = ['forensics', 'retrievers'];
  private readonly client: ForensicsClient;
  private readonly collection: string;
  private readonly inner: BaseRetrieverInterface;
  private readonly ttlMs: number;
  private readonly textOf: (doc: DocumentInterface) => string;
  private readonly onLookupError: 'open' | 'closed';
  private readonly cache = new Map<string, { entry: ServingStatusEntry; at: number }>();
  /** Lookups made (one per call that had uncached texts); for tests and metrics. */
  lookups = 0;

  constructor(fields: ForensicsRetrieverInput) {
    super(fields);
    this.client = fields.client;
    this.collection = fields.collection;
    this.inner = fields.retriever;
    this.ttlMs = fields.ttlMs ?? 30_000;
    this.textOf = fields.textOf ?? ((d) => d.pageContent);
    this.onLookupError = fields.onLookupError ?? 'open';
  }

  override async _getRelevantDocuments(query: string, runManager?: CallbackManagerForRetrieverRun): Promise<DocumentInterface[]> {
    const docs = await this.inner.invoke(query, runManager?.getChild('inner'));
    const statuses = await this.statusOf(docs.map((d) => this.textOf(d)));
    if (!statuses) return docs;
    return docs.flatMap((d, i) => {
      const s = statuses[i];
      if (s.withheld) return [];
      return [s.id ? { ...d, metadata: { ...d.metadata, [FORENSICS_ID]: s.id } } : d];
    });
  }

  /** A verified webhook event from the service (see `readWebhookEvent` of @forensics/client): clears the cache when serving may have changed. */
  handleWebhookEvent(event: Pick<WebhookEvent, 'type'>): boolean {
    if (!INVALIDATING.has(event.type)) return false;
    this.cache.clear();
    return true;
  }

  clearCache(): void {
    this.cache.clear();
  }

  private async statusOf(texts: string[]): Promise<ServingStatusEntry[] | null> {
    const now = Date.now();
    const fresh = (t: string) => { const c = this.cache.get(t); return c && now - c.at < this.ttlMs ? c.entry : undefined; };
    const missing = [...new Set(texts.filter((t) => !fresh(t)))];
    if (missing.length) {
      try {
        this.lookups++;
        const r = await this.client.servingStatus(this.collection, { texts: missing });
        missing.forEach((t, i) => this.cache.set(t, { entry: r.texts[i], at: now }));
      } catch (e) {
        if (this.onLookupError === 'closed') throw e;
        return null;
      }
    }
    return texts.map((t) => fresh(t) ?? this.cache.get(t)!.entry);
  }
}
