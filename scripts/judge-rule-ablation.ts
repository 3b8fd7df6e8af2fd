/**
 * What each of the offline judge's issue-33 rules changes, per attack family (the rule-level evidence that a
 * rule written from one family helps on the others). For every candidate the fit sees (BM25 top-10 per
 * question and poison set, `loadJudgeFitFiles`), the support gate (does the text state the wrong answer at
 * all?) is computed with no issue-33 rule, with each rule alone and with all of them; it prints, per family,
 * how many poisoned texts gain / lose support and how many clean texts gain / lose it. Support is read without
 * peers (peers do not change a text's own support).
 *
 * With `--minus`, every rule is compared the other way: all rules against all rules but that one (what the rule
 * adds to the others: the measure for a rule that refines another, such as `pairConnectives`).
 *
 *   npx tsx scripts/judge-rule-ablation.ts [--data-dir ../shared/data] [--examples N] [--minus]
 */
import { join, resolve } from 'node:path';
import { ALL_RULES, NO_RULES, bm25TopK, buildBm25Index, offlineJudgeFeatures, tokenize, type JudgeRules } from '@forensics/algorithms';
import { familyOf, loadJudgeFitFiles, poisonSetsOf, DEV_VARIANTS } from '../apps/eval/src/judge-fit/dev-rows';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const dataDir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data'))!);
const examples = Number(arg('examples', '0'));
// Each rule alone, then all of them (the rule list is JudgeRules' own, so a new rule gets its row).
const minus = process.argv.includes('--minus');
const configs: [string, JudgeRules][] = minus
  ? Object.keys(ALL_RULES).map((r): [string, JudgeRules] => [r, { ...ALL_RULES, [r]: false }])
  : [...Object.keys(ALL_RULES).map((r): [string, JudgeRules] => [r, { ...NO_RULES, [r]: true }]), ['all', { ...ALL_RULES }]];
// --minus: the base is every rule, and a "gain" is support the rule takes away (its row is the judge without it).
const baseRules = minus ? ALL_RULES : NO_RULES;
const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });
const gate = Number(arg('gate', '0.34'));

type Tally = { posGain: number; posLoss: number; negGain: number; negLoss: number; pos: number; neg: number; posSupported: number; negSupported: number };
const tally: Record<string, Record<string, Tally>> = {};
const shown: Record<string, number> = {};
for (const { file, records } of loadJudgeFitFiles(dataDir)) {
  const family = familyOf(file);
  for (const r of records) {
    for (const set of poisonSetsOf(r, DEV_VARIANTS)) {
      const poison = new Set(set.texts);
      const texts = [...new Set([...r.clean_texts, ...set.texts])];
      const ranked = bm25TopK(buildBm25Index(texts.map(tok)), tok(r.question), 10).map((h) => h.index);
      for (const i of ranked) {
        const input = { query: r.question, wrongAnswer: r.incorrect_answer, text: texts[i] };
        const base = offlineJudgeFeatures(input, { partialSupportMin: gate }, baseRules).support > 0;
        for (const [name, rules] of configs) {
          const now = offlineJudgeFeatures(input, { partialSupportMin: gate }, rules).support > 0;
          const t = ((tally[name] ??= {})[family] ??= { posGain: 0, posLoss: 0, negGain: 0, negLoss: 0, pos: 0, neg: 0, posSupported: 0, negSupported: 0 });
          const pos = poison.has(texts[i]);
          if (pos) { t.pos++; if (now) t.posSupported++; if (now && !base) t.posGain++; if (!now && base) t.posLoss++; } else { t.neg++; if (now) t.negSupported++; if (now && !base) t.negGain++; if (!now && base) t.negLoss++; }
          const key = `${name}/${family}/${pos ? 'pos' : 'neg'}/${now ? 'gain' : 'loss'}`;
          if (examples && now !== base && (shown[key] ?? 0) < examples) {
            shown[key] = (shown[key] ?? 0) + 1;
            console.error(JSON.stringify({ key, q: r.question, a: r.incorrect_answer, text: texts[i].slice(0, 400) }));
          }
        }
      }
    }
  }
}
for (const [name, byFamily] of Object.entries(tally)) for (const [family, t] of Object.entries(byFamily)) console.log(JSON.stringify({ rule: name, family, ...t }));
