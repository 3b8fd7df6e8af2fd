import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/**
 * A Hugging Face `tokenizer.json` (+ `tokenizer_config.json`) through `@huggingface/tokenizers`, the
 * tokenizers' own JavaScript port (normalizer, pre-tokenizer, model and post-processor as the Rust crate
 * configures them), batched into the int64 tensors an ONNX encoder takes. Truncation and padding are done
 * here, not from the file: exported files often fix them for another use (all-MiniLM-L6-v2's pads every
 * text to 128), and an encoder reads best at its own `max_seq_length` with batches padded to their longest.
 */
export interface HfTokenizerOptions {
  /** Max sequence length including the special tokens. Default 256 (sentence-transformers' max_seq_length for MiniLM). */
  maxLength?: number;
}

/** Row-major [batchSize, seqLength] int64 tensors ready for an ONNX BERT. */
export interface EncodedBatch {
  batchSize: number;
  seqLength: number;
  inputIds: BigInt64Array;
  attentionMask: BigInt64Array;
  tokenTypeIds: BigInt64Array;
  /** Unpadded length of each row (including the special tokens). */
  lengths: number[];
}

const DEFAULT_MAX_LENGTH = 256;

export class HfTokenizer {
  readonly maxLength: number;
  readonly padId: number;

  constructor(private readonly tokenizer: Tokenizer, padId: number, options: HfTokenizerOptions = {}) {
    this.maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
    if (!Number.isInteger(this.maxLength) || this.maxLength < 2) throw new Error(`maxLength must be an integer >= 2, got ${this.maxLength}`);
    this.padId = padId;
  }

  /** Reads `tokenizer.json` and (when present) `tokenizer_config.json` of a Hugging Face model folder. */
  static async fromDir(dir: string, options: HfTokenizerOptions = {}): Promise<HfTokenizer> {
    const file = join(dir, 'tokenizer.json');
    const raw = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new Error(`cannot read tokenizer file ${file}: ${e.code ?? e.message}`);
    });
    const json = JSON.parse(raw) as { padding?: { pad_id?: number } | null; model?: { vocab?: Record<string, number> } };
    const config = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8').catch(() => '{}')) as Record<string, unknown>;
    const tok = new Tokenizer(json, config);
    const padId = json.padding?.pad_id ?? tok.token_to_id('[PAD]') ?? 0;
    return new HfTokenizer(tok, padId, options);
  }

  /** Token ids of one text with the model's special tokens, truncated to `maxLength` (the closing special token kept). */
  encodeIds(text: string): number[] {
    const ids = this.tokenizer.encode(text).ids;
    if (ids.length <= this.maxLength) return ids;
    return [...ids.slice(0, this.maxLength - 1), ids[ids.length - 1]];
  }

  tokenize(text: string): string[] {
    return this.tokenizer.tokenize(text);
  }

  /** A batch padded to its longest member. */
  encodeBatch(texts: readonly string[]): EncodedBatch {
    const rows = texts.map((t) => this.encodeIds(t));
    const seqLength = rows.reduce((m, r) => Math.max(m, r.length), 0);
    const n = rows.length * seqLength;
    const inputIds = new BigInt64Array(n).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(n);
    const tokenTypeIds = new BigInt64Array(n);
    rows.forEach((r, b) => {
      for (let i = 0; i < r.length; i++) {
        inputIds[b * seqLength + i] = BigInt(r[i]);
        attentionMask[b * seqLength + i] = 1n;
      }
    });
    return { batchSize: rows.length, seqLength, inputIds, attentionMask, tokenTypeIds, lengths: rows.map((r) => r.length) };
  }
}
