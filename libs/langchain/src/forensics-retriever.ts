import { BaseRetriever, type BaseRetrieverInput, type BaseRetrieverInterface } from '@langchain/core/retrievers';
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import type { DocumentInterface } from '@langchain/core/documents';
import { ServingStatusCache, type ForensicsClient, type ServingStatusEntry, type WebhookEvent } from '@forensics/client';

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

/**
 * Wraps an app's own retriever and drops the texts the forensics service withholds from serving
 * (quarantined, withheld for review, purged) — so an app that keeps its own store stops serving a
 * poisoned text as soon as the service takes it out. One batched lookup per call
 * (`POST /v1/collections/:name/serving-status`) for the texts not cached; statuses are cached for
 * `ttlMs` and cleared by the service's webhook events (`handleWebhookEvent`) — the cache is the
 * client's `ServingStatusCache`, shared with the LlamaIndex.TS postprocessor. Each surviving
 * document the service knows gets `metadata.forensicsId`, the id the answer log needs.
 */
export class ForensicsRetriever extends BaseRetriever {
  lc_namespace = ['forensics', 'retrievers'];
  private readonly inner: BaseRetrieverInterface;
  private readonly textOf: (doc: DocumentInterface) => string;
  private readonly onLookupError: 'open' | 'closed';
  private readonly cache: ServingStatusCache;

  constructor(fields: ForensicsRetrieverInput) {
    super(fields);
    this.inner = fields.retriever;
    this.cache = new ServingStatusCache({ client: fields.client, collection: fields.collection, ttlMs: fields.ttlMs });
    this.textOf = fields.textOf ?? ((d) => d.pageContent);
    this.onLookupError = fields.onLookupError ?? 'open';
  }

  /** Lookups made (one per call that had uncached texts); for tests and metrics. */
  get lookups(): number {
    return this.cache.lookups;
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
    return this.cache.handleWebhookEvent(event);
  }

  clearCache(): void {
    this.cache.clear();
  }

  private async statusOf(texts: string[]): Promise<ServingStatusEntry[] | null> {
    try {
      return await this.cache.lookup(texts);
    } catch (e) {
      if (this.onLookupError === 'closed') throw e;
      return null;
    }
  }
}
