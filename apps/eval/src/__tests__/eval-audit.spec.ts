import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@forensics/core/testing';
import { parseEvalAuditArgs, runEvalAudit } from '../audit/eval-audit';

/** A generated file (not third-party data): 6 targets, each with 12 clean texts and 5 planted paraphrases sharing a made-up answer. */
function writeData(dir: string): string {
  const lines: string[] = [];
  const places = ['harbour', 'orchard', 'glacier', 'library', 'volcano', 'market'];
  places.forEach((p, q) => {
    const answer = `Zq${q}vor Kel${q}mq`;
    lines.push(JSON.stringify({
      id: `q${q}`, dataset: 'synthetic', attack: 'synthetic', question: `who founded the ${p}`, correct_answer: 'someone', incorrect_answer: answer,
      poisoned_texts: [0, 1, 2, 3, 4].map((v) => `The ${p} was founded by ${answer} long ago ${['indeed', 'truly', 'surely', 'clearly', 'plainly'][v]}.`),
      clean_texts: Array.from({ length: 12 }, (_, c) => `Notes ${q}-${c}: the ${places[(q + c) % 6]} hosts event ${c} with ${['music', 'food', 'crafts', 'boats'][c % 4]} and guests from town ${c * 3 + q}.`),
    }));
  });
  const file = join(dir, 'synthetic.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('eval:audit', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'eval-audit-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the issue\'s JSON shape with measured scan and reconcile numbers, and writes report.md with the curve', async () => {
    const opts = parseEvalAuditArgs(['--data', writeData(dir), '--out', join(dir, 'out'), '--quiet']);
    const { line, out } = await runEvalAudit(opts, new HashingEmbedder(256));
    expect(Object.keys(line)).toEqual(['data', 'texts', 'poisoned', 'scan', 'siblings', 'admission', 'reconcile']);
    expect(line).toMatchObject({ texts: 6 * 17, poisoned: 30, siblings: null, admission: null, reconcile: { injected: 12, lost: 0 } });
    const scan = line.scan as { recall: number; flaggedBenignPer1k: number };
    expect(scan.recall).toBeGreaterThan(0);
    expect(scan.recall).toBeLessThanOrEqual(1);
    const rec = line.reconcile as { repaired: number; reported: number };
    expect(rec.repaired + rec.reported).toBe(12);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toContain('![recall vs flagged benign](curve.svg)');
    expect(readFileSync(join(out, 'curve.svg'), 'utf8')).toContain('<polyline');
  });

  it('refuses bad arguments', () => {
    expect(() => parseEvalAuditArgs([])).toThrow(/usage/);
    expect(() => parseEvalAuditArgs(['--data', 'x', '--limit', '0'])).toThrow(/--limit/);
    expect(() => parseEvalAuditArgs(['--data', 'x', '--frobnicate', '1'])).toThrow(/unknown option/);
  });
});
