import type { DocumentRepository, JsonObject, QuarantineFilter, QuarantineRepository, QuarantineRow } from '../../../ports/repositories';
import { DOCUMENTS, QUARANTINES } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';

export interface ListQuarantinesDeps { quarantines: QuarantineRepository; documents: DocumentRepository }

/** A record with the text named as the app names it: its own id and metadata, given at ingest (null when none). */
export type NamedQuarantineRow = QuarantineRow & { externalId: string | null; metadata: JsonObject | null };

/** Quarantine records, filtered by state / collection / event, each with its text's externalId and metadata. */
export class ListQuarantinesUseCase {
  static readonly inject: InjectMap<ListQuarantinesDeps> = { quarantines: QUARANTINES, documents: DOCUMENTS };
  constructor(private readonly deps: ListQuarantinesDeps) {}

  async execute(filter: Omit<QuarantineFilter, 'unsynced'>): Promise<NamedQuarantineRow[]> {
    const rows = await this.deps.quarantines.list(filter);
    const docs = new Map((rows.length ? await this.deps.documents.get([...new Set(rows.map((r) => r.documentId))]) : []).map((d) => [d.id, d]));
    return rows.map((r) => ({ ...r, externalId: docs.get(r.documentId)?.externalId ?? null, metadata: docs.get(r.documentId)?.metadata ?? null }));
  }
}
