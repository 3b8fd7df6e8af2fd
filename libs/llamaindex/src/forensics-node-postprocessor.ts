import { MetadataMode, type BaseNode, type NodeWithScore } from '@llamaindex/core/schema';
import type { BaseNodePostprocessor } from '@llamaindex/core/postprocessor';
import { ServingStatusCache, type ForensicsClient, type ServingStatusEntry, type WebhookEvent } from '@forensics/client';

export interface ForensicsNodePostprocessorInput {
  client: Pick<ForensicsClient, 'servingStatus'>;
  /** The service's collection holding the same texts as the app's store. */
  collection: string;
  /** How long a looked-up status is trusted; default 30 s. Webhook events clear it sooner (`handleWebhookEvent`). */
  ttlMs?: number;
  /** The text the service ingested for a node; default the node's content without metadata (`MetadataMode.NONE`). */
  textOf?: (node: BaseNode) => string;
  /** Service unreachable: 'open' passes the nodes unfiltered (default), 'closed' throws. */
  onLookupError?: 'open' | 'closed';
}

/** A node's text as the service ingested it, by default. */
export const nodeText = (node: BaseNode): string => node.getContent(MetadataMode.NONE);

/**
 * A LlamaIndex.TS node postprocessor that drops the nodes whose texts the forensics service
 * withholds from serving (quarantined, withheld for review, purged), so an app that keeps its own
 * index stops serving a poisoned text as soon as the service takes it out. Put it in the query
 * engine's `nodePostprocessors`: the synthesizer then never sees those nodes. One batched lookup
 * per call (`POST /v1/collections/:name/serving-status`) for the texts not cached; the cache
 * (`ServingStatusCache` of @forensics/client, shared with ForensicsAnswerLogger through `cache`)
 * keeps statuses for `ttlMs` and is cleared by the service's webhook events. Nodes are passed on
 * unchanged: no id is written into their metadata, which the synthesizer would put in the prompt.
 */
export class ForensicsNodePostprocessor implements BaseNodePostprocessor {
  /** The statuses looked up; give it to ForensicsAnswerLogger so logging needs no second lookup. */
  readonly cache: ServingStatusCache;
  private readonly textOf: (node: BaseNode) => string;
  private readonly onLookupError: 'open' | 'closed';

  constructor(fields: ForensicsNodePostprocessorInput) {
    this.cache = new ServingStatusCache({ client: fields.client, collection: fields.collection, ttlMs: fields.ttlMs });
    this.textOf = fields.textOf ?? nodeText;
    this.onLookupError = fields.onLookupError ?? 'open';
  }

  /** Lookups made (one per call that had uncached texts); for tests and metrics. */
  get lookups(): number {
    return this.cache.lookups;
  }

  async postprocessNodes(nodes: NodeWithScore[]): Promise<NodeWithScore[]> {
    if (!nodes.length) return nodes;
    let statuses: ServingStatusEntry[];
    try {
      statuses = await this.cache.lookup(nodes.map((n) => this.textOf(n.node)));
    } catch (e) {
      if (this.onLookupError === 'closed') throw e;
      return nodes;
    }
    return nodes.filter((_, i) => !statuses[i]!.withheld);
  }

  /** A verified webhook event from the service (`readWebhookEvent` of @forensics/client): clears the cache when serving may have changed. */
  handleWebhookEvent(event: Pick<WebhookEvent, 'type'>): boolean {
    return this.cache.handleWebhookEvent(event);
  }

  clearCache(): void {
    this.cache.clear();
  }
}
