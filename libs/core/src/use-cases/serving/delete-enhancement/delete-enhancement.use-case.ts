import { echoInput, NotFoundError } from '../../../domain/errors';
import type { EnhancementRepository, EnhancementRow } from '../../../ports/repositories';
import { ENHANCEMENTS, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';

export interface DeleteEnhancementDeps { enhancements: EnhancementRepository; store: VectorStore }

/** Removes an enhancement: the proxy leaves the vector store; the row stays (state DELETED) for the audit trail. */
export class DeleteEnhancementUseCase {
  static readonly inject: InjectMap<DeleteEnhancementDeps> = { enhancements: ENHANCEMENTS, store: VECTOR_STORE };
  constructor(private readonly deps: DeleteEnhancementDeps) {}

  async execute(cmd: { enhancementId: string; actor: string }): Promise<EnhancementRow> {
    const e = await this.deps.enhancements.get(cmd.enhancementId);
    if (!e) throw new NotFoundError(`enhancement ${echoInput(cmd.enhancementId)} does not exist`);
    const row = e.state === 'DELETED' ? e : await this.deps.enhancements.markDeleted(e.id, cmd.actor);
    await this.deps.store.delete(e.collection, [e.proxyId]);
    return row;
  }
}
