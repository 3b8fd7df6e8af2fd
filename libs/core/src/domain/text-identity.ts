import { createHash } from 'node:crypto';
import { DecodingMode, EntityDecoder, htmlDecodeTree } from 'entities/decode';

/**
 * `[LATEST]` / `[/LATEST]` are reserved for benign-text enhancement (RAGForensics, arXiv 2504.21668, App. 8.3):
 * only that path may create them. Every ingested text and every user field goes through
 * {@link stripReservedMarkers}, which removes the markers in any case, with spaces inside the
 * brackets, and in every Unicode disguise a reader (or an LLM) would still take for the marker
 * (issue 10): zero-width and bidi controls inside it (`[LA\u200bTEST]`), compatibility forms
 * (fullwidth `［LATEST］`, mathematical letters), combining marks, and confusable letters from
 * other scripts (Cyrillic `[LATЕST]`, Greek, small capitals) — and in encoded forms (issue 35,
 * item 6): HTML character references, named (`&lbrack;LATEST&rbrack;`), decimal (`&#91;`) and hex
 * (`&#x5B;`), with or without the `;` (as HTML's own legacy parsing reads them), percent-encoding
 * (`%5BLATEST%5D`, UTF-8 sequences such as `%EF%BC%BB` for `［`), and these nested in each other
 * (`&amp;#91;`, `%26%2391%3B`): the decoding repeats until nothing more decodes (at most
 * {@link MAX_DECODE_PASSES} layers).
 *
 * How, without rewriting the rest of the text: the stored text is never decoded nor normalised.
 * Instead a "view" is built in which every UTF-16 unit remembers the [start, end) range of the
 * ORIGINAL text it came from. First the references are decoded, layer by layer: a decoded character
 * takes the range of the whole reference it came from (`&#91;` → `[` spanning five characters).
 * Then the view is folded one code point at a time — each code point becomes its NFKD form with
 * marks removed, confusables folded to ASCII and lower-cased, or nothing at all for format /
 * default-ignorable characters (zero-width, bidi controls, soft hyphen, variation selectors),
 * keeping its range. The plain ASCII pattern is then searched in the view, and each match's span is
 * mapped back (start of its first unit's range … end of its last unit's range) and cut from the
 * original. Folding per code point (not NFKC over the whole string) is what keeps the mapping
 * exact: every view unit has exactly one source range, so nothing outside a marker changes.
 * Removing a marker can assemble another from the pieces around it ("[LAT[LATEST]EST]"), so the
 * whole pass repeats until nothing is found.
 */
const FOLDED_MARKER = /\[\s*\/?\s*latest\s*\]/g;

/** Characters that vanish from the folded view: format controls (zero-width, bidi), default-ignorables, combining marks. */
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}]+$/u;
const MARKS = /\p{M}/gu;

/** Look-alikes of the marker's characters that NFKD leaves alone (letters of other scripts, other brackets and slashes). */
const CONFUSABLES: Record<string, string> = {
  // l
  '\u04C0': 'l', '\u04CF': 'l', '\u0399': 'l', '\u029F': 'l', '\u2C60': 'l', '\u013F': 'l', '\u0140': 'l', '\u216C': 'l', '\u217C': 'l', '\u0406': 'l', '\u0456': 'l',
  // a
  '\u0410': 'a', '\u0430': 'a', '\u0391': 'a', '\u03B1': 'a', '\u1D00': 'a', '\u0251': 'a', '\u237A': 'a',
  // t
  '\u0422': 't', '\u0442': 't', '\u03A4': 't', '\u03C4': 't', '\u1D1B': 't', '\u01AE': 't',
  // e
  '\u0415': 'e', '\u0435': 'e', '\u0395': 'e', '\u03B5': 'e', '\u1D07': 'e', '\u0404': 'e', '\u0454': 'e', '\u04BC': 'e', '\u04BD': 'e', '\u212E': 'e', '\u2C89': 'e',
  // s
  '\u0405': 's', '\u0455': 's', '\uA731': 's', '\u01BD': 's', '\u10BD': 's',
  // brackets and slash
  '\u3010': '[', '\u3014': '[', '\u301A': '[', '\u27E6': '[', '\u2045': '[', '\u27EC': '[', '\u298B': '[', '\u298D': '[', '\u298F': '[',
  '\u3011': ']', '\u3015': ']', '\u301B': ']', '\u27E7': ']', '\u2046': ']', '\u27ED': ']', '\u298C': ']', '\u298E': ']', '\u2990': ']',
  '\u2044': '/', '\u2215': '/', '\u29F8': '/', '\u2571': '/', '\u30CE': '/',
};

