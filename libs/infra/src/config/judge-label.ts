import { OFFLINE_JUDGE_MODEL, READER_JUDGE_MODEL } from '@forensics/algorithms';
import type { AppConfig } from './app-config';

/**
 * How logs name the judge in use. The offline judge has its own model id (`offline-evidence-vN`);
 * JUDGE_MODEL (default gpt-4o-mini) names the LLM only when an OpenAI-compatible judge is used, so
 * it must not appear beside the offline judge (it once read `offline:gpt-4o-mini`).
 */
export function judgeLabel(judge: AppConfig['judge']): string {
  if (judge.kind === 'offline') return `offline (${OFFLINE_JUDGE_MODEL}, no LLM)`;
  if (judge.kind === 'reader') return `reader (${READER_JUDGE_MODEL}: rules + all-MiniLM-L6-v2, no LLM)`;
  return `${judge.kind}:${judge.model}`;
}
