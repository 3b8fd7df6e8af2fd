import type { ClaimSpan } from '../ports/repositories/records';

/**
 * What a redacted span is replaced by (issue 35, docs/decisions/0223-claim-span-redaction.md): a short,
 * neutral marker rather than nothing, so a reader of the served text (or an LLM given it as context)
 * sees that something was taken out and the sentences around it are not read as one.
 */
export const REDACTION_MARKER = '[…]';

export class RedactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedactionError';
  }
}

/**
 * The text with each span replaced by {@link REDACTION_MARKER}. Spans are [start, end) UTF-16 offsets
 * into `text`; they are checked (integers, 0 ≤ start < end ≤ length), merged when they overlap or
 * touch, and must leave some text besides markers — redacting everything is quarantining (approve).
 * Whitespace around a removed span is kept as it was.
 */
export function redactSpans(text: string, spans: readonly ClaimSpan[], marker = REDACTION_MARKER): { text: string; spans: ClaimSpan[]; removedChars: number } {
  if (spans.length === 0) throw new RedactionError('no span to redact');
  for (const s of spans) {
    if (!Number.isInteger(s.start) || !Number.isInteger(s.end) || s.start < 0 || s.end > text.length || s.start >= s.end) {
      throw new RedactionError(`span {start: ${s.start}, end: ${s.end}} is not inside the text (0..${text.length}, start < end)`);
    }
  }
  const merged: ClaimSpan[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ start: s.start, end: s.end });
  }
  let out = '';
  let pos = 0;
  let removed = 0;
  for (const s of merged) {
    out += text.slice(pos, s.start) + marker;
    removed += s.end - s.start;
    pos = s.end;
  }
  out += text.slice(pos);
  if (!out.split(marker).join('').trim()) throw new RedactionError('the spans cover the whole text: nothing would be left to serve (approve the item instead)');
  return { text: out, spans: merged, removedChars: removed };
}
