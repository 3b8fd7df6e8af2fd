/**
 * Span localisation (issue 35, item 4): on the development files where the planted part of a text is
 * known, how often does a claim span of a YES verdict of the offline judge overlap it?
 *
 *   npm run -s eval:spans [-- --data-dir ../shared/data] [--limit N]
 *
 * Two sets, each text judged by `offlineJudge` with its question, its file's wrong answer and, as
 * peers, the other texts of its question (what a traceback round judges together):
 *
 * - prefix: GMTP files (`adversarial_prefixes`, `poisoned_payloads`): a poisoned text is an
 *   adversarial prefix (HotFlip / GCG tokens) and the payload, the claim. The planted part is the
 *   payload: the text after the prefix when the text starts with it (HotFlip, Phantom), the payload's
 *   own characters when the text starts with the payload (Adversarial Decoding puts its tokens after
 *   it). Texts where neither holds are counted as `unlocated` and left out.
 * - inserted: one planted text inside a long clean document of the same question. The document is the
 *   question's clean texts joined (in file order, each a paragraph) until it is ≥ 1,200 characters
 *   (at most 4; questions with fewer than 2 clean texts are left out); one of the question's poisoned
 *   texts (its payload for a GMTP file), drawn by a seeded PRNG, is put in as its own paragraph at a
 *   drawn paragraph boundary (mulberry32, seed = FNV-1a of "<file>:<record id>" — the same document
 *   on every run). The planted part is the inserted characters.
 *
 * A YES verdict counts as covered when any of its spans overlaps the planted part by ≥ 1 character;
 * also reported: YES verdicts whose spans all lie inside it (`inside`), YES verdicts without a span (`noSpan`),
 * the share of span characters inside the planted part (`charPrecision`) and of the YES texts' characters
 * under a span (`spanShare`: what a redaction would remove).
 * Prints one JSON line: per file and set, and pooled.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32, offlineJudge, spansOverlap, type TextSpan } from '@forensics/algorithms';

const INSERT_MIN_CHARS = 1200;
const INSERT_MAX_PARTS = 4;

interface RawRecord {
  id: string;
  question: string;
  incorrect_answer: string | null;
  poisoned_texts: string[];
  clean_texts: string[];
  adversarial_prefixes?: string[];
  poisoned_payloads?: string[];
}

interface Case {
  text: string;
  planted: TextSpan;
  peers: string[];
  question: string;
  answer: string;
}

interface Tally { texts: number; yes: number; covered: number; inside: number; noSpan: number; unlocated: number; spanChars: number; spanCharsPlanted: number; textChars: number }
const tally = (): Tally => ({ texts: 0, yes: 0, covered: 0, inside: 0, noSpan: 0, unlocated: 0, spanChars: 0, spanCharsPlanted: 0, textChars: 0 });

/** FNV-1a, 32 bit: the seed of a record's draws. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Where the payload is in a GMTP poisoned text (see the file comment), or undefined. */
export function plantedOfPrefixed(text: string, prefix: string, payload: string): TextSpan | undefined {
  if (prefix && text.startsWith(prefix) && text.length > prefix.length) return { start: prefix.length, end: text.length };
  if (payload && text.startsWith(payload)) return { start: 0, end: payload.length };
  return undefined;
}

/** The inserted-sentence document of a record (see the file comment), or undefined when it has too few clean texts. */
export function insertedCase(file: string, r: RawRecord): Case | undefined {
  if (r.clean_texts.length < 2 || r.poisoned_texts.length === 0 || !r.incorrect_answer) return undefined;
  const rng = mulberry32(fnv1a(`${file}:${r.id}`));
  const parts: string[] = [];
  for (const c of r.clean_texts) {
    parts.push(c.trim());
    if (parts.join('\n\n').length >= INSERT_MIN_CHARS || parts.length >= INSERT_MAX_PARTS) break;
  }
  const pick = Math.floor(rng() * r.poisoned_texts.length);
  const planted = (r.poisoned_payloads?.[pick] ?? r.poisoned_texts[pick]).trim();
  const at = Math.floor(rng() * (parts.length + 1));
  const before = parts.slice(0, at).join('\n\n');
  const start = before ? before.length + 2 : 0;
  const text = [...parts.slice(0, at), planted, ...parts.slice(at)].join('\n\n');
  const others = r.poisoned_texts.filter((_, i) => i !== pick);
  return { text, planted: { start, end: start + planted.length }, peers: [...others, ...r.clean_texts.slice(parts.length)], question: r.question, answer: r.incorrect_answer };
}

