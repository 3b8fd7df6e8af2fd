import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@forensics/core/testing';
import { Bm25HandleEmbedder, Bm25RetrievalStore, TextHandles } from '../bm25-retrieval';
import { CachedEmbedder } from '../cached-embedder.adapter';
import { ANSWER_FRAMINGS, EvalDataError, poisonedTextsOf, reportedAnswer } from '../eval-data';
import { parseEvalArgs, UsageError } from '../eval-cli';

describe('CachedEmbedder', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'emb-cache-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('embeds each distinct text once across instances and returns the same vectors', async () => {
    const file = join(dir, 'h.bin');
    const inner = new HashingEmbedder(8);
    const a = new CachedEmbedder(inner, file);
    const first = await a.embed(['alpha beta', 'gamma', 'alpha beta']);
    expect(inner.embeddedTexts).toBe(2);
    expect(statSync(file).size).toBe(2 * (32 + 4 * 8));
    const b = new CachedEmbedder(inner, file);
    const again = await b.embed(['gamma', 'alpha beta']);
    expect(inner.embeddedTexts).toBe(2);
    expect(Array.from(again[1])).toEqual(Array.from(first[0]));
    expect(b.id).toBe(inner.id);
  });

  it('ignores a torn last record', async () => {
    const file = join(dir, 'h.bin');
    await new CachedEmbedder(new HashingEmbedder(8), file).embed(['one']);
    appendFileSync(file, Buffer.alloc(10));
    const c = new CachedEmbedder(new HashingEmbedder(8), file);
    await c.init();
    expect(c.size).toBe(1);
  });
});

describe('BM25 retrieval behind the ports', () => {
  it('maps the query handle back to its text and ranks by BM25, honouring exclusions and quarantine', async () => {
    const handles = new TextHandles();
    const emb = new Bm25HandleEmbedder(handles);
    const store = new Bm25RetrievalStore(handles);
    await store.ensureCollection('c', emb.dimension);
    const texts = ['the capital of australia is sydney', 'canberra is the capital of australia', 'kangaroos live in australia', 'pasta recipes'];
    const vecs = await emb.embed(texts);
    await store.upsert('c', texts.map((text, i) => ({ id: `d${i}`, vector: vecs[i], text })));
    const [q] = await emb.embed(['capital of australia']);
    expect((await store.search('c', { vector: q, k: 3 })).map((h) => h.id)).toEqual(['d0', 'd1', 'd2']);
    await store.setQuarantined('c', ['d0'], true);
    expect((await store.search('c', { vector: q, k: 2, excludeIds: ['d1'] })).map((h) => h.id)).toEqual(['d2', 'd3']);
    await expect(store.search('c', { vector: [12345], k: 1 })).rejects.toThrow(/not a text handle/);
    await expect(store.ensureCollection('x', 512)).rejects.toThrow(/1-d text handles/);
  });
});

