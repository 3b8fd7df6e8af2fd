import { echoInput, NotFoundError, ValidationError } from '../../../domain/errors';
import type { AuditLogRepository, DocumentRepository } from '../../../ports/repositories';
import type { Clock } from '../../../ports/runtime.port';
import { AUDIT_LOG, CLOCK, DOCUMENTS } from '../../../ports/tokens';
import type { InjectMap } from '../../../use-case';

export interface VetCollectionDeps { documents: DocumentRepository; audit: AuditLogRepository; clock: Clock }

/** Clock skew tolerated between the caller and the service when a cutoff is given explicitly. */
export const VETTED_BEFORE_SKEW_MS = 60_000;

export interface VetCollectionCommand {
  collection: string;
  /** The cutoff: texts registered before it are vouched for. Undefined = now; null = clear the baseline. */
  before?: Date | string | null;
  actor: string;
}

/**
 * Sets a collection's vetted baseline (issue 33, decision 0320): its operator vouches for the texts registered before
 * the cutoff, and the traceback's decisions never take those out of serving on their own — a YES verdict on one goes
 * to review with the text kept served. Texts registered later (an attack planted after the corpus was vetted, a text
 * first found later in an attached store) are decided as usual.
 *
 * A cutoff in the future is refused: it would vouch for texts nobody has seen yet, an attacker's included.
 * Admin-only at the API; every change is in the audit log with who made it, before and after.
 */
export class VetCollectionUseCase {
  static readonly inject: InjectMap<VetCollectionDeps> = { documents: DOCUMENTS, audit: AUDIT_LOG, clock: CLOCK };
  constructor(private readonly deps: VetCollectionDeps) {}

  /** The collection's baseline as the API shows it: the cutoff (ISO instant, null = none) and how many texts it covers now. */
  async execute(cmd: VetCollectionCommand): Promise<{ name: string; vettedBefore: string | null; vettedTexts: number | null }> {
    const now = this.deps.clock.now();
    const before = cmd.before === undefined ? now : cmd.before === null ? null : new Date(cmd.before);
    if (before && Number.isNaN(before.getTime())) throw new ValidationError(`before must be an ISO-8601 instant, got '${echoInput(cmd.before)}'`);
    if (before && before.getTime() > now.getTime() + VETTED_BEFORE_SKEW_MS) {
      throw new ValidationError(`before (${before.toISOString()}) is in the future: a baseline can only vouch for texts already registered`);
    }
    const prev = await this.deps.documents.getCollection(cmd.collection);
    if (!prev) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown`);
    if (!(await this.deps.documents.setVettedBefore(cmd.collection, before))) throw new NotFoundError(`collection '${echoInput(cmd.collection)}' is unknown`);
    await this.deps.audit.append({
      actor: cmd.actor, action: before ? 'collection.vetted' : 'collection.vetting-cleared', entityType: 'Collection', entityId: cmd.collection,
      details: { before: before ? before.toISOString() : null, previous: prev.vettedBefore ? new Date(prev.vettedBefore).toISOString() : null },
    });
    return { name: cmd.collection, vettedBefore: before ? before.toISOString() : null, vettedTexts: before ? await this.deps.documents.countRegisteredBefore(cmd.collection, before) : null };
  }
}
