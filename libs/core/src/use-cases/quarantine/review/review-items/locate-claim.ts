import { answerClaim, contentTerms, normalizeText, quotedAnswerSpan } from '@forensics/algorithms';

/**
 * Where the reviewer should look in a text for the reported wrong answer (issue 54, item 4). A widget report's wrong
 * answer is the whole sentence the user was served ("The capital of Australia is Sydney, since 2020."): found
 * verbatim in no text but the one it was quoted from, it highlighted nothing ("0 occurrences"). Tried in order:
 *  - `answer`: the wrong answer as reported is in the text (case and NFKC folded, as the console compares);
 *  - `span`: the wrong answer is a served sentence, and the part of it that answers the question (`quotedAnswerSpan`,
 *    the offline judge's reading: the one name run or number of the type the wh-word asks for) is in the text;
 *  - `terms`: the wrong answer's own content words (those not in the question, framing like "Based on the context"
 *    taken off: `answerClaim`) that occur in the text;
 *  - `none`: nothing of it is in the text.
 */
export interface LocatedClaim { how: 'answer' | 'span' | 'terms' | 'none'; needles: string[] }

const fold = (s: string) => s.normalize('NFKC').toLowerCase();
/** `needle` occurs in `text` on word boundaries (after normalisation: lower case, punctuation as spaces). */
const holds = (text: string, needle: string) => {
  const n = normalizeText(needle);
  return n !== '' && ` ${normalizeText(text)} `.includes(` ${n} `);
};

export function locateClaim(query: string, wrongAnswer: string, text: string, texts: readonly string[] = []): LocatedClaim {
  const answer = wrongAnswer.trim();
  if (!answer || !text) return { how: 'none', needles: [] };
  if (fold(text).includes(fold(answer))) return { how: 'answer', needles: [answer] };
  const claim = answerClaim(answer);
  const span = quotedAnswerSpan(query, claim, [text, ...texts]);
  if (span && fold(text).includes(fold(span))) return { how: 'span', needles: [span] };
  const asked = new Set(contentTerms(query));
  const own = [...new Set(contentTerms(claim))].filter((t) => !asked.has(t));
  // The words as written in the answer (the terms are stemmed/folded), kept when the text holds them.
  const words = [...new Set(claim.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [])].filter((w) => own.some((t) => contentTerms(w).includes(t)) && holds(text, w));
  return words.length ? { how: 'terms', needles: words } : { how: 'none', needles: [] };
}
