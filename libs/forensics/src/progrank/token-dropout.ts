import type { Rng } from './prng';

/**
 * Token dropout probability of the paper (ProGRank, arXiv 2603.22934, Supplementary Material,
 * "Perturbation Types": 0.10, document side only).
 */
export const DEFAULT_TOKEN_DROPOUT_RATE = 0.1;

function checkRate(rate: number): void {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate >= 1) {
    throw new RangeError(`tokenDropout: rate must be in [0, 1), got ${String(rate)}`);
  }
}

/**
 * Token dropout as an attention mask (ProGRank, arXiv 2603.22934, §3.2 and Supplementary Material,
 * "Perturbation Types and Hyperparameter Settings"): each non-special token is masked (0)
 * independently with probability `rate`; special tokens (`keepSpecial(id)` true, e.g. [CLS], [SEP],
 * padding handled by the caller) are always kept (1).
 * As in the paper's implementation, at least one non-special token stays active: if all were
 * dropped, one is restored, chosen uniformly with one more draw.
 *
 * Exactly one `rng()` draw per non-special token (plus one when restoring), in token order, so a
 * seeded `rng` gives the same mask on every platform. Returns 0/1 per position, same length.
 * The mask form keeps positions (what the paper does: it edits the attention mask).
 */
export function tokenDropoutMask(
  tokenIds: readonly number[],
  rate: number = DEFAULT_TOKEN_DROPOUT_RATE,
  rng: Rng,
  keepSpecial: (id: number) => boolean = () => false,
): number[] {
  checkRate(rate);
  const mask = new Array<number>(tokenIds.length);
  const ordinary: number[] = [];
  let kept = 0;
  tokenIds.forEach((id, i) => {
    if (keepSpecial(id)) {
      mask[i] = 1;
      return;
    }
    ordinary.push(i);
    const keep = rng() >= rate ? 1 : 0;
    mask[i] = keep;
    kept += keep;
  });
  if (ordinary.length > 0 && kept === 0) {
    const pick = ordinary[Math.min(ordinary.length - 1, Math.floor(rng() * ordinary.length))];
    mask[pick] = 1;
  }
  return mask;
}

/**
 * Token dropout returning the surviving token ids in order (same draws as `tokenDropoutMask`,
 * default rate 0.10). Prefer the mask when the encoder takes an attention mask: removing tokens
 * shifts positions, masking does not.
 */
export function tokenDropout(
  tokenIds: readonly number[],
  rate: number = DEFAULT_TOKEN_DROPOUT_RATE,
  rng: Rng,
  keepSpecial: (id: number) => boolean = () => false,
): number[] {
  const mask = tokenDropoutMask(tokenIds, rate, rng, keepSpecial);
  return tokenIds.filter((_, i) => mask[i] === 1);
}
