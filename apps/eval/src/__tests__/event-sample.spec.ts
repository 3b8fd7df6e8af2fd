import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildEventSample, loadSuiteFiles, type SuiteFile } from '../suite-files';

/** The fixed event sample (issue 60 item 2): N per family across the family's files, restored by id from the files. */
describe('the event sample of --suite dev --sample', () => {
  const dir = mkdtempSync(join(tmpdir(), 'event-sample-'));
  const rec = (id: string, clean: boolean) => JSON.stringify({ id, question: `q ${id}?`, incorrect_answer: 'x', poisoned_texts: ['p'], clean_texts: clean ? ['c'] : [] });
  writeFileSync(join(dir, 'a.jsonl'), ['a1', 'a2', 'a3'].map((i) => rec(i, true)).join('\n'));
  writeFileSync(join(dir, 'b.jsonl'), ['b1', 'b2'].map((i) => rec(i, false)).join('\n'));
  writeFileSync(join(dir, 'c.jsonl'), ['c1', 'c2', 'c3', 'c4'].map((i) => rec(i, true)).join('\n'));
  const files: SuiteFile[] = [{ file: 'a', family: 'poisonedrag' }, { file: 'b', family: 'poisonedrag' }, { file: 'c', family: 'hotflip' }];
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('draws perFamily records per family over its files together, and the same ones again with the same seed', () => {
    const { loaded } = loadSuiteFiles(dir, files);
    const s = buildEventSample(loaded, 2, 7);
    const count = (...fs: string[]) => fs.reduce((n, f) => n + (s.files[f]?.length ?? 0), 0);
    expect(count('a', 'b')).toBe(2);
    expect(count('c')).toBe(2);
    expect(buildEventSample(loaded, 2, 7)).toEqual(s);
    // A family smaller than perFamily is taken whole.
    expect(Object.values(buildEventSample(loaded, 10, 7).files).flat().sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'c1', 'c2', 'c3', 'c4']);
  });

  it('restores exactly the sampled records, drops the files it does not name, and refuses an id the file lacks', () => {
    const sample = { about: '', seed: 1, perFamily: 2, files: { a: ['a3'], c: ['c1', 'c4'] } };
    const { loaded } = loadSuiteFiles(dir, files, sample);
    expect(loaded.map((f) => [f.file, f.records.map((r) => r.id)])).toEqual([['a', ['a3']], ['c', ['c1', 'c4']]]);
    expect(() => loadSuiteFiles(dir, files, { ...sample, files: { a: ['a9'] } })).toThrow('names 1 records of a, the file has 0');
  });
});
