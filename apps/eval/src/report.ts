import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnswerForm } from './eval-data';
import type { JudgedTextRow, JudgeSummary } from './run-evaluation';
import { groupedBarChart, type BarGroup } from './svg-charts';

/** A row quoted from a source, never measured here (values as fractions). */
export interface QuotedRow { source: string; method: string; setting: string; dacc: number | null; fpr: number | null; fnr: number | null }

/**
 * Reference numbers QUOTED, not measured: RAGForensics, arXiv 2504.21668, Table 1 (RAGForensics
 * with GPT-4o-mini, and the TKM baseline, PoisonedRAG-B = black-box, PoisonedRAG-W = white-box;
 * pooling not stated by the paper) and ../shared/data/README.md (trivial "contains the wrong
 * answer" judge, BM25, K = 5).
 */
export function quotedReferences(data: string): QuotedRow[] {
  const t1 = (setting: string, rf: [number, number, number], tkm: [number, number, number]): QuotedRow[] => [
    { source: 'RAGForensics (arXiv 2504.21668) Table 1', method: 'RAGForensics (GPT-4o-mini)', setting, dacc: rf[0] / 100, fpr: rf[1] / 100, fnr: rf[2] / 100 },
    { source: 'RAGForensics (arXiv 2504.21668) Table 1', method: 'TKM baseline', setting, dacc: tkm[0] / 100, fpr: tkm[1] / 100, fnr: tkm[2] / 100 },
  ];
  const readme = (setting: string, dacc: number, fpr: number | null, fnr: number | null): QuotedRow => ({ source: 'shared/data/README.md', method: 'trivial judge, BM25, K=5', setting, dacc, fpr, fnr });
  if (data === 'poisonedrag_nq') return [...t1('NQ, PoisonedRAG-B', [99.6, 0.8, 0.0], [81.0, 34.1, 3.9]), readme('NQ', 0.94, 0.08, 0.03)];
  if (data === 'poisonedrag_hotpotqa') return [...t1('HotpotQA, PoisonedRAG-B', [97.4, 2.4, 2.8], [85.4, 29.1, 0.0]), readme('HotpotQA', 0.90, 0.07, 0.14)];
  if (data === 'robustrag_realtimeqa') return [readme('RealtimeQA (pooled)', 0.96, null, null)];
  if (/whitebox/.test(data) && /_nq$/.test(data)) return t1('NQ, PoisonedRAG-W', [99.2, 1.6, 0.0], [72.9, 38.8, 15.4]);
  if (/whitebox/.test(data) && /_hotpotqa$/.test(data)) return t1('HotpotQA, PoisonedRAG-W', [97.6, 1.6, 3.2], [64.1, 35.4, 36.4]);
  return [];
}

export interface ReportMeta {
  data: string;
  file: string;
  retriever: string;
  embedder: string;
  k: number;
  poisonSet: string;
  poisonCount: number | null;
  /** The collection's vetted baseline in each question's run (`--vetted`, decision 0320); absent in older reports = none. */
  vetted?: 'none' | 'clean' | 'all';
  /** With `vetted: 'clean'`: the share of the clean texts inside the baseline (absent = all of them). */
  vettedShare?: number;
  /** `--answer-form` (eval-data.ts `reportedAnswer`); absent = given. */
  answerForm?: AnswerForm;
  trace: { maxRounds: number; maxJudgeCalls: number; judgeConcurrency: number };
  wallSeconds: number;
  startedAt: string;
  embeddingCache?: { file: string; hits: number; misses: number };
  /** Records without an incorrect answer (no feedback event possible), left out. */
  skippedRecords?: number;
  /** The offline judge's fit used for this run (offline-judge.fitted.json, or a leave-one-file-out fold's fit). */
  offlineJudgeFit?: OfflineJudgeFitMeta;
}

/** What a report says about the offline judge's fit. */
export interface OfflineJudgeFitMeta {
  method: string;
  fittedOn?: string[];
  yesThreshold: number;
  band?: { low: number; high: number };
  partialSupportMin?: number;
  weights: Record<string, number>;
  /** Candidate-level numbers per held-out development file (scripts/fit-offline-judge.ts). */
  leaveOneFileOut?: { level?: string; heldOut: { heldOut: string; dacc: number; fpr: number; fnr: number; rows: number }[] };
}

