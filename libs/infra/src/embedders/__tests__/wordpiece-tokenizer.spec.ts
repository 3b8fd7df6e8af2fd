import { join } from 'node:path';
import { WordPieceTokenizer } from '../wordpiece-tokenizer';

// Expected ids are hand-checked against vocab.txt of the all-MiniLM-L6-v2 tokenizer
// (`grep -nxF -- TOKEN vocab.txt`, id = line number − 1), e.g. hello 7592, world 2088, "," 1010, "!" 999.
// Same directory as DEFAULT_TOKENIZER_DIR of the test fixture test/support/random-bert-onnx.ts
// (not imported: libs/infra, tests included, does not reach into test/).
const TOKENIZER_DIR = '/work/shared/models/all-MiniLM-L6-v2-tokenizer';
const TOKENIZER_JSON = join(TOKENIZER_DIR, 'tokenizer.json');

describe('WordPieceTokenizer (all-MiniLM-L6-v2 tokenizer.json)', () => {
  let tok: WordPieceTokenizer;

  beforeAll(async () => {
    tok = await WordPieceTokenizer.fromFile(TOKENIZER_JSON);
  });

  it('reads the special token ids and vocabulary size', () => {
    expect([tok.padId, tok.unkId, tok.clsId, tok.sepId]).toEqual([0, 100, 101, 102]);
    expect(tok.vocabSize).toBe(30522);
    expect(tok.maxLength).toBe(256);
  });

  it('wraps in [CLS]/[SEP], lowercases and splits punctuation', () => {
    expect(tok.encode('Hello, World!')).toEqual({
      ids: [101, 7592, 1010, 2088, 999, 102],
      tokens: ['[CLS]', 'hello', ',', 'world', '!', '[SEP]'],
    });
  });

  it('treats non-alphanumeric ASCII such as $ as punctuation', () => {
    // $ 1002, 500 3156
    expect(tok.encode('$500').ids).toEqual([101, 1002, 3156, 102]);
  });

  it('strips accents (NFD, drop combining marks)', () => {
    // cafe 7668, naive 15743
    expect(tok.encode('Café NAÏVE').ids).toEqual([101, 7668, 15743, 102]);
  });

  it('splits words greedily into longest-match word pieces', () => {
    // una 14477 ##ffa 20961 ##ble 3468 (no "unaff…", "##ffab…" entries)
    expect(tok.tokenize('unaffable')).toEqual(['una', '##ffa', '##ble']);
    // em 7861 ##bed 8270 ##ding 4667 ##s 2015
    expect(tok.encode('embeddings').ids).toEqual([101, 7861, 8270, 4667, 2015, 102]);
    // x 1060 ##y 2100 ##z 2480 (no "xy", "##yz")
    expect(tok.encode('xyz').ids).toEqual([101, 1060, 2100, 2480, 102]);
  });

  it('lowercases per character: a word-final capital sigma becomes σ, not ς', () => {
    // x 1060, ##σ 29733 (##ς would be 19579); String#toLowerCase alone would give "xς".
    expect(tok.encode('XΣ').ids).toEqual([101, 1060, 29733, 102]);
  });

  it('splits on Unicode line/paragraph separators (U+2028, U+2029) and no-break space', () => {
    // a 1037, b 1038
    expect(tok.encode('a\u2028b\u2029a\u00a0b').ids).toEqual([101, 1037, 1038, 1037, 1038, 102]);
  });

  it('puts spaces around CJK ideographs', () => {
    // 中 1746 国 1799
    expect(tok.encode('中国').ids).toEqual([101, 1746, 1799, 102]);
  });

  it('drops control characters and treats tabs/newlines as whitespace', () => {
    expect(tok.encode('hello\u0000\u0007\tworld\n').ids).toEqual([101, 7592, 2088, 102]);
    expect(tok.encode('  ').ids).toEqual([101, 102]);
  });

  it('maps an over-long word (> max_input_chars_per_word = 100) and an unmatchable word to [UNK]', () => {
    expect(tok.encode('a'.repeat(101)).ids).toEqual([101, 100, 102]);
    expect(tok.encode('a'.repeat(100)).ids).not.toContain(100);
    // U+2603 SNOWMAN is not in the vocabulary.
    expect(tok.encode('hello \u2603').ids).toEqual([101, 7592, 100, 102]);
  });

  it('keeps special tokens written in the text whole', () => {
    // [MASK] 103; "mask" alone is 7308
    expect(tok.encode('the [MASK] world').ids).toEqual([101, 1996, 103, 2088, 102]);
    expect(tok.encode('the [mask] world').ids).toEqual([101, 1996, 1031, 7308, 1033, 2088, 102]);
  });

  it('truncates to maxLength including [CLS] and [SEP]', async () => {
    const short = await WordPieceTokenizer.fromFile(TOKENIZER_JSON, { maxLength: 4 });
    expect(short.encode('hello world hello world').ids).toEqual([101, 7592, 2088, 102]);
    const long = 'hello '.repeat(300);
    expect(tok.encode(long).ids).toHaveLength(256);
    expect(tok.encode(long).ids[255]).toBe(102);
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

  it('rejects a non-WordPiece tokenizer.json and a bad maxLength', () => {
    expect(() => new WordPieceTokenizer({ model: { type: 'BPE', vocab: {} } })).toThrow(/WordPiece/);
    expect(
      () => new WordPieceTokenizer({ model: { type: 'WordPiece', vocab: { '[UNK]': 0, '[CLS]': 1, '[SEP]': 2, '[PAD]': 3 } } }, { maxLength: 1 }),
    ).toThrow(/maxLength/);
  });

  it('reports a missing tokenizer file clearly', async () => {
    await expect(WordPieceTokenizer.fromFile('/nonexistent/tokenizer.json')).rejects.toThrow(/cannot read tokenizer file/);
  });
});
