import type { DocumentRepository } from '../../../ports/repositories';
import { DOCUMENTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';

export interface ListCollectionsDeps { documents: DocumentRepository }

/** Every collection with its embedder, dimension, registered texts and vetted baseline (the console's collections page). */
export class ListCollectionsUseCase {
  static readonly inject: InjectMap<ListCollectionsDeps> = { documents: DOCUMENTS };
  constructor(private readonly deps: ListCollectionsDeps) {}

  async execute() {
    const rows = await this.deps.documents.listCollections();
    return { items: rows.map((c) => ({ name: c.name, embedder: c.embedder, dimension: c.dimension, documents: c.documents, vettedBefore: c.vettedBefore ? new Date(c.vettedBefore).toISOString() : null })) };
  }
}
