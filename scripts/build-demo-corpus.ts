/**
 * Builds the small demo corpus shipped in demo/ from the third-party PoisonedRAG NQ file:
 * the first N questions, each with its 5 official poisoned texts and its top-C clean passages
 * (contriever order, gold passages included). Usage:
 *   npx tsx scripts/build-demo-corpus.ts [--data ../shared/data/poisonedrag_nq.jsonl] [--questions 20] [--clean 20]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const data = arg('data', join(__dirname, '..', '..', 'shared', 'data', 'poisonedrag_nq.jsonl'));
const nQ = Number(arg('questions', '20'));
const nC = Number(arg('clean', '20'));

const lines = readFileSync(data, 'utf8').split('\n').filter(Boolean).slice(0, nQ);
const out = lines.map((l) => {
  const r = JSON.parse(l);
  return {
    id: r.id, question: r.question, correct_answer: r.correct_answer, incorrect_answer: r.incorrect_answer,
    poisoned_texts: r.poisoned_texts.slice(0, 5), clean_texts: r.clean_texts.slice(0, nC),
    source: { repo: r.source_repo, path: r.source_path, commit: r.source_commit },
  };
});
writeFileSync(join(__dirname, '..', 'demo', 'poisonedrag-nq-20.jsonl'), out.map((o) => JSON.stringify(o)).join('\n') + '\n');
console.log(`wrote ${out.length} questions, ${out.reduce((s, o) => s + o.poisoned_texts.length, 0)} poisoned and ${out.reduce((s, o) => s + o.clean_texts.length, 0)} clean texts`);
