import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { macroRates, pooledRates } from '@forensics/algorithms';
import offlineJudgeFit from '../../../../libs/forensics/src/offline-judge/offline-judge.fitted.json';
import { writeReport, type ReportMeta } from '../report';
import { checkSuiteTargets, familyDaccOf, targetSummary, type SuiteRow } from '../suite';
import type { JudgeSummary } from '../run-evaluation';

describe('report.md: offline judge fit', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'eval-report-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const summary: JudgeSummary = {
    judge: 'offline', kind: 'offline', model: 'offline-evidence-test', events: 0,
    pooled: { ...pooledRates([]) }, macro: macroRates([]),
    poisonHitRateBefore: null, poisonHitRateAfter: null, poisonRecallBefore: null, poisonRecallAfter: null,
    judgeCallsPerEvent: null, msPerEvent: null, undetermined: 0, bounded: 0, exhausted: 0, questions: [],
  };
  const meta = (fit: ReportMeta['offlineJudgeFit']): ReportMeta => ({
    data: 'poisonedrag_hotpotqa', file: '/x/poisonedrag_hotpotqa.jsonl', retriever: 'embed', embedder: 'test', k: 5, poisonSet: 'given', poisonCount: null,
    trace: { maxRounds: 10, maxJudgeCalls: 50, judgeConcurrency: 4 }, wallSeconds: 0, startedAt: '2026-01-01T00:00:00.000Z', offlineJudgeFit: fit,
  });

  it('quotes the fit and its leave-one-file-out numbers when the fit has them', () => {
    writeReport(dir, meta({
      method: 'm', fittedOn: ['a', 'b'], yesThreshold: 0.45, band: { low: 0.2, high: 0.8 }, partialSupportMin: 0.5, weights: { bias: -1, focus: 2 },
      leaveOneFileOut: { level: 'candidate', heldOut: [{ heldOut: 'poisonedrag_hotpotqa', rows: 3000, dacc: 0.9772, fpr: 0.0314, fnr: 0.0132 }] },
    }), [summary]);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('YES threshold 0.45, confidence band [0.2, 0.8), partialSupportMin 0.5; weights bias -1, focus 2.');
    expect(md).toContain('| poisonedrag_hotpotqa (this file) | 3000 | 0.9772 | 0.0314 | 0.0132 |');
  });

  it('omits the leave-one-file-out table without numbers', () => {
    writeReport(dir, meta({ method: 'm', yesThreshold: 0.45, weights: { bias: -1 } }), [summary]);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).not.toContain('Leave one file out');
  });

  it('the committed fit carries a leave-one-file-out entry per development file it was fitted on', () => {
    const lofo = (offlineJudgeFit as unknown as NonNullable<ReportMeta['offlineJudgeFit']>).leaveOneFileOut;
    expect(lofo?.heldOut.map((h) => h.heldOut)).toEqual(offlineJudgeFit.fittedOn.map((f) => f.replace(/\.jsonl$/, '')));
  });
});

describe('suite targets', () => {
  it('checks the unrounded pooled values: an FNR of 151 / 7547 (0.02001, printed 0.020) misses ≤ 0.02', () => {
    const fnr = 151 / (7396 + 151);
    const checks = checkSuiteTargets({ dacc: (7396 + 5755) / 13410, fpr: 108 / 5863, fnr, autoPrecision: 0.9942, recall: 0.9878, reviewPerEvent: 0.33 });
    expect(checks.map((c) => [c.name, c.met])).toEqual([
      ['DACC', true], ['FPR', true], ['FNR', false], ['auto precision', true], ['auto+review recall', true], ['review/event', true],
    ]);
    expect(targetSummary(checks)).toContain('FNR 0.02001 ≤ 0.02 **NOT met**');
    // Issue 33: review items ≤ 1 per attack event (was ≤ 2).
    expect(checkSuiteTargets({ dacc: null, fpr: 0.02, fnr: 150 / 7547, autoPrecision: null, recall: 0.98, reviewPerEvent: 2 }).map((c) => c.met))
      .toEqual([null, true, true, null, true, false]);
  });

  it('issue 33: the worst family, Hit@5 after on files with clean texts and the share of attack events suspected are checked when given', () => {
    const checks = checkSuiteTargets({ dacc: 0.99, fpr: 0.01, fnr: 0.01, autoPrecision: 0.995, recall: 0.99, reviewPerEvent: 0.5, minFamilyDacc: 0.9499, hitAfterClean: 0.05, suspectedShare: 0.051 });
    expect(checks.slice(6).map((c) => [c.name, c.met])).toEqual([['family DACC (min)', false], ['Hit@5 after (clean files)', true], ['attack events suspected', false]]);
  });

  it("a family's DACC is read over its runs with clean texts, as its row shows it; a recall-only family over all its runs", () => {
    const row = (hasClean: boolean, counts: SuiteRow['counts']) => ({ hasClean, counts }) as SuiteRow;
    // With clean texts: 90 of 100 planted found, 95 of 100 genuine cleared → balanced DACC 0.925. The file without
    // clean texts (all 100 planted found) must not lift it.
    const withClean = row(true, { tp: 90, fp: 5, tn: 95, fn: 10 });
    const recallOnly = row(false, { tp: 100, fp: 0, tn: 0, fn: 0 });
    const expected = pooledRates([withClean.counts]).dacc;
    expect(familyDaccOf([withClean, recallOnly])).toBe(expected);
    expect(familyDaccOf([withClean, recallOnly])).not.toBe(pooledRates([withClean.counts, recallOnly.counts]).dacc);
    expect(familyDaccOf([recallOnly])).toBe(pooledRates([recallOnly.counts]).dacc);
  });
});
