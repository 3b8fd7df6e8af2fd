import { reportKey } from './remembered-decision';
import { trustRank, validateTrustParams, type TrustLevel, type TrustParams } from './reporter-trust';

/**
 * Who may put a benign text into serving (issues 54 and 56; a project design, not from the papers —
 * RAGForensics' enhancement, App. 8.3, assumes the correct answer comes from someone trusted). A
 * benign-text enhancement serves the reporter's "correct answer" to every later asker of the
 * question, so it writes what the RAG serves: it gets the same trust as a removal, never less.
 *
 * - `reviewer`: a person allowed to decide (reviewer or admin role): live at once.
 * - `report`: the correct answer came with the report; it is decided as the report's removals are:
 *   at or above `minTrust` (default `identified`, the same setting as automatic quarantine) it goes
 *   live unless the consensus check suspected the report of being a false flag; below it, only when
 *   independent reporters (distinct sources, as corroboration counts them) made the same report with
 *   the same correct answer.
 * - `suggestion`: a correct answer sent later by a service key for an event it created: a proposal
 *   for a reviewer, never live on its own.
 *
 * Whatever the authority below a reviewer, an answer that carries a link, an e-mail address or markup
 * is only proposed: no genuine short answer needs one, and a phishing notice does.
 */
export type EnhancementAuthority = 'reviewer' | 'report' | 'suggestion';

export interface EnhancementTrustContext {
  authority: EnhancementAuthority;
  /** The report's trust (for `report`). */
  trust: TrustLevel;
  /** Who reported, counted for independence; null = unknown (counts only for itself). */
  source: string | null;
  correctAnswer: string;
  /** Other reports of the same folded (query, wrong answer): their sources and correct answers. */
  sameReports: readonly { eventId: string; source: string | null; correctAnswer: string | null }[];
  /** The consensus check suspected this report of being a false flag. */
  suspectedFalseFlag: boolean;
}

export interface EnhancementDecision {
  state: 'ACTIVE' | 'PROPOSED';
  reason: string;
  /** Distinct reporters (this one included) who gave the same correct answer. */
  agreeingReporters: number;
}

const LINK = /\b(?:https?:\/\/|www\.)|[\w.+-]+@[\w-]+\.[\w.-]+|<\/?[a-z][^>]*>|\]\(|\bjavascript:/iu;

/** True when an answer carries a link, an e-mail address or markup (then it is never live below a reviewer). */
export function answerCarriesLink(answer: string): boolean {
  return LINK.test(answer);
}

/** Decides whether an enhancement goes live now or waits for a reviewer. Pure. */
export function decideEnhancement(ctx: EnhancementTrustContext, params: Partial<TrustParams> = {}): EnhancementDecision {
  const p = validateTrustParams(params);
  const mine = reportKey(ctx.correctAnswer);
  const agreeing = new Set<string>();
  for (const r of ctx.sameReports) {
    if (r.source && r.source !== ctx.source && r.correctAnswer && reportKey(r.correctAnswer) === mine) agreeing.add(r.source);
  }
  const agreeingReporters = 1 + agreeing.size;
  if (ctx.authority === 'reviewer') return { state: 'ACTIVE', reason: 'set by a reviewer', agreeingReporters };
  if (answerCarriesLink(ctx.correctAnswer)) {
    return { state: 'PROPOSED', reason: 'the correct answer carries a link, an e-mail address or markup: a reviewer decides', agreeingReporters };
  }
  if (ctx.authority === 'suggestion') return { state: 'PROPOSED', reason: 'suggested by a service key after the report: a reviewer decides', agreeingReporters };
  if (ctx.suspectedFalseFlag) return { state: 'PROPOSED', reason: 'the consensus check suspects the report of being a false flag: a reviewer decides', agreeingReporters };
  if (trustRank(ctx.trust) >= trustRank(p.minTrust)) return { state: 'ACTIVE', reason: `${ctx.trust} report (at or above ${p.minTrust}), not suspected`, agreeingReporters };
  if (agreeingReporters >= p.corroborationMinReporters) {
    return { state: 'ACTIVE', reason: `${ctx.trust} report; ${agreeingReporters} distinct reporters gave the same correct answer (${p.corroborationMinReporters} needed)`, agreeingReporters };
  }
  return {
    state: 'PROPOSED',
    reason: `${ctx.trust} report (below ${p.minTrust}) and ${agreeingReporters} of ${p.corroborationMinReporters} distinct reporters gave this correct answer: a reviewer decides`,
    agreeingReporters,
  };
}
