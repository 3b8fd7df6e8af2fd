import type { Decision } from './decision-policy';

/**
 * Remembered reviewer decisions (issue 11, item 3; a project design, not from the papers). A text a
 * reviewer restored must never be auto-quarantined again for the same report: the judge's verdict
 * for (text, query, wrong answer) is cached, so without a memory the next identical report would
 * quarantine it again. A report is identified by its query and wrong answer folded by
 * {@link reportKey}; the text by its hash.
 */

/** The folded form of a query or wrong answer: Unicode NFKC, lower case, runs of whitespace as one space, trimmed. */
export function reportKey(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

export interface RememberedDecisionInput {
  action: 'approve' | 'restore' | 'purge';
  actor: string;
  /** ISO time of the decision. */
  at: string;
  recordId: string;
  queryKey: string;
  wrongAnswerKey: string;
}

export interface PolicyVerdict {
  decision: Decision;
  withhold: boolean;
  reason: string;
  inputs: Record<string, unknown>;
}

/**
 * Applies the memory to a policy outcome for one text and one report: when the latest decision a
 * reviewer took for the same (text, query, wrong answer) was `restore`, an automatic QUARANTINE (or
 * a withheld review) becomes NEEDS_REVIEW kept in serving — the reviewer sees it again with the
 * earlier decision, the service does not silently overrule them. Other outcomes are unchanged. The
 * matching decisions are added to the inputs (`remembered`), so the record explains itself.
 */
export function applyRememberedDecisions(outcome: PolicyVerdict, report: { query: string; wrongAnswer: string }, memory: readonly RememberedDecisionInput[]): PolicyVerdict {
  const q = reportKey(report.query);
  const w = reportKey(report.wrongAnswer);
  const same = memory.filter((m) => m.queryKey === q && m.wrongAnswerKey === w).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  if (!same.length) return outcome;
  const inputs = { ...outcome.inputs, remembered: same.map((m) => ({ action: m.action, actor: m.actor, at: m.at, recordId: m.recordId })) };
  const latest = same[0];
  if (latest.action !== 'restore' || outcome.decision === 'KEEP' || (outcome.decision === 'NEEDS_REVIEW' && !outcome.withhold)) return { ...outcome, inputs };
  return {
    decision: 'NEEDS_REVIEW', withhold: false, inputs,
    reason: `${outcome.reason}; but ${latest.actor} restored this text for the same report on ${latest.at}: needs review (kept in serving)`,
  };
}
