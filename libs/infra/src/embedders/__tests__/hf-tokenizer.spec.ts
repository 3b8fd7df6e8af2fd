import { HfTokenizer } from '../hf-tokenizer';

// The all-MiniLM-L6-v2 tokenizer through @huggingface/tokenizers. Expected ids are hand-checked against its vocab.txt
// (`grep -nxF -- TOKEN vocab.txt`, id = line number − 1), e.g. hello 7592, world 2088, "," 1010, "!" 999. They are the
// cases the project's own WordPiece port was checked on before the library replaced it (the two agreed on all 2,719
// texts of four development files, and on these). Same directory as DEFAULT_TOKENIZER_DIR of
// test/support/random-bert-onnx.ts (not imported: libs/infra, tests included, does not reach into test/).
const TOKENIZER_DIR = '/work/shared/models/all-MiniLM-L6-v2-tokenizer';

describe('HfTokenizer (all-MiniLM-L6-v2 tokenizer.json)', () => {
  let tok: HfTokenizer;
  const enc = (t: string) => ({ ids: tok.encodeIds(t) });

  beforeAll(async () => {
    tok = await HfTokenizer.fromDir(TOKENIZER_DIR);
  });

  it('pads with [PAD] and truncates at 256 by default, whatever the file fixes (it pads to 128)', () => {
    expect(tok.padId).toBe(0);
    expect(tok.maxLength).toBe(256);
  });

  it('wraps in [CLS]/[SEP], lowercases and splits punctuation', () => {
    expect(enc('Hello, World!').ids).toEqual([101, 7592, 1010, 2088, 999, 102]);
    expect(tok.tokenize('Hello, World!')).toEqual(['hello', ',', 'world', '!']);
  });

  it('treats non-alphanumeric ASCII such as $ as punctuation', () => {
    // $ 1002, 500 3156
    expect(enc('$500').ids).toEqual([101, 1002, 3156, 102]);
  });

  it('strips accents (NFD, drop combining marks)', () => {
    // cafe 7668, naive 15743
    expect(enc('Café NAÏVE').ids).toEqual([101, 7668, 15743, 102]);
  });

  it('splits words greedily into longest-match word pieces', () => {
    // una 14477 ##ffa 20961 ##ble 3468 (no "unaff…", "##ffab…" entries)
    expect(tok.tokenize('unaffable')).toEqual(['una', '##ffa', '##ble']);
    // em 7861 ##bed 8270 ##ding 4667 ##s 2015
    expect(enc('embeddings').ids).toEqual([101, 7861, 8270, 4667, 2015, 102]);
    // x 1060 ##y 2100 ##z 2480 (no "xy", "##yz")
    expect(enc('xyz').ids).toEqual([101, 1060, 2100, 2480, 102]);
  });

  it('lowercases with String#toLowerCase: a word-final capital sigma becomes ς (a known divergence from the Rust crate)', () => {
    // x 1060, ##ς 19579. The Rust `tokenizers` lowercases per character and gives ##σ 29733; the project's own port did
    // too. Accepted: only Greek capitals at a word's end differ, and the library is what the model's users run.
    expect(enc('XΣ').ids).toEqual([101, 1060, 19579, 102]);
  });

  it('splits on Unicode line/paragraph separators (U+2028, U+2029) and no-break space', () => {
    // a 1037, b 1038
    expect(enc('a\u2028b\u2029a\u00a0b').ids).toEqual([101, 1037, 1038, 1037, 1038, 102]);
  });

  it('puts spaces around CJK ideographs', () => {
    // 中 1746 国 1799
    expect(enc('中国').ids).toEqual([101, 1746, 1799, 102]);
  });

  it('drops control characters and treats tabs/newlines as whitespace', () => {
    expect(enc('hello\u0000\u0007\tworld\n').ids).toEqual([101, 7592, 2088, 102]);
    expect(enc('  ').ids).toEqual([101, 102]);
  });

  it('maps an over-long word (> max_input_chars_per_word = 100) and an unmatchable word to [UNK]', () => {
    expect(enc('a'.repeat(101)).ids).toEqual([101, 100, 102]);
    expect(enc('a'.repeat(100)).ids).not.toContain(100);
    // U+2603 SNOWMAN is not in the vocabulary.
    expect(enc('hello \u2603').ids).toEqual([101, 7592, 100, 102]);
  });

  it('keeps special tokens written in the text whole', () => {
    // [MASK] 103; "mask" alone is 7308
    expect(enc('the [MASK] world').ids).toEqual([101, 1996, 103, 2088, 102]);
    expect(enc('the [mask] world').ids).toEqual([101, 1996, 1031, 7308, 1033, 2088, 102]);
  });

  it('truncates to maxLength including [CLS] and [SEP]', async () => {
    const short = await HfTokenizer.fromDir(TOKENIZER_DIR, { maxLength: 4 });
    expect(short.encodeIds('hello world hello world')).toEqual([101, 7592, 2088, 102]);
    const long = 'hello '.repeat(300);
    expect(enc(long).ids).toHaveLength(256);
    expect(enc(long).ids[255]).toBe(102);
  });

  it('pads a batch to its longest member with attention mask and token type ids', () => {
    const b = tok.encodeBatch(['hello world', 'hello']);
    expect(b.batchSize).toBe(2);
    expect(b.seqLength).toBe(4);
    expect(b.lengths).toEqual([4, 3]);
    expect(Array.from(b.inputIds, Number)).toEqual([101, 7592, 2088, 102, 101, 7592, 102, 0]);
    expect(Array.from(b.attentionMask, Number)).toEqual([1, 1, 1, 1, 1, 1, 1, 0]);
    expect(Array.from(b.tokenTypeIds, Number)).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('rejects a bad maxLength', () => {
    expect(() => new HfTokenizer((tok as unknown as { tokenizer: never }).tokenizer, 0, { maxLength: 1 })).toThrow(/maxLength/);
  });

  it('reports a missing tokenizer file clearly', async () => {
    await expect(HfTokenizer.fromDir('/nonexistent')).rejects.toThrow(/cannot read tokenizer file/);
  });
});
