/**
 * Golden verdicts of the offline judge (issue 33): a few hundred fixed (question, wrong answer, text, peers)
 * cases drawn across every attack family of the development data, with the verdict the judge gives them.
 * The committed file (apps/eval/src/__tests__/golden/golden-verdicts.json) holds only
 * references into ../shared/data (file, record id, which text, a SHA-256 prefix of it) — the third-party
 * texts are never committed — and the spec re-judges every case and fails on any flipped verdict, so a rule
 * change or a refit shows its diff in review.
 *
 *   npx tsx scripts/golden-verdicts.ts --select   pick the cases anew (seeded) and write their verdicts
 *   npx tsx scripts/golden-verdicts.ts            keep the cases, rewrite their verdicts (after a deliberate change:
 *                                                 say why in the commit; `git diff` shows which verdicts moved)
 *
 * Selection, per family (`familyOf`), seeded (`SEED`): among the candidates the fit sees (BM25 top-10 of the
 * record's own clean texts and poisons, in rounds of 5; the round's other texts are the peers), up to
 * `PER_KIND` poisoned texts, `PER_KIND` clean texts that state the wrong answer (the hard negatives) and
 * `PER_KIND` other clean texts, then `PER_KIND` more of each where the question is yes/no.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bm25TopK, buildBm25Index, mulberry32, offlineJudge, offlineJudgeFeatures, OFFLINE_JUDGE_MODEL, polarAnswer, tokenize } from '@forensics/algorithms';
import { DEV_VARIANTS, familyOf, JUDGE_FIT_FILES, loadDevFiles, VARIANT_COUNT } from '../apps/eval/src/judge-fit/dev-rows';
import type { EvalRecord } from '../apps/eval/src/eval-data';

const dataDir = resolve(join(__dirname, '..', '..', 'shared', 'data'));
const out = join(__dirname, '..', 'apps', 'eval', 'src', '__tests__', 'golden', 'golden-verdicts.json');
const SEED = 33;
const PER_KIND = 16;
const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });
export const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

interface Ref { field: string; index: number }
interface GoldenCase { family: string; file: string; id: string; text: Ref; sha: string; peers: Ref[]; poisoned: boolean; expected?: { label: string; states: boolean } }

function textOf(r: EvalRecord, ref: Ref): string | undefined {
  if (ref.field === 'clean_texts') return r.clean_texts[ref.index];
  if (ref.field === 'poisoned_texts') return r.poisoned_texts[ref.index];
  return r.poisoned_variants?.[ref.field.replace(/^poisoned_variants\./, '')]?.[ref.index];
}

function candidates(file: string, r: EvalRecord): GoldenCase[] {
  const sets: { field: string; texts: string[] }[] = [{ field: 'poisoned_texts', texts: r.poisoned_texts }];
  for (const v of DEV_VARIANTS) if (Array.isArray(r.poisoned_variants?.[v])) sets.push({ field: `poisoned_variants.${v}`, texts: r.poisoned_variants![v].slice(0, VARIANT_COUNT) });
  const out: GoldenCase[] = [];
  for (const set of sets) {
    const refs: Ref[] = [...r.clean_texts.map((_, index) => ({ field: 'clean_texts', index })), ...set.texts.map((_, index) => ({ field: set.field, index }))];
    const texts = refs.map((ref) => textOf(r, ref)!);
    const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), 10).map((h) => h.index);
    for (let s = 0; s < ranked.length; s += 5) {
      const batch = ranked.slice(s, s + 5);
      for (const i of batch) {
        // A text given as both clean and poisoned counts as clean here only if no poison equals it.
        const poisoned = refs[i].field !== 'clean_texts' || set.texts.includes(texts[i]);
        out.push({ family: familyOf(file), file, id: r.id, text: refs[i], sha: sha(texts[i]), peers: batch.filter((j) => j !== i).map((j) => refs[j]), poisoned });
      }
    }
  }
  return out;
}

function judge(c: GoldenCase, r: EvalRecord) {
  const text = textOf(r, c.text)!;
  const input = { query: r.question, wrongAnswer: r.incorrect_answer, text, peers: c.peers.map((p) => textOf(r, p)!) };
  const v = offlineJudge(input);
  return { label: v.label, states: offlineJudgeFeatures(input).support > 0 };
}

function main(): void {
  if (!existsSync(dataDir)) throw new Error(`${dataDir} not found: the golden verdicts are drawn from ../shared/data`);
  const select = process.argv.includes('--select');
  const dev = loadDevFiles(dataDir, JUDGE_FIT_FILES);
  const records = new Map(dev.map((d) => [d.file, new Map(d.records.map((r) => [r.id, r]))]));
  let cases: GoldenCase[];
  if (select) {
    const rand = mulberry32(SEED);
    const pick = <T>(xs: T[], n: number) => { const a = [...xs]; for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; } return a.slice(0, n); };
    cases = [];
    for (const family of [...new Set(dev.map((d) => familyOf(d.file)))]) {
      // RevPRAG: the first 400 records of each file are enough to draw from (3000 each).
      const pool = dev.filter((d) => familyOf(d.file) === family).flatMap((d) => (family === 'revprag' ? d.records.slice(0, 400) : d.records).flatMap((r) => candidates(d.file, r)));
      const states = (c: GoldenCase) => offlineJudgeFeatures({ query: records.get(c.file)!.get(c.id)!.question, wrongAnswer: records.get(c.file)!.get(c.id)!.incorrect_answer, text: textOf(records.get(c.file)!.get(c.id)!, c.text)! }).support > 0;
      const isPolar = (c: GoldenCase) => polarAnswer(records.get(c.file)!.get(c.id)!.incorrect_answer) !== undefined;
      const pos = pool.filter((c) => c.poisoned);
      const neg = pool.filter((c) => !c.poisoned);
      const hardNeg = pick(neg, 3000).filter(states);
      cases.push(...pick(pos, PER_KIND), ...hardNeg.slice(0, PER_KIND), ...pick(neg, PER_KIND));
      cases.push(...pick(pos.filter(isPolar), PER_KIND), ...pick(neg.filter(isPolar), PER_KIND));
    }
    const seen = new Set<string>();
    cases = cases.filter((c) => { const k = `${c.file}/${c.id}/${c.text.field}[${c.text.index}]/${c.peers.map((p) => `${p.field}[${p.index}]`).join(',')}`; if (seen.has(k)) return false; seen.add(k); return true; });
  } else {
    const parseRef = (s: string): Ref => { const m = /^(.+)\[(\d+)\]$/.exec(s)!; return { field: m[1], index: Number(m[2]) }; };
    type Stored = Omit<GoldenCase, 'text' | 'peers'> & { text: string; peers: string[] };
    cases = (JSON.parse(readFileSync(out, 'utf8')) as { cases: Stored[] }).cases.map((c) => ({ ...c, text: parseRef(c.text), peers: c.peers.map(parseRef) }));
  }
  for (const c of cases) c.expected = judge(c, records.get(c.file)!.get(c.id)!);
  writeFileSync(out, `${JSON.stringify({
    note: 'Written by scripts/golden-verdicts.ts; the texts are in ../shared/data (never committed). Change deliberately, with the reason in the commit.',
    model: OFFLINE_JUDGE_MODEL,
    cases: cases.map((c) => ({ family: c.family, file: c.file, id: c.id, text: `${c.text.field}[${c.text.index}]`, sha: c.sha, peers: c.peers.map((p) => `${p.field}[${p.index}]`), poisoned: c.poisoned, label: c.expected!.label, states: c.expected!.states })),
  }, null, 1)}\n`);
  const n = cases.length;
  console.log(`${n} golden cases written to ${out}; by family: ${JSON.stringify(Object.fromEntries([...new Set(cases.map((c) => c.family))].map((f) => [f, cases.filter((c) => c.family === f).length])))}`);
}

main();
