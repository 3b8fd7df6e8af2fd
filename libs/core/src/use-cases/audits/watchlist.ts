import { DEFAULT_TRUST_PARAMS, TRUST_LEVELS, trustRank, type TrustLevel } from '@forensics/algorithms';
import type { FeedbackEventRepository, FeedbackRow, QuarantineRepository, QuarantineRow } from '../../ports/repositories';
import type { CoreSettings } from '../../settings';

/** A collection's active records: QUARANTINED and NEEDS_REVIEW (served or withheld). */
export interface ActiveRecords { quarantined: QuarantineRow[]; inReview: QuarantineRow[] }

export async function activeRecords(quarantines: QuarantineRepository, collection: string): Promise<ActiveRecords> {
  return {
    quarantined: await quarantines.list({ collection, state: 'QUARANTINED', limit: 100_000 }),
    inReview: await quarantines.list({ collection, state: 'NEEDS_REVIEW', limit: 100_000 }),
  };
}

/**
 * Which reports the audits watch (AUDIT_WATCH):
 * - `confirmed`: events whose traceback took texts out of serving (see `watchedEvents`);
 * - `reported` (default): those, and every traced report from a reporter at or above the policy's
 *   minimum trust (AUTO_QUARANTINE_MIN_TRUST, default identified) that a reviewer has not cleared —
 *   also when the consensus check kept its texts served (a suspected false flag) or the traceback
 *   found nothing inducing the answer. Such a watch never takes a served text out: it makes the
 *   admission check hold NEW texts that state the reported answer until a reviewer decides, and lets
 *   the sibling sweep and the re-trace look for the texts the traceback did not reach.
 */
export type WatchScope = 'confirmed' | 'reported';

export interface WatchOptions { scope: WatchScope; minTrust: TrustLevel }

export const DEFAULT_WATCH_SCOPE: WatchScope = 'reported';

export function watchOptions(settings: Pick<CoreSettings, 'trust' | 'audit'> | undefined): WatchOptions {
  return { scope: settings?.audit?.watch ?? DEFAULT_WATCH_SCOPE, minTrust: settings?.trust?.minTrust ?? DEFAULT_TRUST_PARAMS.minTrust };
}

export interface WatchedEvent {
  event: FeedbackRow;
  /** The event's active records' texts (taken out, or in review): the sweep's and the paraphrase route's seeds. */
  seedIds: string[];
  /** Why it is watched: texts taken out of serving, or a trusted report not (yet) confirmed. */
  basis: 'confirmed' | 'reported';
}

/**
 * The watchlist of attacked (query, wrong answer) pairs of a collection (issue 12).
 *
 * Always: every feedback event whose traceback took texts out of serving — QUARANTINED records
 * (judge-decided under a trusted or corroborated report, or approved by a reviewer) or review items
 * WITHHELD while they await review (the policy already treats the question as attacked until a human
 * says otherwise).
 *
 * With the `reported` scope (the default, see WatchScope) also every traced report from a reporter at
 * or above the minimum trust, unless a reviewer cleared it (it has restored records and no active
 * one). Measured on the development files (eval:audit): a third of real attacks left no confirmed
 * watch — the consensus check took PoisonedRAG's reworded planted sets for independent texts, or the
 * planted texts were not in the question's top K — so their re-injected rewrites were never judged.
 * A report below the minimum trust (an anonymous feedback token) is only watched once its texts were
 * taken out (corroborated): a false report must not make the audits judge the corpus against its claim.
 *
 * Newest events first, at most `max`. Shared by the admission check (at ingestion), the sibling
 * sweep and the `re-trace` audit; callers that list the active records anyway pass them (`active`).
 */
export async function watchedEvents(
  deps: { quarantines: QuarantineRepository; feedback: FeedbackEventRepository }, collection: string, max: number, opts: WatchOptions, active?: ActiveRecords,
): Promise<WatchedEvent[]> {
  const a = active ?? await activeRecords(deps.quarantines, collection);
  const seedsOf = (records: readonly QuarantineRow[]) => {
    const m = new Map<string, string[]>();
    for (const r of records) {
      if (!r.feedbackId) continue;
      const list = m.get(r.feedbackId) ?? [];
      list.push(r.documentId);
      m.set(r.feedbackId, list);
    }
    return m;
  };
  const confirmed = seedsOf([...a.quarantined, ...a.inReview.filter((r) => !r.servedDuringReview)]);
  const out: WatchedEvent[] = [];
  for (const [id, seedIds] of confirmed) {
    const event = await deps.feedback.get(id);
    if (event && event.collection === collection) out.push({ event, seedIds, basis: 'confirmed' });
  }
  if (opts.scope === 'reported') {
    const allActive = seedsOf([...a.quarantined, ...a.inReview]);
    const restored = new Set((await deps.quarantines.list({ collection, state: 'RESTORED', limit: 100_000 })).map((r) => r.feedbackId));
    const trusted = TRUST_LEVELS.filter((t) => trustRank(t) >= trustRank(opts.minTrust));
    // Newest first, page by page until `max` are watched on this basis (the newest `max` overall are kept below).
    let reported = 0;
    let before: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const page = await deps.feedback.listRecent(collection, { trust: trusted, limit: 500, before });
      for (const event of page) {
        if (confirmed.has(event.id) || !event.trace?.outcome) continue; // watched already; not traced (yet)
        const seedIds = allActive.get(event.id) ?? [];
        if (seedIds.length === 0 && restored.has(event.id)) continue; // cleared by a reviewer
        out.push({ event, seedIds, basis: 'reported' });
        if (++reported >= max) break;
      }
      if (reported >= max || page.length < 500) break;
      before = { createdAt: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id };
    }
  }
  out.sort((x, y) => y.event.createdAt.getTime() - x.event.createdAt.getTime() || (x.event.id < y.event.id ? -1 : 1));
  return out.slice(0, max);
}
