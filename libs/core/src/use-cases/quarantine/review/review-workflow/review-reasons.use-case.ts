import { ValidationError } from '../../../../domain/errors';
import { REVIEW_SETTINGS, type ReasonLabel, type ReviewSettings } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';

export interface ReviewReasonsDeps { settings: ReviewSettings }

/**
 * The configured reason labels (REVIEW_REASONS, defaults DEFAULT_REASON_LABELS) a reviewer attaches
 * to a decision, each with its keyboard shortcut (1–9 for the first nine), and the check that a
 * decision names only configured keys (a label removed from the configuration is refused for new
 * decisions; the decisions that carry it keep it).
 */
export class ReviewReasonsUseCase {
  static readonly inject: InjectMap<ReviewReasonsDeps> = { settings: REVIEW_SETTINGS };
  constructor(private readonly deps: ReviewReasonsDeps) {}

  list(): { reasons: Array<ReasonLabel & { shortcut: string | null }> } {
    return { reasons: this.deps.settings.reasons.map((r, i) => ({ key: r.key, label: r.label, shortcut: i < 9 ? String(i + 1) : null })) };
  }

  /** The keys, de-duplicated in the configured order; a ValidationError names any unknown key. */
  check(keys: readonly string[] | undefined): string[] {
    if (!keys?.length) return [];
    const known = this.deps.settings.reasons.map((r) => r.key);
    const unknown = keys.filter((k) => !known.includes(k));
    if (unknown.length) throw new ValidationError(`unknown reason ${unknown.map((k) => `"${k}"`).join(', ')}; configured: ${known.join(', ')}`);
    return known.filter((k) => keys.includes(k));
  }
}
