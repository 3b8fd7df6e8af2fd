import type { PolicyVerdict } from './remembered-decision';

/**
 * Reporter trust, corroboration and caps on automatic quarantines (issue 13, item 1; a project
 * design, not from the papers — RAGOrigin and RAGForensics assume honest reports). Any holder of a
 * feedback token can press "wrong answer" on a correct answer, and the judge then finds that the
 * texts supporting that answer "try to induce" it (they do). So a report's verdicts quarantine on
 * their own only when the report is trusted enough; otherwise they wait for review unless other,
 * independent reporters made the same report.
 *
 * - `anonymous`: a feedback token (a browser; the body's `reporter` is unverified text);
 * - `identified`: an API key or console session that names its reporter (a service key, a user key);
 * - `reviewer`: a user allowed to decide quarantines.
 */
export type TrustLevel = 'anonymous' | 'identified' | 'reviewer';
export const TRUST_LEVELS = ['anonymous', 'identified', 'reviewer'] as const satisfies readonly TrustLevel[];

export function trustRank(t: TrustLevel): number {
  return TRUST_LEVELS.indexOf(t);
}

export interface TrustParams {
  /** Reports below this level never quarantine on their own (default `identified`). */
  minTrust: TrustLevel;
  /** Distinct reporters (this one included) of the same folded (query, wrong answer) that corroborate a low-trust report (default 2). */
  corroborationMinReporters: number;
  /** Automatic quarantines per feedback event; further YES verdicts go to review (default 5; 0 = no cap). */
  maxPerEvent: number;
  /** Automatic quarantines per reporter per 24 h; further YES verdicts go to review (default 200; 0 = no cap). */
  maxPerReporterDay: number;
  /** Texts held for review by these rules stay served ('serve', default: a false flag must not remove a good text) or are withheld. */
  heldServing: 'serve' | 'withhold';
}

export const DEFAULT_TRUST_PARAMS: TrustParams = { minTrust: 'identified', corroborationMinReporters: 2, maxPerEvent: 5, maxPerReporterDay: 200, heldServing: 'serve' };

export function validateTrustParams(p: Partial<TrustParams> = {}): TrustParams {
  const out = { ...DEFAULT_TRUST_PARAMS, ...p };
  if (!TRUST_LEVELS.includes(out.minTrust)) throw new RangeError(`minTrust must be one of ${TRUST_LEVELS.join(', ')}, got '${String(out.minTrust)}'`);
  for (const k of ['corroborationMinReporters', 'maxPerEvent', 'maxPerReporterDay'] as const) {
    if (!Number.isInteger(out[k]) || out[k] < 0) throw new RangeError(`${k} must be an integer ≥ 0, got ${String(out[k])}`);
  }
  if (out.corroborationMinReporters < 1) throw new RangeError(`corroborationMinReporters must be ≥ 1, got ${out.corroborationMinReporters}`);
  if (out.heldServing !== 'serve' && out.heldServing !== 'withhold') throw new RangeError(`heldServing must be 'serve' or 'withhold', got '${String(out.heldServing)}'`);
  return out;
}

/**
 * The order in which an event's YES verdicts meet the per-event cap: the judge's most confident first
 * (highest `score`; ties and texts without a score keep the order they were judged in, texts without a
 * score after the scored ones). The cap exists so one report cannot take out many texts at once; which
 * texts it lets through should not depend on retrieval order. In judged order, a genuine text judged
 * YES weakly in round 1 used a slot ahead of a planted text judged YES confidently in round 2, which
 * then stayed served while awaiting review: 38 of the 284 questions whose planted text was still in the
 * top 5 after a true report (leave-one-family-out suite, judge v12), 30 of them fixed by this order
 * (docs/results.md). A judge that gives no score (an LLM) keeps its judged order. Pure.
 */
export function capOrder(ids: readonly string[], scoreOf: (id: string) => number | null | undefined): string[] {
  const keyed = ids.map((id, i) => {
    const s = scoreOf(id);
    return { id, i, s: typeof s === 'number' && Number.isFinite(s) ? s : null };
  });
  return keyed
    .sort((a, b) => (a.s === null ? (b.s === null ? a.i - b.i : 1) : b.s === null ? -1 : b.s - a.s || a.i - b.i))
    .map((x) => x.id);
}

