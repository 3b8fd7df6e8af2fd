import { stripReservedMarkers, textHash } from '../../../domain/text-identity';
import type { DocumentRepository, DocumentRow } from '../../../ports/repositories';
import { DOCUMENTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';
import type { ServingStatusEntry, ServingStatusResponseBody } from './check-serving.schema';

export interface CheckServingDeps { documents: DocumentRepository }

const entryOf = (d: DocumentRow | undefined): ServingStatusEntry =>
  d ? { id: d.id, known: true, status: d.status, withheld: d.status !== 'ACTIVE' } : { id: null, known: false, status: null, withheld: false };

/**
 * Whether the service withholds given texts from serving, for an app that retrieves from its own
 * store (the client SDK's retriever filter). Texts are matched by ingestion's identity (reserved
 * markers stripped, NFC, SHA-256), so the app needs to keep none of the service's ids. A text the
 * service never ingested is `known: false, withheld: false`: only what the service judged is dropped.
 */
export class CheckServingUseCase {
  static readonly inject: InjectMap<CheckServingDeps> = { documents: DOCUMENTS };
  constructor(private readonly deps: CheckServingDeps) {}

  async execute(cmd: { collection: string; ids?: readonly string[]; texts?: readonly string[] }): Promise<ServingStatusResponseBody> {
    const ids = cmd.ids ?? [];
    const hashes = (cmd.texts ?? []).map((t) => textHash(stripReservedMarkers(t)));
    const byId = new Map((ids.length ? await this.deps.documents.get([...new Set(ids)]) : []).filter((d) => d.collection === cmd.collection).map((d) => [d.id, d]));
    const byHash = new Map((hashes.length ? await this.deps.documents.findByHashes(cmd.collection, [...new Set(hashes)]) : []).map((d) => [d.textHash, d]));
    return { collection: cmd.collection, ids: ids.map((id) => { const e = entryOf(byId.get(id)); return e.known ? e : { ...e, id }; }), texts: hashes.map((h) => entryOf(byHash.get(h))) };
  }
}
