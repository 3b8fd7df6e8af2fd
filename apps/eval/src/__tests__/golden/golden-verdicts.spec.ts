/**
 * Golden verdicts (issue 33): a few hundred fixed (question, wrong answer, text, peers) cases drawn across
 * every attack family of the development data, each with the verdict the judge gave when the file was last
 * written (scripts/golden-verdicts.ts). A rule change or a refit that flips any verdict fails here and the
 * failure lists the flips; update the file deliberately, with the reason in the commit.
 *
 * The texts are third-party data and stay in ../shared/data: golden-verdicts.json holds references (file,
 * record id, which text, a SHA-256 prefix). Without that folder the test is skipped, and says so.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { offlineJudge, offlineJudgeFeatures } from '@forensics/algorithms';
import golden from './golden-verdicts.json';

const DATA = resolve(__dirname, '..', '..', '..', '..', '..', '..', 'shared', 'data');
const haveData = existsSync(DATA);
if (!haveData) console.log(`golden verdicts: ${DATA} not found, so the ${golden.cases.length} golden cases are skipped (they reference third-party texts that are not committed)`);

interface Rec { id: string; question: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[]; poisoned_variants?: Record<string, string[]> }
const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

function textOf(r: Rec, ref: string): string | undefined {
  const m = /^(.+)\[(\d+)\]$/.exec(ref);
  if (!m) return undefined;
  const i = Number(m[2]);
  // The loader drops blank texts before indexing; so does this.
  const list = (xs: unknown) => (Array.isArray(xs) ? xs.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);
  if (m[1] === 'clean_texts') return list(r.clean_texts)[i];
  if (m[1] === 'poisoned_texts') return list(r.poisoned_texts)[i];
  return m[1].startsWith('poisoned_variants.') ? list(r.poisoned_variants?.[m[1].slice('poisoned_variants.'.length)])[i] : undefined;
}

(haveData ? describe : describe.skip)('offline judge golden verdicts', () => {
  const files = new Map<string, Map<string, Rec>>();
  const recordOf = (file: string, id: string): Rec | undefined => {
    if (!files.has(file)) {
      const path = join(DATA, `${file}.jsonl`);
      const recs = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Rec) : [];
      files.set(file, new Map(recs.map((r) => [String(r.id), r])));
    }
    return files.get(file)!.get(id);
  };

  it(`holds ${golden.cases.length} cases across every attack family, poisoned and clean`, () => {
    const families = new Set(golden.cases.map((c) => c.family));
    expect([...families].sort()).toEqual(['hotflip', 'poisonarena', 'poisonedrag', 'realtimeqa', 'revprag', 'trigger']);
    expect(golden.cases.length).toBeGreaterThanOrEqual(200);
    expect(golden.cases.some((c) => c.poisoned)).toBe(true);
    expect(golden.cases.some((c) => !c.poisoned)).toBe(true);
  });

  it('finds every referenced text unchanged in ../shared/data', () => {
    const missing = golden.cases.filter((c) => {
      const r = recordOf(c.file, c.id);
      const t = r && textOf(r, c.text);
      return t === undefined || sha(t) !== c.sha || c.peers.some((p) => textOf(r!, p) === undefined);
    }).map((c) => `${c.file} ${c.id} ${c.text}`);
    expect(missing).toEqual([]);
  });

  it('gives every case the verdict pinned in golden-verdicts.json (a flip is a rule or fit change: update the file deliberately)', () => {
    const flips: string[] = [];
    for (const c of golden.cases) {
      const r = recordOf(c.file, c.id);
      const text = r && textOf(r, c.text);
      if (!r || text === undefined) continue; // reported by the test above
      const input = { query: r.question, wrongAnswer: r.incorrect_answer, text, peers: c.peers.map((p) => textOf(r, p)!) };
      const label = offlineJudge(input).label;
      const states = offlineJudgeFeatures(input).support > 0;
      if (label !== c.label || states !== c.states) flips.push(`${c.file} ${c.id} ${c.text} (${c.poisoned ? 'poisoned' : 'clean'}): ${c.label}/${c.states ? 'states' : 'silent'} -> ${label}/${states ? 'states' : 'silent'}`);
    }
    expect(flips).toEqual([]);
  });
});
