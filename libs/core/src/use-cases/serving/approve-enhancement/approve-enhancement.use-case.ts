import { echoInput, NotFoundError } from '../../../domain/errors';
import type { DomainEventPublisher } from '../../../ports/domain-events.port';
import type { Embedder } from '../../../ports/embedder.port';
import type { EnhancementRepository, EnhancementRow } from '../../../ports/repositories';
import { DOMAIN_EVENTS, EMBEDDER, ENHANCEMENTS, VECTOR_STORE } from '../../../ports/tokens';
import type { VectorStore } from '../../../ports/vector-store.port';
import type { InjectMap } from '../../../use-case';
import { publishApproved } from '../enhance-answer/enhance-answer.use-case';

export interface ApproveEnhancementDeps { enhancements: EnhancementRepository; store: VectorStore; embedder: Embedder; events: DomainEventPublisher }

/** A reviewer puts a proposed enhancement into serving (its proxy enters the store); an active one is returned as it is. */
export class ApproveEnhancementUseCase {
  static readonly inject: InjectMap<ApproveEnhancementDeps> = { enhancements: ENHANCEMENTS, store: VECTOR_STORE, embedder: EMBEDDER, events: DOMAIN_EVENTS };
  constructor(private readonly deps: ApproveEnhancementDeps) {}

  async execute(cmd: { enhancementId: string; actor: string }): Promise<EnhancementRow> {
    const e = await this.deps.enhancements.get(cmd.enhancementId);
    if (!e) throw new NotFoundError(`enhancement ${echoInput(cmd.enhancementId)} does not exist`);
    return publishApproved(this.deps, e, cmd.actor);
  }
}