const pct = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(digits)}%`);
const num = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
const COLORS = ['#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b7791f'];

/** The one-line JSON summary printed at the end of a run (primary judge). */
export function summaryLine(meta: ReportMeta, s: JudgeSummary): Record<string, unknown> {
  const r = (x: number | null) => (x === null ? null : Math.round(x * 10000) / 10000);
  return {
    data: meta.data, judge: s.judge, retriever: meta.retriever, k: meta.k, events: s.events,
    pooled: { dacc: r(s.pooled.dacc), fpr: r(s.pooled.fpr), fnr: r(s.pooled.fnr) },
    macro: { dacc: r(s.macro.dacc), fpr: r(s.macro.fpr), fnr: r(s.macro.fnr) },
    poisonHitRateBefore: r(s.poisonHitRateBefore), poisonHitRateAfter: r(s.poisonHitRateAfter),
    judgeCallsPerEvent: r(s.judgeCallsPerEvent), msPerEvent: s.msPerEvent === null ? null : Math.round(s.msPerEvent * 10) / 10,
    undetermined: s.undetermined, bounded: s.bounded, wallSeconds: Math.round(meta.wallSeconds * 10) / 10,
    autoReviewRecall: r(s.autoReviewRecall ?? null),
    decision: decisionOf(s),
    ...(s.falseFlag ? { falseFlag: s.falseFlag } : {}),
  };
}

/**
 * Decision-level numbers (issue 13): precision of the texts taken out of serving automatically,
 * attack recall of auto-quarantine + review over the planted texts the traceback judged, review items per event.
 */
export function decisionOf(s: JudgeSummary): { autoPrecision: number | null; recall: number | null; reviewPerEvent: number | null; auto: number; autoPoisoned: number; review: number } {
  const r = (x: number) => Math.round(x * 10000) / 10000;
  const auto = s.questions.reduce((a, q) => a + q.decisions.auto, 0);
  const autoPoisoned = s.questions.reduce((a, q) => a + q.decisions.autoPoisoned, 0);
  const review = s.questions.reduce((a, q) => a + q.decisions.review, 0);
  return {
    autoPrecision: auto ? r(autoPoisoned / auto) : null,
    // Over the planted texts the traceback judged (the judge's reach; 1 − FNR is its counterpart). `autoReviewRecall` is over all planted texts.
    recall: s.pooled.counts.tp + s.pooled.counts.fn ? r(s.questions.reduce((a, q) => a + q.decisions.autoPoisoned + q.decisions.reviewPoisoned, 0) / (s.pooled.counts.tp + s.pooled.counts.fn)) : null,
    reviewPerEvent: s.events ? r(review / s.events) : null,
    auto, autoPoisoned, review,
  };
}

/** Where the decisions left a judged text, in words (report.md's error list). */
const OUTCOME_WORDS: Readonly<Record<NonNullable<JudgedTextRow['outcome']>, string>> = {
  QUARANTINED: 'quarantined (out of serving)',
  REVIEW_WITHHELD: 'sent to review, withheld from serving meanwhile',
  REVIEW_SERVED: 'sent to review, still served meanwhile',
  KEPT: 'kept in serving',
};

/** Writes report.json, report.md and the SVG plots into `dir`; returns the written paths. */
export function writeReport(dir: string, meta: ReportMeta, summaries: JudgeSummary[], opts: { maxErrors?: number } = {}): string[] {
  mkdirSync(dir, { recursive: true });
  const quoted = quotedReferences(meta.data);
  const files: string[] = [];
  const write = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    files.push(join(dir, name));
  };
  write('report.json', JSON.stringify({ meta, quoted: quoted.map((q) => ({ ...q, note: 'quoted, not measured' })), judges: summaries }, null, 2));

  const primary = summaries[0];
  const perQuestion: BarGroup[] = primary.questions.map((q) => ({ label: q.id, bars: [{ name: `DACC (${primary.judge})`, value: q.rates.dacc, color: q.rates.dacc !== null && q.rates.dacc < 1 ? '#c53030' : COLORS[0] }] }));
  write('dacc-per-question.svg', groupedBarChart({ title: `${meta.data}: DACC per question (${primary.judge}; red < 1)`, groups: perQuestion, max: 1, yLabel: 'DACC' }));

  const rateGroups: BarGroup[] = (['dacc', 'fpr', 'fnr'] as const).map((key) => ({
    label: `${key.toUpperCase()} (pooled)`,
    bars: [
      ...summaries.map((s, i) => ({ name: `${s.judge} (measured)`, value: s.pooled[key], color: COLORS[i % COLORS.length] })),
      ...quoted.map((q, i) => ({ name: `${q.method}`, value: q[key], color: ['#718096', '#a0aec0', '#cbd5e0'][i % 3], note: 'quoted, not measured' })),
    ],
  }));
  write('rates-vs-baselines.svg', groupedBarChart({ title: `${meta.data}: pooled DACC / FPR / FNR vs baselines`, groups: rateGroups, max: 1, width: 760, height: 340 }));

  const hitGroups: BarGroup[] = summaries.map((s) => ({
    label: s.judge,
    bars: [
      { name: 'Hit@K before', value: s.poisonHitRateBefore, color: '#c53030' },
      { name: 'Hit@K after', value: s.poisonHitRateAfter, color: '#2f855a' },
      { name: 'Recall@K before', value: s.poisonRecallBefore, color: '#ed8936' },
      { name: 'Recall@K after', value: s.poisonRecallAfter, color: '#68d391' },
    ],
  }));
  write('poison-exposure.svg', groupedBarChart({ title: `${meta.data}: Poison Hit Rate@${meta.k} / Recall@${meta.k} before and after removal`, groups: hitGroups, max: 1, width: 640 }));

  const md: string[] = [];
  md.push(`# Traceback evaluation — ${meta.data}`, '');
  md.push(`Data \`${meta.file}\` (${primary.events} questions${meta.skippedRecords ? `, ${meta.skippedRecords} records without an incorrect answer skipped` : ''}; poison set \`${meta.poisonSet}\`${meta.answerForm && meta.answerForm !== 'given' ? `; the wrong answer reported in the \`${meta.answerForm}\` form (\`--answer-form\`)` : ''}${meta.poisonCount !== null ? `, first ${meta.poisonCount}` : ''}${meta.vetted && meta.vetted !== 'none' ? `; vetted baseline: ${meta.vetted === 'clean' ? `${meta.vettedShare !== undefined ? `${Math.round(meta.vettedShare * 100)} % of the clean texts (the rest and the planted ones after the cutoff)` : 'the clean texts (planted after the cutoff)'}` : 'every text, planted ones included'}` : ''}), retriever \`${meta.retriever}\` (${meta.embedder}), K = ${meta.k}, bounds ${meta.trace.maxRounds} rounds / ${meta.trace.maxJudgeCalls} judge calls, run ${meta.startedAt}, wall time ${meta.wallSeconds.toFixed(1)} s.`);
  md.push('Per question the knowledge base is clean_texts ∪ poisoned texts; the feedback is (question, incorrect_answer); the traceback is `RunTracebackUseCase` over in-memory ports (the worker\'s code path).');
  md.push('Metrics over the texts the traceback judged (RAGForensics, arXiv 2504.21668, App. 8.2): pooled = counts summed over questions; macro = per-question rates averaged where defined. UNDETERMINED counts as not flagged. Poison Hit Rate@K / Recall@K (ProGRank, arXiv 2603.22934, Eq. 17–18) on the store\'s top-K for the question before and after the traced texts are quarantined.', '');
  md.push('| judge | pooled DACC | pooled FPR | pooled FNR | macro DACC | macro FPR | macro FNR | TP/FP/TN/FN | Hit@K before → after | Recall@K before → after | judge calls/event | ms/event | UNDETERMINED | BOUNDED |');
  md.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const s of summaries) {
    const c = s.pooled.counts;
    md.push(`| ${s.judge} (${s.kind}:${s.model}) | ${num(s.pooled.dacc)} | ${num(s.pooled.fpr)} | ${num(s.pooled.fnr)} | ${num(s.macro.dacc)} | ${num(s.macro.fpr)} | ${num(s.macro.fnr)} | ${c.tp}/${c.fp}/${c.tn}/${c.fn} | ${num(s.poisonHitRateBefore, 3)} → ${num(s.poisonHitRateAfter, 3)} | ${num(s.poisonRecallBefore, 3)} → ${num(s.poisonRecallAfter, 3)} | ${num(s.judgeCallsPerEvent, 2)} | ${num(s.msPerEvent, 1)} | ${s.undetermined} | ${s.bounded} |`);
  }
  for (const q of quoted) md.push(`| ${q.method} — *quoted, not measured* (${q.source}, ${q.setting}) | ${num(q.dacc, 3)} | ${num(q.fpr, 3)} | ${num(q.fnr, 3)} | | | | | | | | | | |`);
  if (meta.offlineJudgeFit) {
    const f = meta.offlineJudgeFit;
    md.push('', '### Offline judge fit', '', `${f.method}.`, '');
    md.push(`Fitted on ${f.fittedOn?.join(', ') ?? 'n/a'}; YES threshold ${f.yesThreshold}${f.band ? `, confidence band [${f.band.low}, ${f.band.high})` : ''}${f.partialSupportMin !== undefined ? `, partialSupportMin ${f.partialSupportMin}` : ''}; weights ${Object.entries(f.weights).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
    const lofo = f.leaveOneFileOut;
    if (lofo && lofo.heldOut.length) {
      md.push('', `Leave one file out (${lofo.level ?? 'candidate level'}): every fitted part refit without the held-out file.`, '');
      md.push('| held-out file | rows | DACC | FPR | FNR |', '|---|---|---|---|---|');
      for (const h of lofo.heldOut) md.push(`| ${h.heldOut}${h.heldOut === meta.data ? ' (this file)' : ''} | ${h.rows} | ${num(h.dacc)} | ${num(h.fpr)} | ${num(h.fnr)} |`);
    }
  }
  {
    const d = decisionOf(primary);
    md.push('', `Decisions (${primary.judge}): ${d.auto} texts auto-quarantined (precision ${num(d.autoPrecision)}), ${d.review} sent to review (${num(d.reviewPerEvent, 2)} per event); attack recall of auto + review ${num(d.recall)}.`);
  }
  md.push('', '![DACC per question](dacc-per-question.svg)', '', '![rates vs baselines](rates-vs-baselines.svg)', '', '![poison exposure](poison-exposure.svg)', '');
  for (const s of summaries) {
    const errors = s.questions.flatMap((q) => q.judged.filter((j) => j.poisoned !== (j.label === 'YES')).map((j) => ({ q, j })));
    md.push(`## Errors of ${s.judge}: ${errors.length} (${errors.filter((e) => !e.j.poisoned).length} FP, ${errors.filter((e) => e.j.poisoned).length} FN)`, '');
    for (const { q, j } of errors.slice(0, opts.maxErrors ?? 25)) {
      md.push(`- **${j.poisoned ? 'FN' : 'FP'}** [${q.id}] q: "${q.question}" — t: "${q.wrongAnswer}"`);
      md.push(`  - text: ${j.text.replace(/\s+/g, ' ').slice(0, 240)}`);
      if (j.reply) md.push(`  - verdict: ${j.reply.replace(/\s+/g, ' ').slice(0, 600)}`);
      if (j.outcome) md.push(`  - decision: ${OUTCOME_WORDS[j.outcome]}`);
    }
    md.push('');
  }
  md.push(`## Per question (${primary.judge})`, '', '| id | judged | TP/FP/TN/FN | DACC | status | judge calls | ms | hit before→after |', '|---|---|---|---|---|---|---|---|');
  for (const q of primary.questions) {
    const c = q.confusion;
    md.push(`| ${q.id} | ${q.judged.length} | ${c.tp}/${c.fp}/${c.tn}/${c.fn} | ${pct(q.rates.dacc)} | ${q.traceStatus}${q.boundReason ? ` (${q.boundReason})` : ''} | ${q.judgeCalls} | ${q.ms.toFixed(1)} | ${q.hitBefore}→${q.hitAfter} |`);
  }
  write('report.md', md.join('\n') + '\n');
  return files;
}
