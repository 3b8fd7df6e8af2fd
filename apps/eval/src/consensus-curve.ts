/**
 * The consensus check's trade-off curve (issue 33; docs/decisions/0100, docs/trust.md):
 * `npx tsx apps/eval/src/consensus-curve.ts [questions per file, default 15] [--data-dir DIR]`.
 * Per question of every suite file, an attack event (clean ∪ planted texts, the wrong answer) and a
 * false-flag event (clean texts only, the correct answer); the pool is the question's BM25 top 50
 * (no vectors: near-duplicates by term Jaccard only, an approximation of the service's dense pool),
 * the suspects are the texts the offline judge (committed fit) says YES to among the top 10, judged in
 * rounds of 5. Prints one JSON object: per file and rule, events, suspected events, planted / good
 * texts judged YES and those the check protects (kept served).
 */
import { bm25TopK, buildBm25Index, consensusCheck, offlineJudge, tokenize } from '@forensics/algorithms';
import { loadSuiteFiles } from './suite-files';
const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });
const N = Number(process.argv[2] ?? 15);
const dirAt = process.argv.indexOf('--data-dir');
const { loaded } = loadSuiteFiles(dirAt > 0 ? process.argv[dirAt + 1]! : '../shared/data');
const variants = [
  { name: 'issue13 (restated off, min 3)', p: { restatedCoverage: 0, minClusters: 3 } },
  ...[0.8, 0.7, 0.6, 0.5, 0.4].flatMap((rc) => [2, 3, 4].map((m) => ({ name: `restated ${rc}, min ${m}`, p: { restatedCoverage: rc, minClusters: m } }))),
  { name: 'restated off, min 2', p: { restatedCoverage: 0, minClusters: 2 } },
  { name: 'restated off, min 4', p: { restatedCoverage: 0, minClusters: 4 } },
];
const out: Record<string, { attackEvents: number; attackSuspected: number; plantedYes: number; plantedProtected: number; ffEvents: number; ffSuspected: number; goodYes: number; goodProtected: number }> = {};
for (const f of loaded) {
  for (const r of f.records.slice(0, N)) {
    for (const mode of ['attack', 'ff'] as const) {
      if (mode === 'ff' && (!r.clean_texts.length || !r.correct_answer)) continue;
      const texts = mode === 'attack' ? [...new Set([...r.clean_texts, ...r.poisoned_texts])] : [...new Set(r.clean_texts)];
      const planted = new Set(mode === 'attack' ? r.poisoned_texts : []);
      const ans = mode === 'attack' ? r.incorrect_answer : r.correct_answer!;
      const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), 50).map((h) => h.index);
      const suspects: string[] = [];
      for (let s = 0; s < Math.min(10, ranked.length); s += 5) {
        const batch = ranked.slice(s, s + 5);
        for (const i of batch) if (offlineJudge({ query: r.question, wrongAnswer: ans, text: texts[i]!, peers: batch.filter((j) => j !== i).map((j) => texts[j]!) }).label === 'YES') suspects.push(String(i));
      }
      if (!suspects.length) continue;
      const pool = ranked.map((i) => ({ id: String(i), text: texts[i]! }));
      for (const v of variants) {
        const c = consensusCheck(ans, pool, v.p, r.question, suspects);
        const key = `${f.file}|${v.name}`;
        const o = (out[key] ??= { attackEvents: 0, attackSuspected: 0, plantedYes: 0, plantedProtected: 0, ffEvents: 0, ffSuspected: 0, goodYes: 0, goodProtected: 0 });
        const prot = new Set(c.protectedIds);
        if (mode === 'attack') {
          o.attackEvents++; if (c.suspected) o.attackSuspected++;
          for (const id of suspects) if (planted.has(texts[Number(id)]!)) { o.plantedYes++; if (prot.has(id)) o.plantedProtected++; }
        } else {
          o.ffEvents++; if (c.suspected) o.ffSuspected++;
          o.goodYes += suspects.length; o.goodProtected += suspects.filter((id) => prot.has(id)).length;
        }
      }
    }
  }
  process.stderr.write(`${f.file}\n`);
}
process.stdout.write(JSON.stringify(out) + '\n');
