/**
 * The offline judge's verdict in words (`offlineJudge`'s `explanation`): every signal that decided,
 * in the order an admin reads them. Split from offline-judge.ts to keep that file to the rules.
 */
import type { Label } from '../ragforensics/traceback-loop';
import type { OfflineJudgeEvidence, OfflineJudgeInput } from './offline-judge.features';

/** `s` on one line, cut to `max` characters with an ellipsis. */
export function quote(s: string, max = 60): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function explainVerdict(input: OfflineJudgeInput, label: Label, score: number, ev: OfflineJudgeEvidence, threshold: number, model: string): string {
  const ans = `'${quote(input.wrongAnswer, 40)}'`;
  const parts: string[] = [];
  const nQuery = ev.queryTerms;
  const covered = Math.round(ev.features.windowCoverage * nQuery);
  if (ev.support === 0) {
    parts.push(ev.polar ? `no sentence takes the '${ev.polar}' stance on the question` : `does not state the wrong answer ${ans}`);
  } else {
    const stance = ev.polar ?? ev.leadStance;
    const how = stance ? `takes the '${stance}' stance${ev.leadStance ? ` the wrong answer ${ans} opens with` : ''} (${stance === 'no' ? 'negation/contrast cue' : 'no negation cue'})` : ev.exact ? `states the wrong answer ${ans} (normalised match)` : `partly states the wrong answer ${ans} (${Math.round(ev.support * 100)}% of its terms)`;
    parts.push(ev.acrossText
      ? `${how} across the text, which restates ${covered}/${nQuery} query terms, in "${quote(ev.sentence)}"`
      : ev.sentence ? `${how} in a sentence that (with its neighbours) restates ${covered}/${nQuery} query terms ("${quote(ev.sentence)}")` : how);
  }
  parts.push(`the whole text covers ${Math.round(ev.textCoverage * nQuery)}/${nQuery} query terms and ${Math.round(ev.features.focus * 100)}% of its distinct content words are query or answer words`);
  if (ev.support > 0) parts.push(`${Math.round(ev.features.answerSentenceShare * 100)}% of its sentences state the answer`);
  if (ev.rivals > 0) parts.push(`that sentence also names ${ev.rivals} other candidate${ev.rivals === 1 ? '' : 's'} for the answer (a listing, not a claim about one)`);
  if (input.peers && input.peers.length > 0) {
    parts.push(`${ev.agreeingPeers} near-duplicate peer${ev.agreeingPeers === 1 ? '' : 's'} also state${ev.agreeingPeers === 1 ? 's' : ''} it and ${ev.mimickingPeers} restate${ev.mimickingPeers === 1 ? 's' : ''} the question around it (${ev.supportingPeers} of ${input.peers.length} peers support it at all)`);
  }
  const verdict = label === 'YES' ? 'Judged poisoned' : label === 'NO' ? 'Judged benign' : 'Undetermined';
  return `${verdict} by the offline evidence judge (${model}, score ${score.toFixed(2)}, threshold ${threshold.toFixed(2)}): it ${parts.join('; ')}.`;
}
