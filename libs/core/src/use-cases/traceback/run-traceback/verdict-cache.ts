import { verdictCacheKey } from '../../../domain/text-identity';
import type { Judge } from '../../../ports/judge.port';
import type { VerdictRepository, VerdictRow } from '../../../ports/repositories';

/**
 * The shared verdict cache: a verdict the same judge (kind, model, prompt) gave the same text for the
 * same (query, wrong answer) in any event. Returns the cache key (for saving a new verdict) and the hit.
 * Used by the traceback and the re-trace audit.
 */
export async function cachedVerdict(
  verdicts: VerdictRepository, judge: Pick<Judge, 'kind' | 'model' | 'promptVersion'>, q: { textHash: string; query: string; wrongAnswer: string },
): Promise<{ key: string; hit: VerdictRow | null }> {
  const key = verdictCacheKey({ textHash: q.textHash, query: q.query, wrongAnswer: q.wrongAnswer, judgeModel: judge.model, promptVersion: judge.promptVersion });
  const found = await verdicts.findByCacheKey(key);
  return { key, hit: found && found.judgeKind === judge.kind ? found : null };
}