function judgeCase(c: Case, t: Tally): void {
  t.texts += 1;
  const v = offlineJudge({ query: c.question, wrongAnswer: c.answer, text: c.text, peers: c.peers });
  if (v.label !== 'YES') return;
  t.yes += 1;
  if (v.spans.length === 0) { t.noSpan += 1; return; }
  if (v.spans.some((s) => spansOverlap(s, c.planted))) t.covered += 1;
  if (v.spans.every((s) => s.start >= c.planted.start && s.end <= c.planted.end)) t.inside += 1;
  t.textChars += c.text.length;
  for (const s of v.spans) {
    t.spanChars += s.end - s.start;
    t.spanCharsPlanted += Math.max(0, Math.min(s.end, c.planted.end) - Math.max(s.start, c.planted.start));
  }
}

function readRecords(path: string, limit?: number): RawRecord[] {
  const out: RawRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as RawRecord & { incorrect_answer: unknown };
    // Some GMTP records give a number as the wrong answer (a year): it is that number's text.
    const answer = typeof r.incorrect_answer === 'number' ? String(r.incorrect_answer) : r.incorrect_answer;
    if (typeof answer !== 'string' || !answer.trim()) continue;
    out.push({ ...r, incorrect_answer: answer });
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}

/** Files of the inserted set besides the GMTP ones: PoisonedRAG's black-box texts inside their own clean pool. */
const INSERT_EXTRA = ['poisonedrag_nq', 'poisonedrag_hotpotqa'];

const r4 = (x: number) => Math.round(x * 10000) / 10000;
/** overlapRate = covered / YES; charPrecision = span characters inside the planted part / span characters; spanShare = span characters / characters of the YES texts. */
function rate(t: Tally) {
  const { spanChars, spanCharsPlanted, textChars, ...counts } = t;
  return { ...counts, overlapRate: t.yes ? r4(t.covered / t.yes) : null, charPrecision: spanChars ? r4(spanCharsPlanted / spanChars) : null, spanShare: textChars ? r4(spanChars / textChars) : null };
}

export function main(argv: readonly string[]): void {
  const arg = (name: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : undefined; };
  const dataDir = arg('data-dir') ?? '../shared/data';
  const limit = arg('limit') !== undefined ? Number(arg('limit')) : undefined;
  if (!existsSync(dataDir)) {
    process.stderr.write(`span-localisation: data folder not found: ${dataDir} (the shared third-party data, ../shared/data, is not part of this repository)\n`);
    process.exitCode = 2;
    return;
  }
  const gmtp = ['contriever_nq', 'contriever_hotpotqa', 'dpr_nq', 'dpr_hotpotqa'].map((x) => `gmtp_poisonedrag-whitebox-hotflip_${x}`)
    .concat(['phantom', 'advdecoding'].flatMap((a) => ['nq', 'hotpotqa'].map((d) => `gmtp_${a}-trigger-dos_contriever_${d}`)));
  const files: Record<string, { prefix?: ReturnType<typeof rate>; inserted?: ReturnType<typeof rate> }> = {};
  const pooled = { prefix: tally(), inserted: tally() };
  const t0 = performance.now();
  for (const name of [...gmtp, ...INSERT_EXTRA]) {
    const path = join(dataDir, `${name}.jsonl`);
    if (!existsSync(path)) continue;
    const records = readRecords(path, limit);
    const prefix = tally();
    const inserted = tally();
    for (const r of records) {
      if (!r.incorrect_answer) continue;
      if (r.adversarial_prefixes && r.poisoned_payloads) {
        r.poisoned_texts.forEach((text, i) => {
          const planted = plantedOfPrefixed(text, r.adversarial_prefixes![i] ?? '', r.poisoned_payloads![i] ?? '');
          if (!planted) { prefix.unlocated += 1; return; }
          judgeCase({ text, planted, peers: r.poisoned_texts.filter((_, j) => j !== i).concat(r.clean_texts), question: r.question, answer: r.incorrect_answer! }, prefix);
        });
      }
      const c = insertedCase(name, r);
      if (c) judgeCase(c, inserted);
    }
    files[name] = { ...(prefix.texts + prefix.unlocated ? { prefix: rate(prefix) } : {}), ...(inserted.texts ? { inserted: rate(inserted) } : {}) };
    for (const [k, t] of [['prefix', prefix], ['inserted', inserted]] as const) for (const f of Object.keys(t) as (keyof Tally)[]) pooled[k][f] += t[f];
  }
  const all = tally();
  for (const t of [pooled.prefix, pooled.inserted]) for (const f of Object.keys(t) as (keyof Tally)[]) all[f] += t[f];
  process.stdout.write(`${JSON.stringify({
    what: 'span-localisation', judge: 'offline', limit: limit ?? null, seconds: Math.round((performance.now() - t0) / 100) / 10,
    pooled: { all: rate(all), prefix: rate(pooled.prefix), inserted: rate(pooled.inserted) }, files,
  })}\n`);
}

if (require.main === module) main(process.argv.slice(2));
