/**
 * Dev harness for the offline evidence judge inside the RAGForensics loop (algorithms.md §1, §5).
 *
 *   npx tsx scripts/offline-judge-dev.ts --data /work/shared/data/poisonedrag_nq.jsonl
 *     [--judge offline|trivial|oracle] [--retrieval q|q+t] [--threshold 0.5] [--k 5] [--dump out.jsonl] [--show-errors 10]
 *
 * `--judge oracle` uses the ground-truth labels: it measures the retrieval reach (how many
 * poisoned texts the K = 5 stopping rule lets any judge see). `--retrieval q+t` appends the wrong
 * answer to the BM25 query (an optional deeper search, not the paper's setting).
 *
 * Per question: KB = clean_texts ∪ poisoned_texts, BM25 retrieval (Okapi, k1 = 1.2, b = 0.75, over
 * stopword-free lightly stemmed tokens), the traceback loop with K = 5, the judge on each new
 * text with all texts retrieved so far in the event as peers. Prints pooled and macro
 * DACC / FPR / FNR over judged texts (ragforensics.md App. 8.2: TP = poisoned judged YES,
 * FP = clean judged YES; UNDETERMINED counts as not-YES) and the share of poisoned texts flagged.
 * Reads the data from its path; nothing is copied into the repository.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  acceptRetrieval, acceptVerdicts, bm25TopK, buildBm25Index, containsAnswer, initTrace, Label, nextRetrieval,
  offlineJudge, summarizeTrace, tokenize, TraceState,
} from '@forensics/algorithms';

interface Record_ { id: string; question: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] }

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dataPath = arg('data');
if (!dataPath) {
  console.error('usage: npx tsx scripts/offline-judge-dev.ts --data <file.jsonl> [--judge offline|trivial|oracle] [--retrieval q|q+t] [--threshold X] [--k 5] [--dump out.jsonl] [--show-errors N]');
  process.exit(2);
}
const judgeKind = arg('judge', 'offline');
const retrievalQuery = arg('retrieval', 'q');
const k = Number(arg('k', '5'));
const dumpPath = arg('dump');
const showErrors = Number(arg('show-errors', '0'));
const yesThreshold = arg('threshold') ? Number(arg('threshold')) : undefined;

const records: Record_[] = readFileSync(dataPath, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record_);
const tok = (s: string) => tokenize(s, { removeStopwords: true, stem: true });

const pooled = { tp: 0, fp: 0, tn: 0, fn: 0, und: 0 };
const macro = { dacc: 0, fpr: 0, fnr: 0, nFpr: 0, nFnr: 0 };
let poisonedTotal = 0;
let poisonedFlagged = 0;
const statusCounts: Record<string, number> = {};
const dump: string[] = [];
const errors: string[] = [];
let judgeCalls = 0;
const t0 = Date.now();

for (const r of records) {
  const texts = [...r.clean_texts, ...r.poisoned_texts];
  const ids = texts.map((_, i) => (i < r.clean_texts.length ? `c${i}` : `p${i - r.clean_texts.length}`));
  const byId = new Map(ids.map((id, i) => [id, texts[i]]));
  const index = buildBm25Index(texts.map(tok));
  // 'q' = the paper's setting (the RAG's retriever queried with q); 'q+t' adds the wrong answer to the retrieval query.
  const q = tok(retrievalQuery === 'q+t' ? `${r.question} ${r.incorrect_answer}` : r.question);
  const seen: string[] = [];
  const detail: Record<string, { score: number; explanation: string }> = {};

  const judge = (id: string): Label => {
    const text = byId.get(id)!;
    if (judgeKind === 'trivial') return containsAnswer(text, r.incorrect_answer) ? 'YES' : 'NO';
    if (judgeKind === 'oracle') return id.startsWith('p') ? 'YES' : 'NO'; // upper bound of the retrieval reach
    const res = offlineJudge({ query: r.question, wrongAnswer: r.incorrect_answer, text, peers: seen.filter((s) => s !== id).map((s) => byId.get(s)!) }, { yesThreshold, undeterminedBelow: yesThreshold });
    detail[id] = { score: res.score, explanation: res.explanation };
    if (dumpPath) dump.push(JSON.stringify({ q: r.id, id, poisoned: id.startsWith('p'), label: res.label, ...res.signals }));
    return res.label;
  };

  let s: TraceState = initTrace({ k });
  for (let req = nextRetrieval(s); req; req = nextRetrieval(s)) {
    const exclude = new Set(req.excludeIds.map((id) => ids.indexOf(id)));
    const got = bm25TopK(index, q, req.k, exclude).map((h) => ids[h.index]);
    for (const id of got) if (!seen.includes(id)) seen.push(id);
    const step = acceptRetrieval(s, got);
    s = step.state;
    if (s.status !== 'RUNNING') break;
    s = acceptVerdicts(s, Object.fromEntries(step.toJudge.map((id) => [id, judge(id)])));
  }
  const sum = summarizeTrace(s);
  statusCounts[sum.status] = (statusCounts[sum.status] ?? 0) + 1;
  judgeCalls += sum.judgeCalls;

  const c = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const [id, label] of Object.entries(s.verdicts)) {
    const isPoison = id.startsWith('p');
    const yes = label === 'YES';
    if (label === 'UNDETERMINED') pooled.und += 1;
    if (isPoison && yes) c.tp += 1;
    else if (isPoison) c.fn += 1;
    else if (yes) c.fp += 1;
    else c.tn += 1;
    if (errors.length < showErrors && isPoison !== yes) {
      errors.push(`[${r.id}] ${isPoison ? 'FN' : 'FP'} q="${r.question}" t="${r.incorrect_answer}"\n   text: ${byId.get(id)!.slice(0, 240)}\n   ${detail[id]?.explanation ?? ''}`);
    }
  }
  pooled.tp += c.tp; pooled.fp += c.fp; pooled.tn += c.tn; pooled.fn += c.fn;
  const n = c.tp + c.fp + c.tn + c.fn;
  macro.dacc += n ? (c.tp + c.tn) / n : 0;
  if (c.fp + c.tn) { macro.fpr += c.fp / (c.fp + c.tn); macro.nFpr += 1; }
  if (c.fn + c.tp) { macro.fnr += c.fn / (c.fn + c.tp); macro.nFnr += 1; }
  poisonedTotal += r.poisoned_texts.length;
  poisonedFlagged += c.tp;
}

const f = (x: number) => x.toFixed(4);
const n = pooled.tp + pooled.fp + pooled.tn + pooled.fn;
console.log(`file=${dataPath} judge=${judgeKind} retrieval=${retrievalQuery} K=${k} questions=${records.length} judged=${n} (undetermined ${pooled.und}) judgeCalls/question=${(judgeCalls / records.length).toFixed(2)}`);
console.log(`pooled: DACC=${f((pooled.tp + pooled.tn) / n)} FPR=${f(pooled.fp / (pooled.fp + pooled.tn))} FNR=${f(pooled.fn / (pooled.fn + pooled.tp))}  (TP=${pooled.tp} FP=${pooled.fp} TN=${pooled.tn} FN=${pooled.fn})`);
console.log(`macro:  DACC=${f(macro.dacc / records.length)} FPR=${f(macro.fpr / Math.max(1, macro.nFpr))} FNR=${f(macro.fnr / Math.max(1, macro.nFnr))}`);
console.log(`poisoned texts flagged: ${poisonedFlagged}/${poisonedTotal} = ${f(poisonedFlagged / poisonedTotal)}`);
console.log(`trace outcomes: ${JSON.stringify(statusCounts)}  time=${((Date.now() - t0) / 1000).toFixed(1)}s`);
if (errors.length) console.log(`\nfirst ${errors.length} errors:\n${errors.join('\n')}`);
if (dumpPath) writeFileSync(dumpPath, dump.join('\n') + '\n');
