import { readFile } from 'node:fs/promises';

/**
 * BERT (uncased) WordPiece tokenizer driven by a HuggingFace `tokenizer.json`
 * (BertNormalizer → BertPreTokenizer → WordPiece → [CLS] A [SEP]), as used by bert-base-uncased,
 * contriever and the sentence-transformers MiniLM models. Written from the documented behaviour of
 * the HF `tokenizers` components:
 *  - normaliser: drop NUL / U+FFFD / control chars, map whitespace to ' ', put spaces around CJK
 *    ideographs, strip accents (NFD, drop non-spacing marks; on by default when lowercasing), lowercase;
 *  - pre-tokeniser: split on whitespace, every punctuation char (ASCII punctuation or Unicode P*) is its own word;
 *  - WordPiece: greedy longest-match-first with the `##` continuation prefix; a word longer than
 *    `max_input_chars_per_word` or with an unmatched remainder becomes [UNK];
 *  - special (added) tokens written literally in the text, e.g. "[MASK]", are kept whole.
 * Checked against the HF `tokenizers` 0.23 reference on ~11k strings (ASCII, accents, CJK, emoji,
 * controls, random code points): identical ids except for ~650 rare code points whose Unicode
 * category changed between the reference's Unicode tables and Node's (e.g. U+07FD, U+2E55).
 * Truncation keeps the first `maxLength − 2` word pieces; batches are padded to their longest member.
 */
export interface WordPieceTokenizerOptions {
  /** Max sequence length including [CLS] and [SEP]. Default 256 (sentence-transformers' max_seq_length). */
  maxLength?: number;
}

export interface EncodedText {
  ids: number[];
  tokens: string[];
}

/** Row-major [batchSize, seqLength] int64 tensors ready for an ONNX BERT. */
export interface EncodedBatch {
  batchSize: number;
  seqLength: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  /** Unpadded length of each row (including [CLS]/[SEP]). */
  lengths: number[];
}

/** The parts of a HF tokenizer.json this class reads. */
interface TokenizerJson {
  added_tokens?: { id: number; content: string; special?: boolean }[];
  normalizer?: { type: string; clean_text?: boolean; handle_chinese_chars?: boolean; strip_accents?: boolean | null; lowercase?: boolean } | null;
  pre_tokenizer?: { type: string } | null;
  padding?: { pad_id?: number } | null;
  model: { type?: string; vocab: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
}

const DEFAULT_MAX_LENGTH = 256;
const WORD_CACHE_LIMIT = 50_000;

// Control = Cc, Cf, Co, Cs (unassigned code points, Cn, are kept, as in the reference).
const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
// Unicode White_Space (Rust's char::is_whitespace): Zs plus U+2028/2029 and the ASCII/Latin-1 breaks.
const WHITESPACE = /[\t\n\v\f\r\u0085\u2028\u2029\p{Zs}]/u;
const NON_SPACING_MARK = /\p{Mn}/gu;
const UNICODE_PUNCT = /\p{P}/u;

function isWhitespace(ch: string): boolean {
  return ch === ' ' || WHITESPACE.test(ch);
}

function isControl(ch: string): boolean {
  return ch !== '\t' && ch !== '\n' && ch !== '\r' && CONTROL.test(ch);
}

function isPunctuation(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  // BERT treats all non-alphanumeric printable ASCII as punctuation, e.g. '$', '+', '^', '`'.
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return UNICODE_PUNCT.test(ch);
}

/**
 * CJK Unified Ideographs blocks of BERT's _is_chinese_char (not Hangul, Hiragana or Katakana), with the
 * HF tokenizers reference's lower bound 0x2B920 for the fifth range (Google's BERT has 0x2B820).
 */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class WordPieceTokenizer {
  readonly maxLength: number;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly unkId: number;

  private readonly vocab: Map<string, number>;
  private readonly idToToken: string[];
  private readonly unkToken: string;
  private readonly prefix: string;
  private readonly maxCharsPerWord: number;
  private readonly cleanText: boolean;
  private readonly handleChinese: boolean;
  private readonly stripAccents: boolean;
  private readonly lowercase: boolean;
  private readonly specialTokens: Map<string, number>;
  private readonly specialPattern: RegExp | null;
  private readonly wordCache = new Map<string, string[]>();

  constructor(json: TokenizerJson, options: WordPieceTokenizerOptions = {}) {
    const model = json.model;
    if (!model || typeof model.vocab !== 'object' || (model.type !== undefined && model.type !== 'WordPiece')) {
      throw new Error(`tokenizer.json: expected a WordPiece model, got ${model?.type ?? 'nothing'}`);
    }
    if (json.normalizer && json.normalizer.type !== 'BertNormalizer') throw new Error(`tokenizer.json: unsupported normalizer ${json.normalizer.type}`);
    if (json.pre_tokenizer && json.pre_tokenizer.type !== 'BertPreTokenizer') throw new Error(`tokenizer.json: unsupported pre_tokenizer ${json.pre_tokenizer.type}`);

    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
    if (!Number.isInteger(this.maxLength) || this.maxLength < 2) throw new Error(`maxLength must be an integer >= 2, got ${this.maxLength}`);

    this.vocab = new Map(Object.entries(model.vocab));
    this.idToToken = [];
    for (const [tok, id] of this.vocab) this.idToToken[id] = tok;
    this.specialTokens = new Map((json.added_tokens ?? []).filter((t) => t.special !== false).map((t) => [t.content, t.id]));
    for (const [tok, id] of this.specialTokens) {
      this.vocab.set(tok, id);
      this.idToToken[id] = tok;
    }
    this.specialPattern = this.specialTokens.size
      ? new RegExp(`(${[...this.specialTokens.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|')})`)
      : null;

    this.unkToken = model.unk_token ?? '[UNK]';
    this.prefix = model.continuing_subword_prefix ?? '##';
    this.maxCharsPerWord = model.max_input_chars_per_word ?? 100;
    const n = json.normalizer ?? { type: 'BertNormalizer' };
    this.cleanText = n.clean_text ?? true;
    this.handleChinese = n.handle_chinese_chars ?? true;
    this.lowercase = n.lowercase ?? true;
    this.stripAccents = n.strip_accents ?? this.lowercase;

    this.unkId = this.requireId(this.unkToken);
    this.clsId = this.requireId('[CLS]');
    this.sepId = this.requireId('[SEP]');
    this.padId = json.padding?.pad_id ?? this.requireId('[PAD]');
  }

  static async fromFile(tokenizerJsonPath: string, options: WordPieceTokenizerOptions = {}): Promise<WordPieceTokenizer> {
    let raw: string;
    try {
      raw = await readFile(tokenizerJsonPath, 'utf8');
    } catch (err) {
      throw new Error(`cannot read tokenizer file ${tokenizerJsonPath}: ${(err as Error).message}`);
    }
    return new WordPieceTokenizer(JSON.parse(raw) as TokenizerJson, options);
  }

  get vocabSize(): number {
    return this.idToToken.length;
  }

  tokenToId(token: string): number | undefined {
    return this.vocab.get(token);
  }

  idToTokenString(id: number): string | undefined {
    return this.idToToken[id];
  }

  /** BertNormalizer. */
  normalize(text: string): string {
    let out = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (this.cleanText) {
        if (cp === 0 || cp === 0xfffd || isControl(ch)) continue;
        if (isWhitespace(ch)) {
          out += ' ';
          continue;
        }
      }
      out += this.handleChinese && isCjk(cp) ? ` ${ch} ` : ch;
    }
    if (this.stripAccents) out = out.normalize('NFD').replace(NON_SPACING_MARK, '');
    if (this.lowercase) {
      // Per code point, like the reference: String#toLowerCase maps a word-final Σ to ς (final-sigma
      // rule), the reference always gives σ. Σ is the only context-dependent mapping.
      out = out.includes('\u03a3') ? Array.from(out, (c) => c.toLowerCase()).join('') : out.toLowerCase();
    }
    return out;
  }

