import type { FeedbackEventRepository, FeedbackRow, QuarantineRepository, QuarantineRow } from '../../ports/repositories';

/** A collection's active records: QUARANTINED and NEEDS_REVIEW (served or withheld). */
export interface ActiveRecords { quarantined: QuarantineRow[]; inReview: QuarantineRow[] }

export async function activeRecords(quarantines: QuarantineRepository, collection: string): Promise<ActiveRecords> {
  return {
    quarantined: await quarantines.list({ collection, state: 'QUARANTINED', limit: 100_000 }),
    inReview: await quarantines.list({ collection, state: 'NEEDS_REVIEW', limit: 100_000 }),
  };
}

/**
 * The watchlist of attacked (query, wrong answer) pairs of a collection (issue 12): every feedback
 * event whose traceback took texts out of serving — QUARANTINED records (judge-decided under a
 * trusted or corroborated report, or approved by a reviewer) or review items WITHHELD while they
 * await review (a YES in the judge's confidence band under a trusted report: the policy already
 * treats the question as attacked until a human says otherwise). A report whose review items stay
 * served (an untrusted, uncorroborated reporter) is not watched: a false report must not make the
 * audits judge the corpus against its claim. Newest events first, at most `max`.
 * Shared by the admission check (at ingestion), the sibling sweep and the `re-trace` audit; callers
 * that list the active records anyway pass them (`active`).
 */
export async function watchedEvents(
  deps: { quarantines: QuarantineRepository; feedback: FeedbackEventRepository }, collection: string, max: number, active?: ActiveRecords,
): Promise<{ event: FeedbackRow; seedIds: string[] }[]> {
  const a = active ?? await activeRecords(deps.quarantines, collection);
  const records = [...a.quarantined, ...a.inReview.filter((r) => !r.servedDuringReview)];
  const seeds = new Map<string, string[]>();
  for (const r of records) {
    if (!r.feedbackId) continue;
    const list = seeds.get(r.feedbackId) ?? [];
    list.push(r.documentId);
    seeds.set(r.feedbackId, list);
  }
  const out: { event: FeedbackRow; seedIds: string[] }[] = [];
  for (const [id, seedIds] of seeds) {
    const event = await deps.feedback.get(id);
    if (event && event.collection === collection) out.push({ event, seedIds });
  }
  out.sort((a, b) => b.event.createdAt.getTime() - a.event.createdAt.getTime() || (a.event.id < b.event.id ? -1 : 1));
  return out.slice(0, max);
}