/** The folded form of one code point (see above): '' for invisible ones. */
function foldCodePoint(cp: string): string {
  if (cp.charCodeAt(0) < 0x80) return cp.toLowerCase();
  if (INVISIBLE.test(cp)) return '';
  const direct = CONFUSABLES[cp];
  if (direct) return direct;
  let out = '';
  for (const c of cp.normalize('NFKD').replace(MARKS, '')) out += CONFUSABLES[c] ?? c.toLowerCase();
  return out;
}

/**
 * Decoding layers of the view: a text encoded this many times over (`&amp;amp;#91;` is 3) is
 * decoded this many times, no more. Each layer costs one pass over the text, and a crafted
 * `&amp;amp;amp;…` needs one layer per 4 characters: the bound keeps a 100,000-character text at
 * 8 passes. Real double-escaping (scraped HTML, URLs inside HTML) stays within 2-3 layers, and a
 * reader (or an LLM) does not undo 9 layers of escaping to see a bracket.
 */
export const MAX_DECODE_PASSES = 8;

/** A view: per UTF-16 unit of `text`, the [from, to) range of the original text it stands for (typed arrays: texts run to megabytes). */
interface Traced { text: string; from: Int32Array; to: Int32Array }

// One decoder for every reference (startEntity resets it): the `entities` package's HTML decoder
// (the WHATWG named-reference table, numeric references with the spec's replacements, legacy names
// without `;`). Used through its streaming API because it says how many characters a reference took.
let decodedSink = '';
const entityDecoder = new EntityDecoder(htmlDecodeTree, (cp) => { decodedSink += String.fromCodePoint(cp); });

/** The character reference starting at `text[at]` (an `&`): its decoded value and length, or null when there is none. */
function referenceAt(text: string, at: number): { value: string; length: number } | null {
  decodedSink = '';
  entityDecoder.startEntity(DecodingMode.Legacy);
  let length = entityDecoder.write(text, at + 1);
  if (length < 0) length = entityDecoder.end(); // the text ends inside the reference ("…&#91")
  return length > 0 && decodedSink ? { value: decodedSink, length } : null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** The byte of the `%XX` at `text[i]`, or -1. */
function percentByte(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x25) return -1;
  const h = text.slice(i + 1, i + 3);
  return HEX_PAIR.test(h) ? parseInt(h, 16) : -1;
}

/**
 * The percent-encoded character starting at `text[at]`: one `%XX` for ASCII, two to four for a UTF-8
 * sequence; null when the `%` starts no valid encoding (`%zz`, `50% off`, a lone continuation byte,
 * an overlong form): such text is left as it is, never an error.
 */
function percentAt(text: string, at: number): { value: string; length: number } | null {
  const b0 = percentByte(text, at);
  if (b0 < 0) return null;
  if (b0 < 0x80) return { value: String.fromCharCode(b0), length: 3 };
  const n = b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (!n) return null;
  const bytes = new Uint8Array(n);
  bytes[0] = b0;
  for (let k = 1; k < n; k++) {
    const b = percentByte(text, at + 3 * k);
    if (b < 0x80 || b > 0xbf) return null;
    bytes[k] = b;
  }
  try {
    return { value: UTF8.decode(bytes), length: 3 * n };
  } catch {
    return null; // overlong or surrogate encodings: not a character
  }
}

/**
 * One decoding layer over `t`; null when it holds no reference (the view is stable). A reference is
 * never shorter than what it decodes to (`&lt` → 1 unit, `&#x1F600;` → 2), so the layer fits in
 * `t`'s length.
 */