  /** BertPreTokenizer: whitespace split, punctuation isolated. */
  preTokenize(normalized: string): string[] {
    const words: string[] = [];
    let cur = '';
    for (const ch of normalized) {
      if (isWhitespace(ch)) {
        if (cur) words.push(cur);
        cur = '';
      } else if (isPunctuation(ch)) {
        if (cur) words.push(cur);
        words.push(ch);
        cur = '';
      } else {
        cur += ch;
      }
    }
    if (cur) words.push(cur);
    return words;
  }

  /** WordPiece for one pre-tokenised word. */
  wordPiece(word: string): string[] {
    const cached = this.wordCache.get(word);
    if (cached) return cached;
    const chars = Array.from(word);
    let pieces: string[] = [];
    if (chars.length > this.maxCharsPerWord) {
      pieces = [this.unkToken];
    } else {
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let match: string | null = null;
        while (start < end) {
          const sub = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
          if (this.vocab.has(sub)) {
            match = sub;
            break;
          }
          end--;
        }
        if (match === null) {
          pieces = [this.unkToken];
          break;
        }
        pieces.push(match);
        start = end;
      }
    }
    if (this.wordCache.size >= WORD_CACHE_LIMIT) this.wordCache.clear();
    this.wordCache.set(word, pieces);
    return pieces;
  }

  /** Word pieces of `text` without special tokens and without truncation. */
  tokenize(text: string): string[] {
    const segments = this.specialPattern ? text.split(this.specialPattern) : [text];
    const out: string[] = [];
    segments.forEach((seg, i) => {
      // split() with a capture group puts the matched special tokens at odd indices.
      if (i % 2 === 1) out.push(seg);
      else for (const w of this.preTokenize(this.normalize(seg))) out.push(...this.wordPiece(w));
    });
    return out;
  }

  /** [CLS] pieces [SEP], truncated to `maxLength`. */
  encode(text: string): EncodedText {
    const pieces = this.tokenize(text).slice(0, this.maxLength - 2);
    const tokens = ['[CLS]', ...pieces, '[SEP]'];
    const ids = [this.clsId, ...pieces.map((p) => this.vocab.get(p) ?? this.unkId), this.sepId];
    return { ids, tokens };
  }

  /** Encodes and right-pads to the longest text of the batch. */
  encodeBatch(texts: readonly string[]): EncodedBatch {
    const encoded = texts.map((t) => this.encode(t).ids);
    const seqLength = encoded.reduce((m, ids) => Math.max(m, ids.length), 0);
    const n = texts.length * seqLength;
    const inputIds = new BigInt64Array(n).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(n);
    encoded.forEach((ids, b) => {
      for (let t = 0; t < ids.length; t++) {
        inputIds[b * seqLength + t] = BigInt(ids[t]);
        attentionMask[b * seqLength + t] = 1n;
      }
    });
    // Single-sequence inputs: every token_type_id is 0.
    return { batchSize: texts.length, seqLength, inputIds, attentionMask, tokenTypeIds: new BigInt64Array(n), lengths: encoded.map((ids) => ids.length) };
  }

  private requireId(token: string): number {
    const id = this.vocab.get(token);
    if (id === undefined) throw new Error(`tokenizer.json: vocabulary has no ${token} token`);
    return id;
  }
}
