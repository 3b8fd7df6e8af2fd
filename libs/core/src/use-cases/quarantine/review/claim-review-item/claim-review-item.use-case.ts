import { ConflictError, echoInput, NotFoundError } from '../../../../domain/errors';
import { REVIEW, REVIEW_SETTINGS, type ReviewRepository, type ReviewSettings } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';

export interface ClaimReviewItemDeps { review: ReviewRepository; settings: ReviewSettings }

/**
 * Opening an item claims it for its reviewer for REVIEW_CLAIM_TTL_SEC (default 5 minutes);
 * claiming again renews it. A live claim of someone else is a 409 naming the holder. Claims expire
 * by themselves (the time is compared in SQL; no clean-up job); `release` gives one's own claim up.
 */
export class ClaimReviewItemUseCase {
  static readonly inject: InjectMap<ClaimReviewItemDeps> = { review: REVIEW, settings: REVIEW_SETTINGS };
  constructor(private readonly deps: ClaimReviewItemDeps) {}

  async execute(cmd: { id: string; by: string; release?: boolean }): Promise<{ claim: { by: string; until: string } | null }> {
    if (cmd.release) {
      const [item] = await this.deps.review.summaries([cmd.id]);
      if (!item) throw new NotFoundError(`review item ${echoInput(cmd.id)} does not exist`);
      await this.deps.review.releaseClaim(cmd.id, cmd.by);
      return { claim: null };
    }
    const r = await this.deps.review.claim(cmd.id, cmd.by, this.deps.settings.claimTtlMs);
    if (r.outcome === 'missing') throw new NotFoundError(`review item ${echoInput(cmd.id)} does not exist`);
    const claim = r.claim ? { by: r.claim.by, until: r.claim.until.toISOString() } : null;
    if (r.outcome === 'held-by-other') throw new ConflictError(`item ${cmd.id} is claimed by ${claim?.by} until ${claim?.until}`, { claim });
    return { claim };
  }
}
