import { echoInput, NotFoundError } from '../../../domain/errors';
import type { DocumentRepository } from '../../../ports/repositories';
import { DOCUMENTS, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';

export interface DescribeCollectionDeps { documents: DocumentRepository; store: VectorStore }

/** A collection's embedder and dimension, with its registered texts and stored vectors counted. */
export class DescribeCollectionUseCase {
  static readonly inject: InjectMap<DescribeCollectionDeps> = { documents: DOCUMENTS, store: VECTOR_STORE };
  constructor(private readonly deps: DescribeCollectionDeps) {}

  async execute(cmd: { collection: string }) {
    const c = await this.deps.documents.getCollection(cmd.collection);
    if (!c) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown`);
    return { ...c, documents: await this.deps.documents.count(cmd.collection), vectors: await this.deps.store.count(cmd.collection) };
  }
}
