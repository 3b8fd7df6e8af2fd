/**
 * @jest-environment ./test/support/onnx-environment.js
 *
 * The combined retriever-side evidence must keep separating poisoned from clean candidates: AUROC
 * of the combined suspicion (BiRD + GRADA + ProGRank, calibrated with evidence.fitted.json) over the
 * candidates a traceback judges, on a FIXED sample of development questions read from
 * ../shared/data (skipped, with a message, when that folder is absent).
 *
 * Real parts: the default encoder USE-lite (the one the calibration was fitted for — a hashing or
 * BM25 stand-in would measure a calibration the product never runs), its exact LayerNorm gradient
 * probe (R = 20, the service default), the embedded LanceDB store on disk, and the service's own
 * `collectEvidence` — through scripts/evidence-rows.ts, the code the fit uses. Nothing is cached:
 * CI has no embedding cache, so the sample is small (see SAMPLE): about 50 s on 2 cores at load 2.
 *
 * Setting (as in the fit): per question, clean_texts ∪ poisoned_texts in its own collection; the
 * candidates are the top-2K (K = 5) texts for the question; poisoned texts are the positives.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { auroc, birdSuspicion, combineEvidence, gradaSuspicion, progrankSuspicion } from '@forensics/algorithms';
import { UseLiteEmbedder } from '@forensics/infra/embedders/use-lite-embedder.adapter';
import { UseLiteGradientProbe } from '@forensics/infra/probe/use-lite/use-lite-gradient-probe';
import { LanceDbVectorStore } from '@forensics/infra/vector-store/lancedb-vector-store.adapter';
import { evidenceRowsFor, type EvidenceRecordInput, type EvidenceRow } from '../scripts/evidence-rows';

const DATA = resolve(__dirname, '..', '..', 'shared', 'data');

/**
 * The fixed sample: the first three qualifying records (clean pool ≥ 20 texts) of the two
 * PoisonedRAG files, in file order — not picked for their scores. Those two files because the
 * evidence separates there; on RobustRAG RealtimeQA and the GMTP HotFlip files it does not
 * (leave-one-file-out AUROC 0.51, 0.37, 0.56: see README, "Evidence and the decision policy"), so
 * a test there could assert nothing above chance.
 */
const SAMPLE: Record<string, string[]> = {
  poisonedrag_nq: ['test1', 'test11', 'test16'],
  poisonedrag_hotpotqa: ['5adbf0a255429947ff17385a', '5a8cb288554299585d9e3726', '5ab56e32554299637185c594'],
};

/**
 * Threshold: the leave-one-file-out AUROC of the combined evidence (scripts/fit-evidence.ts; in
 * evidence.fitted.json) is 0.796 on PoisonedRAG NQ and 0.934 on HotpotQA; on this sample it
 * measured 0.817 (60 candidates, 22 poisoned; 0.826 with four records per file). 0.70 leaves a
 * margin of about 0.1 below both; the retrieval rank alone scores 0.70 on NQ.
 */
const MIN_AUROC = 0.7;

const available = Object.keys(SAMPLE).every((f) => existsSync(join(DATA, `${f}.jsonl`)));
if (!available) {
  // eslint-disable-next-line no-console
  console.warn(`evidence-auroc: skipped — the development data is not in ${DATA} (see ../shared/data/README.md)`);
}

(available ? describe : describe.skip)('combined evidence separates poisoned from clean candidates (fixed dev sample)', () => {
  let dir: string;
  let store: LanceDbVectorStore;
  const embedder = new UseLiteEmbedder();
  const probe = new UseLiteGradientProbe();
  const rows: EvidenceRow[] = [];
  const combined: number[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evidence-auroc-'));
    store = new LanceDbVectorStore({ dir: join(dir, 'lancedb') });
    for (const [file, ids] of Object.entries(SAMPLE)) {
      const records = readFileSync(join(DATA, `${file}.jsonl`), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as EvidenceRecordInput);
      for (const id of ids) {
        const r = records.find((x) => String(x.id) === id);
        if (!r) throw new Error(`${file}: question id ${id} not found (the sample is fixed; has the data changed?)`);
        rows.push(...(await evidenceRowsFor(r, { file, embedder, probe, store })));
      }
    }
    // The service's scales, exactly as a verdict's evidence gets them (collect-evidence.ts).
    for (const r of rows) {
      const bird = r.birdS === null ? undefined : birdSuspicion(r.birdS === 'Infinity' ? Number.POSITIVE_INFINITY : r.birdS);
      const grada = r.grada ? gradaSuspicion(r.grada) : undefined;
      const progrank = r.progrank ? progrankSuspicion(r.progrank.penalty) : undefined;
      combined.push(combineEvidence({ bird, grada, progrank }).suspicion);
    }
  }, 600_000);

  afterAll(async () => {
    await probe.close();
    await embedder.close();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every candidate has all three signals', () => {
    expect(rows.length).toBe(10 * Object.values(SAMPLE).flat().length);
    for (const r of rows) {
      expect(r.birdS).not.toBeNull();
      expect(r.grada).not.toBeNull();
      expect(r.progrank).not.toBeNull();
    }
    expect(rows.filter((r) => r.progrank!.probed).length).toBeGreaterThan(0);
  });

  it(`AUROC of the combined suspicion ≥ ${MIN_AUROC}`, () => {
    const y = rows.map((r) => r.poisoned);
    expect(y.filter(Boolean).length).toBeGreaterThan(5);
    expect(y.filter((p) => !p).length).toBeGreaterThan(5);
    const value = auroc(combined, y)!;
    // eslint-disable-next-line no-console
    console.log(`evidence-auroc: combined AUROC ${value.toFixed(3)} on ${rows.length} candidates (${y.filter(Boolean).length} poisoned)`);
    expect(value).toBeGreaterThanOrEqual(MIN_AUROC);
  });
});
