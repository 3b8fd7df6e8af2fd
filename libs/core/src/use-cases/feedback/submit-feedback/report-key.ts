import { createHash } from 'node:crypto';
import { reportKey } from '@forensics/algorithms';

/**
 * The key of a report for corroboration (issue 13): SHA-256 of the folded query and wrong answer
 * (the remembered decisions' `reportKey` folding: NFKC, lower case, whitespace runs as one space).
 * Two reports of the same question and wrong answer have the same key whatever their spelling of
 * case and spaces; the key is indexed per collection.
 */
export function feedbackReportKey(query: string, wrongAnswer: string): string {
  return createHash('sha256').update(`${reportKey(query)}\n${reportKey(wrongAnswer)}`).digest('hex');
}
