import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ValidationError, parseIngestRecord, type IngestRecord } from '@forensics/core';

/**
 * Reads a JSONL file of `{id?, text, metadata?}` and validates EVERY line before anything is
 * ingested: one bad line → a clear error naming the line, and nothing stored.
 */
export async function readIngestJsonl(path: string): Promise<IngestRecord[]> {
  const rl = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  const out: IngestRecord[] = [];
  const errors: string[] = [];
  let n = 0;
  for await (const line of rl) {
    n++;
    if (!line.trim()) continue;
    let raw: unknown;
    try { raw = JSON.parse(line); } catch (e) { errors.push(`${path}:${n}: not valid JSON (${(e as Error).message})`); continue; }
    try { out.push(parseIngestRecord(raw, `${path}:${n}`)); } catch (e) { errors.push((e as Error).message); }
    if (errors.length >= 20) break;
  }
  if (errors.length) throw new ValidationError(`${errors.length}${errors.length >= 20 ? '+' : ''} invalid line(s); nothing was ingested:\n  ${errors.join('\n  ')}`, errors);
  return out;
}