function decodeLayer(t: Traced): Traced | null {
  const { text } = t;
  let out = '';
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let n = 0;
  let copied = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    const ref = c === 0x26 ? referenceAt(text, i) : c === 0x25 ? percentAt(text, i) : null;
    if (!ref) { i++; continue; }
    out += text.slice(copied, i);
    from.set(t.from.subarray(copied, i), n);
    to.set(t.to.subarray(copied, i), n);
    n += i - copied;
    out += ref.value;
    from.fill(t.from[i], n, n + ref.value.length);
    to.fill(t.to[i + ref.length - 1], n, n + ref.value.length);
    n += ref.value.length;
    i += ref.length;
    copied = i;
  }
  if (!copied) return null;
  out += text.slice(copied);
  from.set(t.from.subarray(copied), n);
  to.set(t.to.subarray(copied), n);
  n += text.length - copied;
  return { text: out, from: from.subarray(0, n), to: to.subarray(0, n) };
}

/** `text` with its references decoded until stable (at most MAX_DECODE_PASSES layers), each unit traced to the original; null when it has none. */
function decodedView(text: string): Traced | null {
  if (!/[&%]/.test(text)) return null;
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) { from[i] = i; to[i] = i + 1; }
  let t: Traced = { text, from, to };
  let decoded = false;
  for (let pass = 0; pass < MAX_DECODE_PASSES; pass++) {
    const next = decodeLayer(t);
    if (!next) break;
    t = next;
    decoded = true;
  }
  return decoded ? t : null;
}

/** The folded view of `text` (decoded, then folded per code point) and, per view unit, the original [start, end) it came from. */
function foldedView(text: string): { view: string; from: number[]; to: number[] } {
  const d = decodedView(text);
  const src = d ? d.text : text;
  let view = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < src.length;) {
    const cp = String.fromCodePoint(src.codePointAt(i)!);
    const f = foldCodePoint(cp);
    const a = d ? d.from[i] : i;
    const b = d ? d.to[i + cp.length - 1] : i + cp.length;
    for (let k = 0; k < f.length; k++) { from.push(a); to.push(b); }
    view += f;
    i += cp.length;
  }
  return { view, from, to };
}

/** The original [start, end) spans of every reserved marker in `text`, in order, not overlapping. */
function markerSpans(text: string): Array<[number, number]> {
  const { view, from, to } = foldedView(text);
  const spans: Array<[number, number]> = [];
  for (const m of view.matchAll(FOLDED_MARKER)) {
    const a = from[m.index!];
    const b = to[m.index! + m[0].length - 1];
    // Two view units may share a code point (a compatibility character folding to two); keep spans disjoint.
    if (spans.length && a < spans[spans.length - 1][1]) spans[spans.length - 1][1] = Math.max(spans[spans.length - 1][1], b);
    else spans.push([a, b]);
  }
  return spans;
}

export function stripReservedMarkers(text: string): string {
  // Loop: removing one marker must not assemble another ("[LAT[LATEST]EST]").
  let cur = text;
  for (;;) {
    const spans = markerSpans(cur);
    if (!spans.length) return cur;
    let out = '';
    let at = 0;
    for (const [a, b] of spans) { out += cur.slice(at, a); at = b; }
    cur = out + cur.slice(at);
  }
}

export function hasReservedMarkers(text: string): boolean {
  return markerSpans(text).length > 0;
}

/** sha256 of the NFC-normalised text: the identity of a text within a collection. */
export function textHash(text: string): string {
  return createHash('sha256').update(text.normalize('NFC'), 'utf8').digest('hex');
}

/**
 * Deterministic UUID (v5-shaped, from sha256) for (collection, text hash): the same text ingested
 * twice, by any process, gets the same id in Postgres and in the vector store.
 */
export function documentIdFor(collection: string, hash: string): string {
  const h = createHash('sha256').update(`${collection}\u0000${hash}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Key of the verdict cache: (text hash, q, t, judge model, prompt version). */
export function verdictCacheKey(parts: { textHash: string; query: string; wrongAnswer: string; judgeModel: string; promptVersion: string }): string {
  return createHash('sha256')
    .update([parts.textHash, parts.query, parts.wrongAnswer, parts.judgeModel, parts.promptVersion].join('\u0000'))
    .digest('hex');
}

export const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