/** What the policy knows about the report behind a verdict. */
export interface TrustContext {
  trust: TrustLevel;
  /** Who reported, as counted for independence: an address hash for tokens, a key / user id otherwise; null = unknown. */
  source: string | null;
  /** Other reports of the same folded (query, wrong answer) in the collection: their event ids and sources. */
  sameReports: readonly { eventId: string; source: string | null }[];
  /** Automatic quarantines this event already made. */
  eventAutoQuarantines: number;
  /** Automatic quarantines this reporter (source) made in the last 24 h; null when the source is unknown. */
  reporterAutoQuarantinesDay: number | null;
}

/**
 * Applies trust, corroboration and the caps to a policy outcome for one text. Only an automatic
 * QUARANTINE can change (to NEEDS_REVIEW, served or withheld per `heldServing`); every outcome gets
 * `inputs.trust` and `inputs.caps` so the record explains itself. Independence: reports count once
 * per distinct source, and a report without a source counts only for itself. Pure.
 */
export function applyReporterTrust(outcome: PolicyVerdict, ctx: TrustContext, params: Partial<TrustParams> = {}): PolicyVerdict {
  const p = validateTrustParams(params);
  const others = new Map<string, string>(); // source -> first event id
  for (const r of ctx.sameReports) if (r.source && r.source !== ctx.source && !others.has(r.source)) others.set(r.source, r.eventId);
  const reporters = 1 + others.size;
  const below = trustRank(ctx.trust) < trustRank(p.minTrust);
  const corroborated = reporters >= p.corroborationMinReporters;
  const trust = {
    level: ctx.trust, minTrust: p.minTrust, source: ctx.source, distinctReporters: reporters, needed: p.corroborationMinReporters,
    corroboratingEventIds: [...others.values()], corroborated, held: false,
  };
  const eventCapped = p.maxPerEvent > 0 && ctx.eventAutoQuarantines >= p.maxPerEvent;
  const reporterCapped = p.maxPerReporterDay > 0 && ctx.reporterAutoQuarantinesDay !== null && ctx.reporterAutoQuarantinesDay >= p.maxPerReporterDay;
  const caps = {
    eventAutoQuarantines: ctx.eventAutoQuarantines, maxPerEvent: p.maxPerEvent,
    reporterAutoQuarantinesDay: ctx.reporterAutoQuarantinesDay, maxPerReporterDay: p.maxPerReporterDay, capped: false,
  };
  const inputs = { ...outcome.inputs, trust, caps };
  const withhold = p.heldServing === 'withhold';
  const serving = withhold ? 'withheld from serving' : 'kept in serving';
  // A review item that would be withheld (a YES inside the judge's confidence band, or under the
  // corroborated policy) is out of serving until a reviewer acts: a report below the trust level
  // must not do that on its own either.
  if (outcome.decision === 'NEEDS_REVIEW' && outcome.withhold && below && !corroborated && !withhold) {
    return {
      ...outcome, withhold: false, inputs: { ...inputs, trust: { ...trust, held: true } },
      reason: `${outcome.reason}; but the report is ${ctx.trust} (below ${p.minTrust}) and not corroborated (${reporters} of ${p.corroborationMinReporters} distinct reporters): kept in serving until a reviewer decides`,
    };
  }
  if (outcome.decision !== 'QUARANTINE') return { ...outcome, inputs };
  if (below && !corroborated) {
    return {
      decision: 'NEEDS_REVIEW', withhold, inputs: { ...inputs, trust: { ...trust, held: true } },
      reason: `${outcome.reason}; but the report is ${ctx.trust} (below ${p.minTrust}) and not corroborated (${reporters} of ${p.corroborationMinReporters} distinct reporters): needs review (${serving})`,
    };
  }
  if (eventCapped || reporterCapped) {
    const why = eventCapped
      ? `this event already made ${ctx.eventAutoQuarantines} automatic quarantines (cap ${p.maxPerEvent})`
      : `this reporter made ${ctx.reporterAutoQuarantinesDay} automatic quarantines in 24 h (cap ${p.maxPerReporterDay})`;
    return { decision: 'NEEDS_REVIEW', withhold, inputs: { ...inputs, caps: { ...caps, capped: true } }, reason: `${outcome.reason}; but ${why}: needs review (${serving})` };
  }
  const how = below ? `; ${ctx.trust} report corroborated by ${others.size} other reporter(s)` : '';
  return { ...outcome, inputs, reason: `${outcome.reason}${how}` };
}