describe('eval CLI arguments', () => {
  it('parses options and rejects bad ones with a usage error', () => {
    expect(parseEvalArgs(['--data', 'x.jsonl'])).toMatchObject({ data: 'x.jsonl', judge: 'offline', k: 5, retriever: 'embed', baseline: false, poisonSet: 'given' });
    expect(parseEvalArgs(['--data=x.jsonl', '--k', '3', '--baseline', '--retriever', 'bm25', '--limit', '7'])).toMatchObject({ k: 3, baseline: true, retriever: 'bm25', limit: 7 });
    expect(() => parseEvalArgs([])).toThrow(UsageError);
    expect(() => parseEvalArgs(['--data', 'x', '--judge', 'gpt'])).toThrow(/--judge/);
    expect(() => parseEvalArgs(['--data', 'x', '--k', '0'])).toThrow(/positive integer/);
    expect(() => parseEvalArgs(['--data', 'x', '--frobnicate'])).toThrow(/unknown option/);
    // The suite refits with the committed judge's grid unless told otherwise.
    expect(parseEvalArgs(['--suite', 'dev']).suite).toMatchObject({ fitGrid: 'committed' });
    expect(parseEvalArgs(['--suite', 'dev', '--fit-grid', 'full']).suite).toMatchObject({ fitGrid: 'full' });
    expect(() => parseEvalArgs(['--suite', 'dev', '--fit-grid', 'wide'])).toThrow(/--fit-grid must be committed or full/);
    expect(() => parseEvalArgs(['--data', 'x', '--fit-grid', 'full'])).toThrow(/only with --suite dev/);
    // --vetted: the collection's vetted baseline in each question's run (decision 0320); none by default.
    expect(parseEvalArgs(['--data', 'x.jsonl']).vetted).toBe('none');
    expect(parseEvalArgs(['--suite', 'dev', '--vetted', 'clean']).vetted).toBe('clean');
    expect(parseEvalArgs(['--data', 'x.jsonl', '--vetted=all']).vetted).toBe('all');
    expect(() => parseEvalArgs(['--data', 'x.jsonl', '--vetted', 'yes'])).toThrow(/--vetted must be none, clean or all/);
    // --vetted-share: part of the clean texts inside the baseline; only with --vetted clean, in (0, 1].
    expect(parseEvalArgs(['--suite', 'dev', '--vetted', 'clean', '--vetted-share', '0.5']).vettedShare).toBe(0.5);
    expect(parseEvalArgs(['--data', 'x.jsonl', '--vetted', 'clean', '--vetted-share', '1']).vettedShare).toBeUndefined();
    expect(() => parseEvalArgs(['--data', 'x.jsonl', '--vetted', 'all', '--vetted-share', '0.5'])).toThrow(/only with --vetted clean/);
    expect(() => parseEvalArgs(['--data', 'x.jsonl', '--vetted', 'clean', '--vetted-share', '0'])).toThrow(/in \(0, 1\]/);
    // --poison-count with the suite caps every run's planted texts per question; a false-flag run plants none.
    expect(parseEvalArgs(['--suite', 'dev', '--poison-count', '1']).suite).toMatchObject({ poisonCount: 1 });
    expect(parseEvalArgs(['--suite', 'dev']).suite).not.toHaveProperty('poisonCount');
    expect(() => parseEvalArgs(['--suite', 'dev', '--poison-count', '0'])).toThrow(/positive integer/);
    expect(() => parseEvalArgs(['--suite', 'dev', '--false-flag', '--poison-count', '1'])).toThrow(/does not apply to --false-flag/);
  });

  it('--answer-form reports the wrong answer as the file has it, framed as served, or as a quoted sentence', () => {
    expect(parseEvalArgs(['--data', 'x.jsonl']).answerForm).toBe('given');
    expect(parseEvalArgs(['--suite', 'dev', '--answer-form', 'framed']).answerForm).toBe('framed');
    expect(() => parseEvalArgs(['--data', 'x.jsonl', '--answer-form', 'long'])).toThrow(/--answer-form must be given, framed, sentence/);
    const texts = ['The ferry left at noon. Velmora has 24 towers, all of stone.', 'Velmora has 24 towers.'];
    expect(reportedAnswer('24', 'given', 'how many towers', texts)).toBe('24');
    // framed: one of the framings, fixed by the question (the same question is always framed the same way).
    const framed = reportedAnswer('24.', 'framed', 'how many towers', texts);
    expect(ANSWER_FRAMINGS.map((f) => f('24'))).toContain(framed);
    expect(reportedAnswer('24', 'framed', 'how many towers', [])).toBe(framed);
    // sentence: the first sentence of the texts that states it; none → framed.
    expect(reportedAnswer('24', 'sentence', 'how many towers', texts)).toBe('Velmora has 24 towers, all of stone.');
    // A sentence carrying an optimisation attack's token salad at its edge is passed over (a generator serves prose).
    const salad = 'quartz lemur oboe vortex pagoda tundra ferret nimbus walrus cobalt zephyr marlin gecko sprocket quince ' +
      'falcon anvil velmora 24 towers stood. Velmora kept 24 towers in all.';
    expect(reportedAnswer('24', 'sentence', 'how many towers', [salad])).toBe('Velmora kept 24 towers in all.');
    // On word boundaries: "World War I" is not stated by a sentence about World War II.
    expect(reportedAnswer('World War I', 'sentence', 'which war', ['It ended with World War II. It began before World War I, they say.'])).toBe('It began before World War I, they say.');
    expect(reportedAnswer('31', 'sentence', 'how many towers', texts)).toBe(ANSWER_FRAMINGS.map((f) => f('31')).find((x) => x === reportedAnswer('31', 'framed', 'how many towers', [])));
  });

  it('--poison-set mixed takes the given texts and every variant\'s in turn, as many as given, each once', () => {
    const r = {
      id: 'q1', dataset: 'nq', attack: 'test', question: 'how many towers', incorrect_answer: '24', clean_texts: [],
      poisoned_texts: ['g1', 'g2', 'g3', 'g4', 'g5'],
      poisoned_variants: { gpt4: ['p1', 'p2', 'g1'], gemini: ['m1'] },
    };
    expect(parseEvalArgs(['--data', 'x.jsonl', '--poison-set', 'mixed']).poisonSet).toBe('mixed');
    // variants in name order (gemini, gpt4); a text already taken counts once.
    expect(poisonedTextsOf(r, 'mixed')).toEqual(['g1', 'm1', 'p1', 'g2', 'p2']);
    expect(poisonedTextsOf(r, 'mixed', 3)).toEqual(['g1', 'm1', 'p1']);
    expect(() => poisonedTextsOf({ ...r, poisoned_variants: {} }, 'mixed')).toThrow(EvalDataError);
  });

  it('--trust names the false report\'s reporter with --false-flag, the attack report\'s without', () => {
    expect(parseEvalArgs(['--data', 'x', '--false-flag'])).toMatchObject({ falseFlag: { trust: 'anonymous' } });
    expect(parseEvalArgs(['--data', 'x', '--false-flag'])).not.toHaveProperty('attackTrust');
    expect(parseEvalArgs(['--data', 'x', '--false-flag', '--trust', 'identified'])).toMatchObject({ falseFlag: { trust: 'identified' } });
    expect(() => parseEvalArgs(['--data', 'x', '--false-flag', '--trust', 'reviewer'])).toThrow(/anonymous or identified/);
    expect(parseEvalArgs(['--data', 'x'])).not.toHaveProperty('attackTrust');
    expect(parseEvalArgs(['--data', 'x', '--trust', 'anonymous'])).toMatchObject({ attackTrust: 'anonymous', falseFlag: undefined });
    expect(() => parseEvalArgs(['--data', 'x', '--trust', 'root'])).toThrow(/--trust/);
  });
});
