import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { macroRates, pooledRates } from '@forensics/algorithms';
import offlineJudgeFit from '../../../../libs/forensics/src/offline-judge/offline-judge.fitted.json';
import { writeReport, type ReportMeta } from '../report';
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

  it('quotes the leave-one-dataset-out numbers when the fit has them', () => {
    writeReport(dir, meta({
      method: 'm', yesThreshold: 0.45, weights: { bias: -1 }, crossValidated: { all: { rows: 10, dacc: 0.9, fpr: 0.1, fnr: 0 } },
      leaveOneDatasetOut: { retriever: 'embed', k: 5, heldOut: [{ data: 'poisonedrag_hotpotqa', fittedOn: ['a.jsonl', 'b.jsonl'], yesThreshold: 0.48, events: 100, pooled: { dacc: 0.9772, fpr: 0.0314, fnr: 0.0132 } }] },
    }), [summary]);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toContain('### Offline judge, leave one dataset out (traceback level, retriever `embed`, K = 5)');
    expect(md).toContain('| poisonedrag_hotpotqa (this file) | a.jsonl, b.jsonl | 0.48 | 100 | 0.9772 | 0.0314 | 0.0132 |');
    expect(md).toContain('| all | 10 | 0.9000 | 0.1000 | 0.0000 |');
  });

  it('omits the section without leave-one-dataset-out numbers', () => {
    writeReport(dir, meta({ method: 'm', yesThreshold: 0.45, weights: { bias: -1 }, crossValidated: {} }), [summary]);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).not.toContain('leave one dataset out');
  });

  it('the committed fit carries a leave-one-dataset-out entry per development file', () => {
    const lodo = (offlineJudgeFit as unknown as ReportMeta['offlineJudgeFit'])?.leaveOneDatasetOut;
    expect(lodo?.heldOut.map((h) => h.data)).toEqual(offlineJudgeFit.fittedOn.map((f) => f.replace(/\.jsonl$/, '')));
    for (const h of lodo!.heldOut) expect(h.fittedOn).not.toContain(`${h.data}.jsonl`);
  });
});
